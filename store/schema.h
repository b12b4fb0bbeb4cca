/*
 * schema.h - internal to store/: what schema.c knows of the tables and
 * the reader and writer share: the runs table's counter columns and the
 * handshakes table's SQL.  schema.c also opens a store (store_open,
 * store.h), calling only db.c.  Not a public header.
 */
#ifndef NFSCOPE_STORE_SCHEMA_H
#define NFSCOPE_STORE_SCHEMA_H

#include "store/db.h"

/* Column lists of runs' counters: name and offset into struct store_run. */
struct store_col {
	const char *name;
	size_t off;
	bool u32;
	int since;		/* schema version that added it (0: first) */
};
extern const struct store_col store_run_cols[];
extern const size_t store_run_ncols;

/* CREATE TABLE IF NOT EXISTS handshakes (write.c, read.c) */
extern const char store_handshakes_sql[];
extern const char store_ack_cols_sql[];
extern const char store_tcp_health_sql[];

#endif
