/*
 * tables.h - internal to store/: the tables write.c fills besides ops and
 * intervals (tables.c): flows and exports per batch, taken on the
 * producer's side and written by the insert thread, and the end-of-run
 * tables sizes, sizes_from_replies, fsinfo and findings.  Calls only
 * db.c.  Not a public header.
 */
#ifndef NFSCOPE_STORE_TABLES_H
#define NFSCOPE_STORE_TABLES_H

#include "store/db.h"

int store_take_flows(struct store *s, struct batch *b);
int store_take_exports(struct store *s, const struct an_names *names,
		       struct batch *b);
int store_write_flows(struct store *s, const struct batch *b, char *errbuf);
int store_write_exports(struct store *s, const struct batch *b,
			char *errbuf);
int store_write_figs(struct store *s, const struct an_figs *figs,
		     char *errbuf);
int store_write_findings(struct store *s, const struct an_find *find,
			 char *errbuf);

#endif
