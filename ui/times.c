/* times.c - capture times printed and parsed for people; see times.h. */
#define _GNU_SOURCE		/* timegm, tm_gmtoff, tm_zone */
#include "ui/times.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NS 1000000000LL

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

/* ------------------------------------------------------------ parsing -- */

/* lo..hi digits as a number; advances *p. */
static bool digits(const char **p, int lo, int hi, int *v)
{
	int k = 0;

	*v = 0;
	while (k < hi && isdigit((unsigned char)(*p)[k]))
		*v = *v * 10 + ((*p)[k++] - '0');
	*p += k;
	return k >= lo;
}

/* ".fff" (1..9 digits) as ns, or nothing. */
static bool fraction(const char **p, int64_t *ns)
{
	int64_t scale = NS / 10;

	*ns = 0;
	if (**p != '.')
		return true;
	(*p)++;
	if (!isdigit((unsigned char)**p))
		return false;
	for (; isdigit((unsigned char)**p); (*p)++, scale /= 10)
		if (scale == 0)
			return false;
		else
			*ns += (**p - '0') * scale;
	return true;
}

/* "HH:MM[:SS[.frac]]" into tm (hour, minute, second) and *frac. */
static bool clock_time(const char **p, struct tm *tm, int64_t *frac)
{
	*frac = 0;
	tm->tm_sec = 0;
	if (!digits(p, 1, 2, &tm->tm_hour) || *(*p)++ != ':' ||
	    !digits(p, 2, 2, &tm->tm_min))
		return false;
	if (**p == ':' && (++*p, !digits(p, 2, 2, &tm->tm_sec) ||
			   !fraction(p, frac)))
		return false;
	return tm->tm_hour < 24 && tm->tm_min < 60 && tm->tm_sec <= 60;
}

/* "Z", "+HH:MM", "-HHMM" or "+HH" after a time: seconds east of UTC. */
static bool zone(const char **p, bool *have, long *off)
{
	int h, mi = 0, sign;

	*have = false;
	*off = 0;
	if (**p == 'Z' || **p == 'z') {
		(*p)++;
		*have = true;
		return true;
	}
	if (**p != '+' && **p != '-')
		return true;
	sign = *(*p)++ == '-' ? -1 : 1;
	if (!digits(p, 2, 2, &h))
		return false;
	if (**p == ':')
		(*p)++;
	if (isdigit((unsigned char)**p) && !digits(p, 2, 2, &mi))
		return false;
	*have = true;
	*off = sign * (h * 3600L + mi * 60L);
	return h < 24 && mi < 60;
}

/* Epoch seconds of tm: in the zone given (off), or the mode's. */
static int64_t tm_epoch(struct tm *tm, bool have_zone, long off,
			enum ui_time_mode m)
{
	tm->tm_isdst = -1;
	if (have_zone)
		return (int64_t)timegm(tm) - off;
	return m == UI_TIME_UTC ? (int64_t)timegm(tm) : (int64_t)mktime(tm);
}

static int parse_date(const char *s, enum ui_time_mode m,
		      struct ui_time_spec *out)
{
	struct tm tm;
	int64_t frac = 0;
	bool have = false;
	long off = 0;

	memset(&tm, 0, sizeof(tm));
	if (!digits(&s, 4, 4, &tm.tm_year) || *s++ != '-' ||
	    !digits(&s, 2, 2, &tm.tm_mon) || *s++ != '-' ||
	    !digits(&s, 2, 2, &tm.tm_mday))
		return -1;
	if (tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 ||
	    tm.tm_mday > 31 || tm.tm_year < 1900)
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	if ((*s == 'T' || *s == 't' || *s == ' ') &&
	    (++s, !clock_time(&s, &tm, &frac) || !zone(&s, &have, &off)))
		return -1;
	if (*s)
		return -1;
	out->kind = UI_TS_ABS;
	out->ns = tm_epoch(&tm, have, off, m) * NS + frac;
	return 0;
}

int ui_time_parse(const char *s, enum ui_time_mode m,
		  struct ui_time_spec *out)
{
	const char *p = s;
	struct tm tm;
	int64_t frac;
	char *end;
	double v;

	if (strlen(s) > 4 && s[4] == '-')
		return parse_date(s, m, out);
	if (strchr(s, ':')) {
		memset(&tm, 0, sizeof(tm));
		if (!clock_time(&p, &tm, &frac) || *p)
			return -1;
		out->kind = UI_TS_TOD;
		out->ns = ((int64_t)tm.tm_hour * 3600 + tm.tm_min * 60 +
			   tm.tm_sec) * NS + frac;
		return 0;
	}
	out->kind = *p == '+' ? UI_TS_REL : UI_TS_ABS;
	if (*p == '+')
		p++;
	if (!isdigit((unsigned char)*p))
		return -1;
	v = strtod(p, &end);
	if (*end || !(v >= 0 && v < 9.2e9))
		return -1;
	out->ns = (int64_t)llround(v * 1e9);
	return 0;
}

int64_t ui_time_resolve(const struct ui_time_spec *t, int64_t first_ns,
			enum ui_time_mode m)
{
	int64_t frac, sec = split(first_ns, &frac), tod = t->ns / NS;
	struct tm tm;

	if (t->kind == UI_TS_ABS)
		return t->ns;
	if (t->kind == UI_TS_REL)
		return first_ns + t->ns;
	if (!to_tm(sec, m == UI_TIME_UTC ? m : UI_TIME_LOCAL, &tm))
		return first_ns;
	tm.tm_hour = (int)(tod / 3600);
	tm.tm_min = (int)(tod / 60 % 60);
	tm.tm_sec = (int)(tod % 60);
	return tm_epoch(&tm, false, 0, m == UI_TIME_UTC ? m : UI_TIME_LOCAL) *
	       NS + t->ns % NS;
}
