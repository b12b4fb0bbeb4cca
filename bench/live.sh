#!/bin/sh
# live.sh NFSCOPE PCAP - the highest rate at which nfscope's live readers
# (`report -i`, `record -i`, `top -i -w`) take a replayed capture with no
# kernel drop, next to the rate tcpreplay itself reaches (issue 18).
#
# Two network namespaces of its own (nflive-t-PID, nflive-r-PID) joined by
# a veth pair; in the first, tcpreplay sends PCAP (whole frames: an nfsgen
# capture, or the lab mix) in a loop for LIVE_SECONDS (5) per step, at each
# rate of LIVE_RATES (packets/s) and then --topspeed (at most
# LIVE_TOP_PPS, 1000000, a second); in the second, one nfscope reader at a
# time captures it with -B LIVE_BUFFER KiB (the default, 32768, unless
# set; -s LIVE_SNAPLEN if set) and gets SIGINT a second after tcpreplay
# ends.  Per step and reader one row: the rate asked, the rate tcpreplay
# reached (its "Rated" pps), packets the reader received (pcap_stats
# ps_recv) and the kernel dropped (ps_drop, ps_ifdrop), read from report's
# JSON or the run row of the database record and top wrote.  Then, at top
# speed, `report -i` with each buffer of LIVE_BUFFERS ("2048 8192 32768
# 131072") KiB.  Last, per reader: the highest rate with no drop, and
# which side was the limit (the reader: it dropped at a rate tcpreplay
# reached; tcpreplay: no drop even at top speed).  LIVE_READERS (default
# "report record top") names the readers stepped.  First, the offline
# throughput of `report -r PCAP` (packets/s, wall time), the figure the
# live rates compare with.
#
# Fanout (issue 34): then, for each W of LIVE_WORKERS (default "1 2"; ""
# skips it) and each rate, W `report -i --fanout G` workers of one
# PACKET_FANOUT group share the traffic (by host pair: capture/fanout.c).
# One row per step: the rate asked and reached, the workers' ps_recv and
# drops summed, each worker's share of the packets, their operations
# summed and their orphan replies (a reply whose call another worker
# took: 0 when the sharding keeps call and reply together).  The
# highest rate with no drop per W closes it.  `top` runs in a
# pseudo-terminal (script(1)), TERM=xterm.  Never asserts a rate: the
# machine's load decides them.  Needs root (namespaces, veth, capture),
# ip, tcpreplay, script, python3; exit 77 without.  Sends nothing outside
# its own namespaces.
set -u
N=$1 PCAP=$2
T=${LIVE_SECONDS:-5}
RATES=${LIVE_RATES:-"5000 10000 20000 50000 100000 200000"}
SNAP=${LIVE_SNAPLEN:+-s $LIVE_SNAPLEN}
BUF=${LIVE_BUFFER:-}
BUFS=${LIVE_BUFFERS-"2048 8192 32768 131072"}
D=${LIVE_DIR:-/tmp/nfscope-live}

[ "$(id -u)" = 0 ] || { echo "live.sh: needs root (namespaces, veth, capture)"; exit 77; }
for t in ip tcpreplay script python3; do
	command -v $t >/dev/null 2>&1 || { echo "live.sh: $t missing"; exit 77; }
done
[ -r "$PCAP" ] || { echo "live.sh: $PCAP: not readable"; exit 1; }
case $N in /*) ;; *) N=$PWD/$N ;; esac
mkdir -p "$D"
TX=nflive-t-$$ RX=nflive-r-$$ IF=live0
NPID=

cleanup() {
	# shellcheck disable=SC2086
	[ -n "$NPID" ] && kill -9 $NPID 2>/dev/null
	ip netns del $TX 2>/dev/null
	ip netns del $RX 2>/dev/null
}
trap cleanup EXIT
trap 'exit 1' INT TERM

ip netns add $TX && ip netns add $RX || exit 1
ip link add lv$$ netns $TX type veth peer name lp$$ netns $RX || exit 1
ip -n $TX link set lv$$ name $IF && ip -n $RX link set lp$$ name $IF || exit 1
ip -n $TX link set $IF up && ip -n $RX link set $IF up || exit 1

# wait until the reader's packet socket is open in $RX (and nfscope said
# it is listening, when its log is its stderr)
wait_socket() {
	k=0
	while [ "$(ip netns exec $RX cat /proc/net/packet | wc -l)" -lt $((${1:-1} + 1)) ]; do
		k=$((k + 1))
		[ $k -lt 200 ] || { echo "live.sh: the reader did not open its capture"; return 1; }
		sleep 0.05
	done
	sleep 0.3
}

# the nfscope process under script(1): its PID (script's descendant)
child_pid() {
	for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
		if [ "$(cat /proc/"$c"/comm 2>/dev/null)" = nfscope ]; then
			echo "$c"
			return
		fi
		child_pid "$c"
	done
}

# replay RATE -> sets $got (tcpreplay's pps)
replay() {
	# --limit, not --duration alone: at top speed tcpreplay checks the
	# duration only between loops of the file; --preload-pcap: the file
	# from memory (tcpreplay is the limit on a small machine)
	if [ "$1" = top ]; then
		speed="--topspeed --limit $((T * ${LIVE_TOP_PPS:-1000000}))"
	else
		speed="--pps $1 --limit $(($1 * T))"
	fi
	# shellcheck disable=SC2086
	ip netns exec $TX tcpreplay -i $IF $speed --preload-pcap --loop 0 --duration "$T" \
		"$PCAP" > "$D/tcpreplay.log" 2>&1
	got=$(awk '/Rated:/ { for (i = 1; i <= NF; i++) if ($i == "pps") print int($(i - 1)) }' \
		"$D/tcpreplay.log" | tail -1)
	got=${got:-0}
}

# counts DB|JSON FILE -> "ps_recv ps_drop ps_ifdrop"
counts() {
	python3 - "$1" "$2" <<'EOF'
import json, sqlite3, sys
kind, path = sys.argv[1], sys.argv[2]
try:
    if kind == 'json':
        c = json.load(open(path))['capture']
        print(c.get('ps_recv', 0), c['ps_drop'], c['ps_ifdrop'])
    else:
        r = sqlite3.connect(path).execute(
            'SELECT ps_recv, ps_drop, ps_ifdrop FROM runs ORDER BY id DESC LIMIT 1').fetchone()
        print(*r)
except Exception as e:
    print('? ? ?', file=sys.stdout)
    print('live.sh: %s: %s' % (path, e), file=sys.stderr)
EOF
}

# step TOOL RATE [BUFFER] -> one row; sets $drops
step() {
	tool=$1 rate=$2 b=${3:-$BUF}
	bopt="${b:+-B $b} $SNAP"
	rm -f "$D/live.db" "$D/live.db-wal" "$D/live.db-shm" "$D/out.json"
	case $tool in
	report)
		# shellcheck disable=SC2086
		ip netns exec $RX "$N" report -i $IF $bopt --json > "$D/out.json" 2> "$D/err.txt" &
		NPID=$! ;;
	record)
		# shellcheck disable=SC2086
		ip netns exec $RX "$N" record -i $IF $bopt -w "$D/live.db" --force --quiet \
			> /dev/null 2> "$D/err.txt" &
		NPID=$! ;;
	top)
		TERM=xterm script -qfc "ip netns exec $RX $N top -i $IF $bopt -w $D/live.db" \
			/dev/null > /dev/null 2> "$D/err.txt" &
		spid=$!
		NPID= ;;
	esac
	wait_socket || return 1
	if [ "$tool" = top ]; then
		NPID=$(child_pid $spid)
	fi
	replay "$rate"
	sleep 1
	kill -INT "$NPID" 2>/dev/null
	wait "${spid:-$NPID}" 2>/dev/null
	[ "$tool" = top ] && { wait $spid 2>/dev/null; spid=; }
	NPID=
	if [ "$tool" = report ]; then c=$(counts json "$D/out.json"); else c=$(counts db "$D/live.db"); fi
	set -- $c
	drops=$2
	[ "$3" != 0 ] && [ "$3" != "?" ] && drops=$(($2 + $3))
	printf "%-7s %8s %9s %8s %11s %10s %10s\n" "$tool" "${b:-default}" "$rate" "$got" "$1" "$2" "$3"
}

# fanout_step W RATE -> one row; sets $drops
fanout_step() {
	w=$1 rate=$2 k=1 pids=
	rm -f "$D"/w*.json
	while [ $k -le "$w" ]; do
		# shellcheck disable=SC2086
		ip netns exec $RX "$N" report -i $IF ${BUF:+-B $BUF} $SNAP --fanout $G --json \
			> "$D/w$k.json" 2> "$D/w$k.err" &
		pids="$pids $!"
		k=$((k + 1))
	done
	NPID=$pids
	wait_socket "$w" || return 1
	replay "$rate"
	sleep 1
	# shellcheck disable=SC2086
	kill -INT $pids 2>/dev/null
	# shellcheck disable=SC2086
	wait $pids 2>/dev/null
	NPID=
	row=$(python3 - "$D" "$w" <<'EOF'
import json, sys
d, w = sys.argv[1], int(sys.argv[2])
recv = drop = ops = orphans = 0
shares = []
for k in range(1, w + 1):
    try:
        j = json.load(open('%s/w%d.json' % (d, k)))
    except Exception as e:
        print('? ? ? ? ?')
        sys.exit(0)
    c = j['capture']
    recv += c.get('ps_recv', 0)
    drop += c['ps_drop'] + c['ps_ifdrop']
    shares.append(c.get('ps_recv', 0))
    ops += j['totals']['ops']
    orphans += j['decode']['orphan_replies']
print(recv, drop, '/'.join('%.0f%%' % (100.0 * x / recv if recv else 0) for x in shares), ops, orphans)
EOF
)
	# shellcheck disable=SC2086
	set -- $row
	drops=$2
	printf "%-7s %9s %8s %11s %10s %11s %9s %8s\n" "$w" "$rate" "$got" "$1" "$2" "$3" "$4" "$5"
}

/usr/bin/time -f "%e" -o "$D/offline.time" "$N" report -r "$PCAP" --json > "$D/offline.json"
set -- "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["capture"]["packets"])' \
	"$D/offline.json")" "$(tail -1 "$D/offline.time")"
echo "# offline: report -r of $PCAP: $1 packets in $2 s wall: $(echo "$1 $2" | awk '{ printf "%.0f", ($2 > 0 ? $1 / $2 : 0) }') packets/s"
echo "# $PCAP onto a veth pair, $T s a step; load: $(cut -d' ' -f1-3 /proc/loadavg)"
# climb NAME LIMIT STEP ARG: STEP ARG RATE at each rate, then one line
# "NAME best-rate-without-drop limit" in $D/best.txt
climb() {
	best=0 limit=$2
	for rate in $RATES top; do
		$3 "$4" "$rate" || exit 1
		if [ "$drops" = 0 ]; then
			[ "$got" -gt "$best" ] && best=$got
			[ "$rate" = top ] && limit=tcpreplay
		fi
	done
	echo "$1 $best $limit" >> "$D/best.txt"
}

printf "%-7s %8s %9s %8s %11s %10s %10s\n" reader "-B KiB" asked tcpreplay ps_recv ps_drop ps_ifdrop
: > "$D/best.txt"
for tool in ${LIVE_READERS-report record top}; do
	climb "$tool" reader step "$tool"
done
echo "# report -i at top speed by capture buffer"
for b in $BUFS; do
	step report top "$b" || exit 1
done
G=$(($$ % 65535 + 1))
if [ -n "${LIVE_WORKERS-1 2}" ]; then
	echo "# report -i --fanout $G: W workers, one PACKET_FANOUT group"
	printf "%-7s %9s %8s %11s %10s %11s %9s %8s\n" workers asked tcpreplay ps_recv drops shares ops orphans
fi
for w in ${LIVE_WORKERS-1 2}; do
	climb "fanout-$w" workers fanout_step "$w"
done
echo "# highest rate with no kernel drop (packets/s) and the limit"
while read -r tool best limit; do
	printf "%-9s %9s  limit: %s\n" "$tool" "$best" "$limit"
done < "$D/best.txt"
exit 0
