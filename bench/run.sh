#!/bin/sh
# run.sh NFSGEN NFSCOPE PCAP_FLOOR [LABCLIENT] - nfscope report against a
# bare libpcap loop, tshark rpc,srt, nfstrace (breakdown) and tcpdump, on
# the same files.
#
# Files (deterministic, nfsgen --seed 1, regenerated only if missing):
#   meta: metadata-heavy mix of small NFSv3 ops (no READ/WRITE/COMMIT), UDP+TCP
#   data: READ/WRITE/COMMIT of 32 KiB (UDP, 23 IP fragments each) and 1 MiB (TCP)
# each BENCH_PACKETS frames (default 5,000,000), in BENCH_DIR (default
# /tmp/nfscope-bench), plus a meta file of a fifth of the length to show
# nfscope's peak RSS does not grow with the capture's length, and UDP-only
# versions of both mixes (a fifth of the length) where nfstrace, which aborts
# on the TCP half of the others, gets a time.  Prints, per file and tool:
# seconds, packets/s, peak RSS (/usr/bin/time -v) and the time as a ratio to
# the floor.  Row floor-1M is the floor with a 1 MiB stdio buffer (libpcap's
# pcap_open_offline keeps stdio's 4 KiB).  Then, for meta and data, row
# pairs: BENCH_PAIRS (default 5) runs of the floor and nfscope report back to
# back, and the median of the pairs' ratios: on a shared host whose speed
# drifts by tens of percent from minute to minute, the ratio of two runs a
# second apart is the figure to trust, not one of the single runs above.
# With LABCLIENT (tests/lab/labclient, root): also the lab's real mix
# (captures.sh labmix: bench/labmix.py), whole frames and its -s 256 twin,
# rows labmix and labmix-256.  BENCH_ONLY_PAIRS=1: only the pairs rows
# (and the floor's packet count), one per file: the README's table.
# BENCH_FILES (names from the list above, default all): only those files
# are made and measured (BENCH_FILES="labmix labmix-256": the real mix
# alone, no 5-million-packet generator files).  Every pairs row is
# preceded by its pairs, one line each (floor, report, ratio; and the
# ratio of their CPU times, user + system, all threads: what a loaded
# host still measures fairly).
# Never asserts speed.
set -u
G=$1 N=$2 F=$3 LABCLIENT=${4:-}
T=/usr/bin/time
[ -x "$T" ] || { echo "run.sh: /usr/bin/time missing (apt-get install time)"; exit 77; }

if [ "${BENCH_ONLY_PAIRS:-0}" != 1 ] && ! command -v nfstrace >/dev/null 2>&1; then
	echo "nfstrace missing: trying apt-get install -y nfstrace"
	if [ "$(id -u)" = 0 ] && DEBIAN_FRONTEND=noninteractive apt-get install -y nfstrace >/dev/null 2>&1; then
		echo "nfstrace installed"
	else
		echo "nfstrace could not be installed: its row is skipped"
	fi
fi
NFSTRACE_MOD=/usr/lib/nfstrace/libbreakdown.so

. "$(dirname "$0")/captures.sh"
[ "${BENCH_ONLY_PAIRS:-0}" = 1 ] || {
wanted meta-short && gen meta-short --mix meta --transport mix --count 1000000000 --packets $((P / 5)) --seed 1 --clients 64 --servers 4 --acks 0.1
# UDP-only versions of both mixes (a fifth of the length), for nfstrace:
# Debian's 0.4.3 aborts on the TCP half of the files above (an assertion in
# its TCP record reassembly, filtratorimpl.h:298), so it gets no time there
wanted meta-udp && gen meta-udp --mix meta --transport udp --count 1000000000 --packets $((P / 5)) --seed 1 --clients 64 --servers 4 --acks 0.1
wanted data-udp && gen data-udp --mix data --transport udp --size 32768 --count 1000000000 --packets $((P / 5)) --seed 1 --clients 16 --servers 4 --acks 0.1
true
}
{ wanted labmix || wanted labmix-256; } && labmix

# measure NAME FILE cmd... -> prints one row, sets $secs
measure() {
	name=$1 file=$2; shift 2
	# in $D: nfstrace writes its breakdown files into the working directory
	(cd "$D" && "$T" -v -o "$D/time.txt" "$@" > "$D/out.txt" 2> "$D/err.txt")
	rc=$?
	secs=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, a, ":"); s = 0;
		for (i = 1; i <= n; i++) s = s * 60 + a[i]; print s }' "$D/time.txt")
	rss=$(awk -F': ' '/Maximum resident/ { printf "%.1f", $2 / 1024 }' "$D/time.txt")
	printf "%-10s %-11s %9.2f %12.0f %9s %8.2f%s\n" "$file" "$name" "$secs" \
		"$(echo "$pkts $secs" | awk '{ print ($2 > 0 ? $1 / $2 : 0) }')" "$rss" \
		"$(echo "$secs $floor" | awk '{ print ($2 > 0 ? $1 / $2 : 1) }')" \
		"$([ $rc = 0 ] || echo "  (exit $rc: $(head -c 120 "$D/err.txt" | tr '\n' ' '))")"
}

# pairs FILE PCAP -> one row: BENCH_PAIRS (floor, nfscope report) pairs
# back to back; medians of the floor's and nfscope's times, and the median,
# lowest and highest of the pairs' ratios
pairs() {
	file=$1 pcap=$2 k=0
	: > "$D/pairs.txt"
	while [ $k -lt "${BENCH_PAIRS:-5}" ]; do
		"$T" -f "%e %U %S" -o "$D/t-floor.txt" "$F" "$pcap" > /dev/null 2>&1
		"$T" -f "%e %U %S" -o "$D/t-nfscope.txt" "$N" report -r "$pcap" > /dev/null 2>&1
		echo "$(tail -1 "$D/t-floor.txt") $(tail -1 "$D/t-nfscope.txt")" >> "$D/pairs.txt"
		k=$((k + 1))
	done
	awk -v file="$file" '
		function med(a, n,   i, j, t) {
			for (i = 2; i <= n; i++)
				for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
					t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
				}
			return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
		}
		{
			n++; fl[n] = $1; nf[n] = $4; r[n] = $1 > 0 ? $4 / $1 : 0
			c = $2 + $3 > 0 ? ($5 + $6) / ($2 + $3) : 0; cr[n] = c
			printf "%-10s %-11s floor %.2f s (CPU %.2f), nfscope %.2f s (CPU %.2f): x floor %.2f, CPU x %.2f\n",
				file, "pair " n, $1, $2 + $3, $4, $5 + $6, r[n], c
		}
		END {
			mf = med(fl, n); mn = med(nf, n); mr = med(r, n); mc = med(cr, n)
			printf "%-10s %-11s floor %.2f s, nfscope %.2f s (medians of %d pairs); x floor: median %.2f, pairs %.2f to %.2f; CPU x floor: median %.2f (%.2f to %.2f)\n",
				file, "pairs", mf, mn, n, mr, r[1], r[n], mc, cr[1], cr[n]
		}' "$D/pairs.txt"
}

case $G in /*) ;; *) G=$PWD/$G ;; esac
case $N in /*) ;; *) N=$PWD/$N ;; esac
case $F in /*) ;; *) F=$PWD/$F ;; esac
printf "%-10s %-11s %9s %12s %9s %8s\n" file tool seconds packets/s "RSS MB" "x floor"
for f in meta data meta-short meta-udp data-udp labmix labmix-256; do
	wanted "$f" || continue
	pcap=$D/$f.pcap
	case $f in labmix*) [ -s "$pcap" ] || continue ;; esac
	if [ "${BENCH_ONLY_PAIRS:-0}" = 1 ]; then
		case $f in meta-short|meta-udp|data-udp) continue ;; esac
	fi
	"$F" "$pcap" > "$D/floor.txt" || exit 1
	pkts=$(awk '{ print $1 }' "$D/floor.txt")
	echo "# $f: $pkts packets, $(du -m "$pcap" | cut -f1) MB (page cache warmed by a first read)"
	if [ "${BENCH_ONLY_PAIRS:-0}" = 1 ]; then
		"$T" -v -o "$D/time.txt" "$N" report -r "$pcap" > /dev/null 2>&1
		echo "$f nfscope peak RSS $(awk -F': ' '/Maximum resident/ { printf "%.1f", $2 / 1024 }' "$D/time.txt") MB"
		pairs "$f" "$pcap"
		continue
	fi
	floor=0
	measure floor "$f" "$F" "$pcap"
	floor=$secs
	# the same loop with a 1 MiB stdio buffer
	# (ratios stay against libpcap's defaults, the floor above)
	measure floor-1M "$f" "$F" -b "$pcap"
	measure nfscope "$f" "$N" report -r "$pcap"
	case $f in meta-short|labmix-256) continue ;; esac
	if [ "$f" = meta-udp ] || [ "$f" = data-udp ]; then
		if command -v nfstrace >/dev/null 2>&1 && [ -f "$NFSTRACE_MOD" ]; then
			measure nfstrace "$f" nfstrace -m stat -I "$pcap" -a "$NFSTRACE_MOD" --log "$D/nfstrace.log"
		fi
		continue
	fi
	measure tshark "$f" tshark -n -q -r "$pcap" -z rpc,srt,100003,3
	if command -v nfstrace >/dev/null 2>&1 && [ -f "$NFSTRACE_MOD" ]; then
		measure nfstrace "$f" nfstrace -m stat -I "$pcap" -a "$NFSTRACE_MOD" --log "$D/nfstrace.log"
	fi
	measure tcpdump "$f" tcpdump -nr "$pcap"
	pairs "$f" "$pcap"
done
exit 0
