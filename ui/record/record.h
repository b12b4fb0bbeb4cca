/*
 * record.h - `nfscope record`: capture -> decode -> analyze -> the sqlite
 * store (store/store.h).  One run per invocation, appended to OUT.db
 * (--force: a new file).  Batches are committed per interval of capture
 * time, per --batch rows, and (live) every second; each commit is logged on
 * stderr as "nfscope record: batch N committed: ops X intervals Y ..."
 * (cumulative), so a reader knows what a crash could not take away.
 * SIGINT/SIGTERM flush the last batch and close cleanly (exit 0).
 * --metrics ADDR:PORT serves the figures to Prometheus as well (metrics.h).
 */
#ifndef NFSCOPE_RECORD_H
#define NFSCOPE_RECORD_H

/* The `record` subcommand; argv[0] is "record".  Returns the exit status.
 * (`serve`, the same run feeding the endpoint: ui/serve/serve.h.) */
int ui_record_main(int argc, char **argv);

#endif
