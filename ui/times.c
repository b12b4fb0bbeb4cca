/* times.c - capture times printed for people; see times.h. */
#define _GNU_SOURCE		/* timegm, tm_gmtoff, tm_zone */
#include "ui/times.h"
#include "base/units.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NS ((long long)NSEC_PER_SEC)

/* Seconds and nanoseconds of ns, the nanoseconds in 0..NS-1. */
static int64_t split(int64_t ns, int64_t *frac)
{
	int64_t sec = ns / NS;

	*frac = ns % NS;
	if (*frac < 0) {
		*frac += NS;
		sec--;
	}
	return sec;
}

static bool to_tm(int64_t sec, enum ui_time_mode m, struct tm *tm)
{
	time_t t = (time_t)sec;

	return m == UI_TIME_UTC ? gmtime_r(&t, tm) != NULL :
				  localtime_r(&t, tm) != NULL;
}

const char *ui_time_str(int64_t ns, enum ui_time_mode m, int digits,
			char *buf, size_t n)
{
	static const int64_t pow10[] = { NS, NS / 10, NS / 100, NS / 1000,
		NS / 10000, NS / 100000, NS / 1000000, NS / 10000000,
		NS / 100000000, 1 };
	int64_t frac, sec = split(ns, &frac);
	struct tm tm;
	size_t k = 0;

	if (digits < 0)
		digits = 0;
	if (digits > 9)
		digits = 9;
	if (m == UI_TIME_EPOCH || !to_tm(sec, m, &tm))
		k = (size_t)snprintf(buf, n, "%lld", (long long)sec);
	else
		k = strftime(buf, n, "%Y-%m-%d %H:%M:%S", &tm);
	if (digits > 0 && k < n)
		snprintf(buf + k, n - k, ".%0*lld", digits,
			 (long long)(frac / pow10[digits]));
	return buf;
}

/* A capture time as analyze/ writes it in evidence at s: 9 or 10 digits
 * of seconds, '.', 6 of microseconds, not inside a longer number; its
 * length, 0 if none, *ns the time. */
static size_t evidence_time(const char *s, const char *start, int64_t *ns)
{
	size_t d = 0, k;
	int64_t sec = 0, us = 0;

	if (s > start && (isdigit((unsigned char)s[-1]) || s[-1] == '.'))
		return 0;
	while (isdigit((unsigned char)s[d]) && d < 11)
		sec = sec * 10 + (s[d++] - '0');
	if (d < 9 || d > 10 || s[d] != '.')
		return 0;
	for (k = 1; k <= 6; k++) {
		if (!isdigit((unsigned char)s[d + k]))
			return 0;
		us = us * 10 + (s[d + k] - '0');
	}
	if (isdigit((unsigned char)s[d + 7]) || s[d + 7] == '.')
		return 0;
	*ns = sec * NS + us * 1000;
	return d + 7;
}

const char *ui_time_text(const char *s, enum ui_time_mode m, char *buf,
			 size_t n)
{
	size_t o = 0;
	const char *p = s;

	if (n == 0)
		return buf;
	while (*p && o + 1 < n) {
		int64_t ns;
		size_t k = m == UI_TIME_EPOCH ? 0 : evidence_time(p, s, &ns);
		char t[48];

		if (k == 0) {
			buf[o++] = *p++;
			continue;
		}
		ui_time_str(ns, m, 6, t, sizeof(t));
		if (o + strlen(t) >= n)
			break;
		memcpy(buf + o, t, strlen(t));
		o += strlen(t);
		p += k;
	}
	buf[o] = '\0';
	return buf;
}

const char *ui_time_zone(int64_t ns, enum ui_time_mode m, char *buf,
			 size_t n)
{
	int64_t frac, sec = split(ns, &frac);
	struct tm tm;
	long off;

	if (m == UI_TIME_UTC)
		snprintf(buf, n, "UTC");
	else if (m == UI_TIME_EPOCH || !to_tm(sec, m, &tm))
		snprintf(buf, n, "seconds since 1970-01-01 UTC");
	else {
		off = tm.tm_gmtoff;
		snprintf(buf, n, "local time, %s, UTC%c%02ld:%02ld",
			 tm.tm_zone ? tm.tm_zone : "?", off < 0 ? '-' : '+',
			 labs(off) / 3600, labs(off) % 3600 / 60);
	}
	return buf;
}

const char *ui_time_iso(int64_t ns, char *buf, size_t n)
{
	int64_t frac, sec = split(ns, &frac);
	struct tm tm;
	size_t k;

	if (!to_tm(sec, UI_TIME_UTC, &tm)) {
		snprintf(buf, n, "?");
		return buf;
	}
	k = strftime(buf, n, "%Y-%m-%dT%H:%M:%S", &tm);
	if (k < n)
		snprintf(buf + k, n - k, ".%09lldZ", (long long)frac);
	return buf;
}
