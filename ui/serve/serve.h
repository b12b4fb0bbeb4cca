/*
 * serve.h - `nfscope serve`: a run whose figures are served to Prometheus
 * (metrics.h) on --metrics ADDR:PORT, required; -w and record's options
 * store it as record does (optional).  After the end of the input the
 * endpoint serves the final figures until SIGINT/SIGTERM.
 */
#ifndef NFSCOPE_SERVE_H
#define NFSCOPE_SERVE_H

/* The `serve` subcommand; argv[0] is "serve".  Returns the exit status. */
int ui_serve_main(int argc, char **argv);

#endif
