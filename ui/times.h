/*
 * times.h - capture times as people read them (typed for --from/--to,
 * they are parsed by analyze/filter.h).
 *
 * Text outputs print a packet time as tcpdump -tttt does, in local time
 * (the TZ environment variable, as tcpdump and tshark): "2026-12-01
 * 10:20:00.123456"; --utc prints UTC, --epoch seconds since 1970 as
 * before ("1796033994.123456", tcpdump -tt).  Headers say which zone
 * (ui_time_zone).  JSON and CSV keep epoch seconds; JSON adds ISO 8601
 * UTC strings (ui_time_iso).  Times are clamped by the capture layer to
 * 1823..2116, which every function here handles.  No state: the mode is
 * the caller's (struct ui_src_opts.time_mode).
 */
#ifndef NFSCOPE_TIMES_H
#define NFSCOPE_TIMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ui_time_mode { UI_TIME_LOCAL, UI_TIME_UTC, UI_TIME_EPOCH };

/* ns as "YYYY-MM-DD HH:MM:SS.ffffff" (digits of fraction 0..9) in the
 * mode's zone, or epoch "SEC.ffffff"; returns buf. */
const char *ui_time_str(int64_t ns, enum ui_time_mode m, int digits,
			char *buf, size_t n);
/* s with the capture times analyze/ writes in finding evidence
 * ("from 1796033994.319500 to ...": 9-10 digits, '.', 6 digits) in the
 * mode (as is for epoch); into buf (n bytes, cut to fit); returns buf. */
const char *ui_time_text(const char *s, enum ui_time_mode m, char *buf,
			 size_t n);
/* The zone of the mode at time ns, for a header: "local time, CET,
 * UTC+01:00", "UTC" or "seconds since 1970-01-01 UTC"; returns buf. */
const char *ui_time_zone(int64_t ns, enum ui_time_mode m, char *buf,
			 size_t n);
/* "2026-12-01T10:20:00.123456789Z" (ISO 8601, UTC, nanoseconds). */
const char *ui_time_iso(int64_t ns, char *buf, size_t n);

#endif
