/*
 * top_src.h - the dashboard's worker thread (see top.h): reads the source
 * and fills struct tm_model under its mutex.
 *
 * Sources: TM_LIVE (an opened live cap_source), TM_REPLAY (an opened file,
 * paced at `speed` times its own pace, 0 = as fast as possible; the model's
 * speed field may be changed under the lock and is picked up at once) and
 * TM_ATTACH (a database, followed while its run is still 'recording').
 * With out_db, the analysis is also recorded there, as `record` does.
 *
 * Ownership: the caller keeps the cap_source and closes it after
 * tm_worker_stop, which asks the thread to stop, joins it, ends the
 * recording (state 'complete' if the input ended, else 'interrupted') and
 * frees the worker.
 */
#ifndef NFSCOPE_TOP_SRC_H
#define NFSCOPE_TOP_SRC_H

#include "store/store.h"
#include "ui/cli.h"
#include "ui/top.h"

struct tm_worker;

struct tm_src_cfg {
	enum tm_mode mode;
	const char *source;		/* file, interface or database path */
	struct cap_source *src;		/* live/replay */
	const struct ui_src_opts *so;	/* live/replay: options, budgets */
	double speed;			/* replay */
	const char *db;			/* attach */
	int64_t run_id;			/* attach: 0 = the last run */
	const char *out_db;		/* -w */
};

int tm_worker_start(struct tm_worker **out, struct tm_model *m,
		    const struct tm_src_cfg *cfg);
void tm_worker_stop(struct tm_worker *w);

#endif
