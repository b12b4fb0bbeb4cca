#!/bin/sh
# bench/versus.sh OLD NEW CAPTURE [nfscope command and args] - two
# nfscope binaries on one capture as interleaved pairs: OLD then NEW back
# to back, PAIRS times (default 5).  Default command: `report`; for
# `record ...` each run writes a new database in a temporary folder
# (give `record --ops all`: -w is added).  Prints each pair (CPU seconds:
# user + system of all threads, wall seconds, peak RSS, minor page
# faults) with its CPU ratio NEW / OLD, then the median and range of the
# ratios and each side's least CPU time.  CPU time, not wall: on a shared,
# loaded host the wall time swings with the others' work far more (see
# doc/bench.md).  Never asserts speed.
set -u
[ $# -ge 3 ] || { echo "usage: $0 OLD NEW CAPTURE [command args...]" >&2; exit 2; }
O=$1 N=$2 F=$3; shift 3
[ $# -gt 0 ] || set -- report
P=${PAIRS:-5}
T=$(mktemp -d "${TMPDIR:-/tmp}/nfscope-versus.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
cat "$F" > /dev/null	# the page cache: time the programs, not the disk
one() {	# one BIN: "cpu wall rss faults"
	rm -f "$T"/db*
	case " $* " in
	*" record "*) /usr/bin/time -f "%U %S %e %M %R" -o "$T/t" \
		"$B" "$@" -w "$T/db" -r "$F" > /dev/null 2> "$T/err" ;;
	*) /usr/bin/time -f "%U %S %e %M %R" -o "$T/t" \
		"$B" "$@" -r "$F" > /dev/null 2> "$T/err" ;;
	esac || { tail -3 "$T/err" >&2; exit 1; }
	awk '{ printf "%.2f %.2f %d %d\n", $1 + $2, $3, $4, $5 }' "$T/t"
}
i=0
while [ $i -lt "$P" ]; do
	B=$O; a=$(one "$@") || exit 1
	B=$N; b=$(one "$@") || exit 1
	echo "$a $b"
	i=$((i + 1))
done | awk '
	{ r = $5 / $1; v[NR] = r
	  if (NR == 1 || $1 < mo) mo = $1; if (NR == 1 || $5 < mn) mn = $5
	  printf "old %.2f s CPU %.2f s wall %d KB %d faults | new %.2f s CPU %.2f s wall %d KB %d faults | new/old %.3f\n", $1, $2, $3, $4, $5, $6, $7, $8, r }
	END {
		for (i = 1; i <= NR; i++) for (j = i + 1; j <= NR; j++)
			if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "CPU new/old: median %.3f (%.3f-%.3f) of %d pairs; least CPU old %.2f s, new %.2f s\n", m, v[1], v[NR], NR, mo, mn
	}'
