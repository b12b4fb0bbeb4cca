/*
 * units.h - time units, named once (Linux's names: NSEC_PER_SEC ...).
 *
 * Contract: each is the plain integer literal it names (type int, as
 * 1000000000 written out is), so an expression that used the literal keeps
 * its type and value; cast where a wider type is meant.  Capture times
 * are int64_t nanoseconds throughout nfscope.
 */
#ifndef NFSCOPE_BASE_UNITS_H
#define NFSCOPE_BASE_UNITS_H

#define NSEC_PER_SEC 1000000000
#define NSEC_PER_MSEC 1000000
#define NSEC_PER_USEC 1000
#define USEC_PER_SEC 1000000
#define MSEC_PER_SEC 1000

#endif
