/*
 * outfile.h - the files a command writes (--write-pcap, --html; record's
 * -w database and the live spool are checked the same way, and made by
 * their own code the same way).  Nothing an output names is trusted:
 *
 *   - ui_out_check, before the run: an output that is one of the inputs
 *     or another output (the same file by st_dev/st_ino, through
 *     symlinks; not yet existing: the same name in the same directory),
 *     a directory, or in a directory this user cannot write is refused.
 *   - ui_out_begin, once the source is open (after -Z): a temporary file
 *     beside it, created with O_EXCL | O_NOFOLLOW (never an existing file
 *     or a link planted there), mode 0666 less the umask.
 *   - ui_out_end: flushed and closed; renamed over the path if every
 *     write succeeded, else removed.  A failed run leaves the old file
 *     (or none), never a partial one; the caller's exit status says so.
 *
 * "-" is stdout: neither checked nor renamed (main checks stdout).  An
 * existing file that is not a regular one (/dev/null, a FIFO) is written
 * where it is, never replaced.
 * Ownership: struct ui_out is the caller's (zeroed or ui_out_begin'd); it
 * owns its FILE until ui_out_end.  Load: a few files per run.
 */
#ifndef NFSCOPE_OUTFILE_H
#define NFSCOPE_OUTFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* An output for ui_out_check: its option ("--html") and path (NULL:
 * none). */
struct ui_out_name {
	const char *opt;
	const char *path;
};

/* Each output of outs[0..nout) against the inputs ins[0..nin) (NULL and
 * "-" skipped) and the other outputs.  0, or -1 said on stderr. */
int ui_out_check(const char *who, const struct ui_out_name *outs,
		 size_t nout, const char *const *ins, size_t nin);

struct ui_out {
	const char *who, *opt;	/* for messages; borrowed */
	const char *path;	/* borrowed; NULL: none */
	char tmp[PATH_MAX];	/* the temporary file; "" when none */
	FILE *f;		/* NULL: none; stdout for "-" */
};

/* Create path's temporary file into o (path NULL: o empty, 0).  0, or -1
 * said on stderr. */
int ui_out_begin(struct ui_out *o, const char *who, const char *opt,
		 const char *path);
/* Close o's file; ok and every write done: rename it into place, else
 * remove it (said).  0, or -1 (not written: said).  An empty o: 0. */
int ui_out_end(struct ui_out *o, bool ok);

#endif
