#!/bin/sh
# bench/triple.sh FLOOR OLD NEW CAPTURE - the floor (bench/pcap_floor) and
# two nfscope binaries' `report -r CAPTURE`, back to back, TRIPLES times
# (default 9): each triple's wall seconds, both binaries' ratio to that
# triple's floor and NEW / OLD; then the medians of the three ratios.  The
# floor in the same triple, not a figure of another minute: this shared
# host's speed drifts by half from minute to minute.  Never asserts speed.
set -u
[ $# -eq 4 ] || { echo "usage: $0 FLOOR OLD NEW CAPTURE" >&2; exit 2; }
FL=$1 O=$2 N=$3 F=$4
T=$(mktemp -d "${TMPDIR:-/tmp}/nfscope-triple.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
cat "$F" > /dev/null	# the page cache: time the programs, not the disk
i=0
while [ $i -lt "${TRIPLES:-9}" ]; do
	/usr/bin/time -f %e -o "$T/a" "$FL" "$F" > /dev/null 2>&1 &&
	/usr/bin/time -f %e -o "$T/b" "$O" report -r "$F" > /dev/null 2>&1 &&
	/usr/bin/time -f %e -o "$T/c" "$N" report -r "$F" > /dev/null 2>&1 ||
		{ echo "triple.sh: a run failed" >&2; exit 1; }
	echo "$(tail -1 "$T/a") $(tail -1 "$T/b") $(tail -1 "$T/c")"
	i=$((i + 1))
done | awk '
	function med(v, n,   i, j, t) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
				t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
			}
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	$1 > 0 && $2 > 0 {
		n++; a[n] = $2 / $1; b[n] = $3 / $1; c[n] = $3 / $2
		printf "floor %.2f s, old %.2f s (x floor %.2f), new %.2f s (x floor %.2f), new/old %.3f\n",
			$1, $2, a[n], $3, b[n], c[n]
	}
	END {
		if (n == 0) exit 1
		printf "medians of %d: old x floor %.2f, new x floor %.2f, new/old %.3f\n",
			n, med(a, n), med(b, n), med(c, n)
	}'
