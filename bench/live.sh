#!/bin/sh
# live.sh NFSCOPE PCAP [BLAST] - the highest rate at which nfscope's live
# readers take a capture sent onto a veth pair with no loss, against the
# offline throughput of the same file (issues 18 and 34).
#
# Two network namespaces of its own (nflive-t-PID, nflive-r-PID) joined
# by a veth pair (MTU 9000); the sender in the first, the readers in the
# second.  The sender is BLAST (bench/blast.c: the file from memory,
# AF_PACKET sendmmsg batches past the qdisc, at a rate or flat out) or,
# without it or with LIVE_SENDER=tcpreplay, tcpreplay --preload-pcap.
#
# In order:
#  1. offline: `report -r PCAP` and `record -r PCAP --ops all` (wall time,
#     packets/s, operations): what the live rates compare with;
#  2. the sender alone, flat out, no reader, unpinned and pinned;
#  3. per reader of LIVE_READERS ("report record": `report -i` and
#     `record -i --ops all`), per W of LIVE_WORKERS ("1 2": one reader,
#     or W of one --fanout group) and per pinning of LIVE_PIN ("no yes":
#     yes = the sender on CPU 0 and every reader on CPU 1, taskset), the
#     rates of LIVE_RATES (packets/s) rising for LIVE_SECONDS (10) each,
#     the file looped, until a step loses a packet, then LIVE_BISECT (2)
#     steps halving the gap to the last clean rate, then one step flat
#     out ("top"): a row each, and the highest rate without loss;
#  4. per reader, workers and pinning: one pass of the file (no loop,
#     so every xid is new) at LIVE_CHECK_RATE (default: half that
#     highest rate), its operations against the offline run's.
#
# A row: the rate asked; what the sender sent and its rate; frames the
# veth dropped on the way (the sending end's tx_dropped); the readers'
# pcap_stats summed: ps_recv (every frame that reached the sockets,
# libpcap's tp_packets of PACKET_STATISTICS) and drops (tp_drops: the
# ring was full, plus ps_ifdrop); "unread" (frames that reached a socket
# but no reader read before it stopped: ps_recv - drops - the packets
# nfscope counted); taken/s (frames read over the sender's seconds);
# operations.
# "lost" = sent - packets read; a step is clean when it is 0.
# s_us: the sender's CPU microseconds a frame (blast's; its softirqs
# hold the kernel's receive path into the readers' rings); r_us: the
# readers' CPU microseconds (user and system, /proc/PID/stat before
# SIGINT) a packet they read.  1e6 / r_us is what one core given to the
# readers alone would take.
# cpu0, cpu1: each CPU's busy share over the step (/proc/stat; anything
# running, the others' work too).  The sender runs at nice
# LIVE_SENDER_NICE (-10) against the readers' 0: the kernel's receive
# path runs in its softirq, and on a real box that path (the NIC's
# interrupt) comes before the readers too.
# Each reader gets SIGINT LIVE_SETTLE (2) s after the sender ends.
# Never asserts a rate: the machine's load decides them.  Needs root
# (namespaces, veth, capture), ip, python3, taskset (pinning), and blast
# or tcpreplay; exit 77 without.  Sends nothing outside its namespaces.
set -u
N=$1 PCAP=$2 BLAST=${3:-}
T=${LIVE_SECONDS:-10}
RATES=${LIVE_RATES:-"50000 100000 150000 200000 250000 300000 400000 500000 700000 1000000"}
READERS=${LIVE_READERS-report record}
WORKERS=${LIVE_WORKERS-1 2}
PINS=${LIVE_PIN-no yes}
SETTLE=${LIVE_SETTLE:-2}
SNICE=${LIVE_SENDER_NICE:--10}
SNAP=${LIVE_SNAPLEN:+-s $LIVE_SNAPLEN}
BUF=${LIVE_BUFFER:+-B $LIVE_BUFFER}
D=${LIVE_DIR:-/tmp/nfscope-live}

[ "$(id -u)" = 0 ] || { echo "live.sh: needs root (namespaces, veth, capture)"; exit 77; }
for t in ip python3 taskset; do
	command -v $t >/dev/null 2>&1 || { echo "live.sh: $t missing"; exit 77; }
done
SENDER=${LIVE_SENDER:-blast}
if [ "$SENDER" = blast ] && ! [ -x "$BLAST" ]; then
	echo "live.sh: no blast given: tcpreplay sends"
	SENDER=tcpreplay
fi
if [ "$SENDER" = tcpreplay ] && ! command -v tcpreplay >/dev/null 2>&1; then
	echo "live.sh: neither blast nor tcpreplay"
	exit 77
fi
[ -r "$PCAP" ] || { echo "live.sh: $PCAP: not readable"; exit 1; }
case $N in /*) ;; *) N=$PWD/$N ;; esac
case $BLAST in /*|'') ;; *) BLAST=$PWD/$BLAST ;; esac
mkdir -p "$D"
TX=nflive-t-$$ RX=nflive-r-$$ IF=live0
G=$(($$ % 65535 + 1))
NPIDS=

cleanup() {
	# shellcheck disable=SC2086
	[ -n "$NPIDS" ] && kill -9 $NPIDS 2>/dev/null
	ip netns del $TX 2>/dev/null
	ip netns del $RX 2>/dev/null
}
trap cleanup EXIT
trap 'exit 1' INT TERM

ip netns add $TX && ip netns add $RX || exit 1
ip link add lv$$ netns $TX type veth peer name lp$$ netns $RX || exit 1
ip -n $TX link set lv$$ name $IF && ip -n $RX link set lp$$ name $IF || exit 1
for ns in $TX $RX; do
	# no frame of the kernel's own (IPv6 neighbour discovery) among the file's
	ip netns exec $ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1 net.ipv6.conf.$IF.disable_ipv6=1
	ip -n $ns link set $IF mtu 9000 up || exit 1
done

# ifstat NS NAME -> the counter NAME of $IF in NS
ifstat() {
	ip netns exec "$1" cat /sys/class/net/$IF/statistics/"$2"
}

# pin CPU -> a taskset prefix when pinned
pin() {
	[ "$PIN" = yes ] && echo "taskset -c $1"
}

# cpus -> "busy total" jiffies of cpu0 and cpu1 (idle and iowait not busy)
cpus() {
	awk '/^cpu[01] / { t = 0; for (i = 2; i <= NF; i++) t += $i;
		printf "%d %d ", t - $5 - $6, t }' /proc/stat
}

# ticks PID... -> the processes' user and system clock ticks summed
ticks() {
	for p in "$@"; do
		cut -d')' -f2 /proc/"$p"/stat 2>/dev/null
	done | awk '{ t += $12 + $13 } END { print t + 0 }'
}
HZ=$(getconf CLK_TCK)

# busy BEFORE AFTER -> "cpu0% cpu1%"
busy() {
	echo "$1 $2" | awk '{ printf "%.0f %.0f", 100 * ($5 - $1) / ($6 - $2 + 1e-9),
		100 * ($7 - $3) / ($8 - $4 + 1e-9) }'
}

# send RATE LOOPS -> $sent, $srate, $secs, $scpu (the sender's frames,
# frames/s, seconds sending, CPU seconds or -)
send() {
	if [ "$SENDER" = blast ]; then
		if [ "$1" = top ]; then r=0; else r=$1; fi
		if [ "$2" = 0 ]; then lim="-t $T"; else lim=; fi
		# shellcheck disable=SC2046,SC2086
		ip netns exec $TX $(pin 0) nice -n "$SNICE" "$BLAST" -q -r $r -n "$2" $lim $IF "$PCAP" \
			> "$D/send.log" 2>&1
		# shellcheck disable=SC2046
		set -- $(awk '/^sent/ { print $2, $9, $7, $(NF - 1) }' "$D/send.log")
	else
		# --limit: at top speed tcpreplay checks --duration only between loops
		if [ "$1" = top ]; then
			speed="--topspeed" lim="--limit $((T * 1000000))"
		else
			speed="--pps $1" lim="--limit $(($1 * T))"
		fi
		if [ "$2" = 0 ]; then lim="$lim --loop 0 --duration $T"; else lim="--loop $2"; fi
		# shellcheck disable=SC2046,SC2086
		ip netns exec $TX $(pin 0) nice -n "$SNICE" tcpreplay -i $IF $speed $lim --preload-pcap \
			"$PCAP" > "$D/send.log" 2>&1
		set -- "$(awk '/Actual:/ { print $2 }' "$D/send.log" | tail -1)" \
			"$(awk '/Rated:/ { for (i = 1; i <= NF; i++) if ($i == "pps") print int($(i - 1)) }' \
				"$D/send.log" | tail -1)" \
			"$(awk '/Actual:/ { print $8 }' "$D/send.log" | tail -1)" -
	fi
	sent=${1:-0} srate=${2:-0} secs=${3:-0} scpu=${4:--}
}

# wait until K packet sockets are open in $RX
wait_sockets() {
	k=0
	while [ "$(ip netns exec $RX cat /proc/net/packet | wc -l)" -lt $(($1 + 1)) ]; do
		k=$((k + 1))
		[ $k -lt 300 ] || { echo "live.sh: the readers did not open their captures"; return 1; }
		sleep 0.05
	done
	sleep 0.5
}

# readers TOOL W: start W readers (one without --fanout), PIDs in $NPIDS
readers() {
	k=1 NPIDS=
	rm -f "$D"/w*.json "$D"/w*.db "$D"/w*.db-wal "$D"/w*.db-shm
	fan=
	[ "$2" -gt 1 ] && fan="--fanout $G"
	while [ $k -le "$2" ]; do
		# shellcheck disable=SC2046,SC2086
		if [ "$1" = report ]; then
			ip netns exec $RX $(pin 1) "$N" report -i $IF $BUF $SNAP $fan --json \
				> "$D/w$k.json" 2> "$D/w$k.err" &
		else
			ip netns exec $RX $(pin 1) "$N" record -i $IF $BUF $SNAP $fan --ops all \
				-w "$D/w$k.db" --force --quiet > /dev/null 2> "$D/w$k.err" &
		fi
		NPIDS="$NPIDS $!"
		k=$((k + 1))
	done
	wait_sockets "$2"
}

# the readers' figures summed: "ps_recv drops packets ops"
figures() {
	python3 - "$D" "$1" "$2" <<'EOF'
import json, sqlite3, sys
d, tool, w = sys.argv[1], sys.argv[2], int(sys.argv[3])
tot = [0, 0, 0, 0]
try:
    for k in range(1, w + 1):
        if tool == 'report':
            j = json.load(open('%s/w%d.json' % (d, k)))
            c = j['capture']
            row = (c['ps_recv'], c['ps_drop'] + c['ps_ifdrop'], c['packets'],
                   j['totals']['ops'])
        else:
            row = sqlite3.connect('%s/w%d.db' % (d, k)).execute(
                'SELECT ps_recv, ps_drop + ps_ifdrop, packets, ops_stored FROM runs '
                'ORDER BY id DESC LIMIT 1').fetchone()
        tot = [a + b for a, b in zip(tot, row)]
    print(*tot)
except Exception as e:
    print('? ? ? ?')
    print('live.sh: %s' % e, file=sys.stderr)
EOF
}

# step TOOL W RATE LOOPS -> one row; $lost (sent - packets read, or
# "?"), $taken (frames read a second), $ops
step() {
	readers "$1" "$2" || return 1
	vd0=$(ifstat $TX tx_dropped)
	c0=$(cpus)
	send "$3" "$4"
	cpu=$(busy "$c0" "$(cpus)")
	vdrop=$(($(ifstat $TX tx_dropped) - vd0))
	sleep "$SETTLE"
	rcpu=$(ticks $NPIDS)
	# shellcheck disable=SC2086
	kill -INT $NPIDS 2>/dev/null
	# shellcheck disable=SC2086
	wait $NPIDS 2>/dev/null
	NPIDS=
	# shellcheck disable=SC2046
	set -- "$1" "$2" "$3" $(figures "$1" "$2")
	recv=$4 drops=$5 pkts=$6 ops=$7
	if [ "$pkts" = "?" ]; then
		lost="?" unread="?" taken=0
	else
		lost=$((sent - pkts)) unread=$((recv - drops - pkts))
		taken=$(echo "$pkts $secs" | awk '{ printf "%.0f", ($2 > 0 ? $1 / $2 : 0) }')
	fi
	us=$(echo "$scpu $sent $rcpu $HZ $pkts" | awk '{
		printf "%s %s", ($1 == "-" || $2 == 0 ? "-" : sprintf("%.2f", 1e6 * $1 / $2)),
			($5 == "?" || $5 == 0 ? "-" : sprintf("%.2f", 1e6 * $3 / $4 / $5)) }')
	# shellcheck disable=SC2086
	printf "%-6s %2s %3s %8s %9s %8s %5s %9s %8s %7s %8s %7s %8s %4s %4s %5s %5s\n" "$1" "$2" "$PIN" \
		"$3" "$sent" "$srate" "$vdrop" "$recv" "$drops" "$unread" "$lost" "$taken" "$ops" $cpu $us
}

header() {
	printf "%-6s %2s %3s %8s %9s %8s %5s %9s %8s %7s %8s %7s %8s %4s %4s %5s %5s\n" reader W pin \
		asked sent sent/s vdrop ps_recv drops unread lost taken/s ops cpu0 cpu1 s_us r_us
}

# offline TOOL -> "packets seconds ops"
offline() {
	rm -f "$D/off.db" "$D/off.db-wal" "$D/off.db-shm"
	if [ "$1" = report ]; then
		/usr/bin/time -f "%e" -o "$D/off.time" "$N" report -r "$PCAP" --json > "$D/off.json"
		python3 -c 'import json, sys; j = json.load(open(sys.argv[1]))
print(j["capture"]["packets"], j["totals"]["ops"], end=" ")' "$D/off.json"
	else
		/usr/bin/time -f "%e" -o "$D/off.time" "$N" record -r "$PCAP" --ops all \
			-w "$D/off.db" --force --quiet > /dev/null
		python3 -c 'import sqlite3, sys
r = sqlite3.connect(sys.argv[1]).execute("SELECT packets, ops_stored FROM runs").fetchone()
print(*r, end=" ")' "$D/off.db"
	fi
	tail -1 "$D/off.time"
}

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs; sender $SENDER"
for tool in $READERS; do
	# shellcheck disable=SC2046
	set -- $(offline "$tool")
	echo "$1 $2" > "$D/offline-$tool.txt"
	echo "# offline: $tool -r: $1 packets, $2 operations in $3 s wall:" \
		"$(echo "$1 $3" | awk '{ printf "%.0f", ($2 > 0 ? $1 / $2 : 0) }') packets/s"
done

echo "# the sender alone, flat out for $T s (no reader)"
for PIN in $PINS; do
	c0=$(cpus)
	send top 0
	echo "pin $PIN: sent $sent frames, $srate frames/s, veth tx_dropped" \
		"$(ifstat $TX tx_dropped), cpu0/cpu1 busy $(busy "$c0" "$(cpus)") %"
done

# clean -> true when the last step lost nothing; keeps the best rate
clean() {
	[ "$lost" = 0 ] && [ "$drops" = 0 ] || return 1
	[ "$srate" -gt "$bestsent" ] && best=$rate bestsent=$srate
	return 0
}

# bisect TOOL W CLEAN LOSSY: LIVE_BISECT (2) steps between the two rates
bisect() {
	lo=$3 hi=$4 bk=0
	while [ $bk -lt "${LIVE_BISECT:-2}" ]; do
		rate=$(((lo + hi) / 2))
		step "$1" "$2" "$rate" 0 || return 1
		if clean; then lo=$rate; else hi=$rate; fi
		bk=$((bk + 1))
	done
}

: > "$D/best.txt"
echo "# rising rates, $T s each, the file looped; flat out last (top)"
header
for tool in $READERS; do
	for w in $WORKERS; do
		for PIN in $PINS; do
			best=0 bestsent=0 lo=0
			for rate in $RATES top; do
				step "$tool" "$w" "$rate" 0 || exit 1
				if clean; then
					lo=$rate
				elif [ "$rate" != top ]; then
					# the first loss ends the climb: halve the gap
					# LIVE_BISECT times, then flat out once more
					bisect "$tool" "$w" "$lo" "$rate" || exit 1
					step "$tool" "$w" top 0 || exit 1
					break
				fi
			done
			echo "$tool $w $PIN $best $bestsent $taken" >> "$D/best.txt"
		done
	done
done

echo "# highest rate without loss (asked, sent/s) and frames taken a second flat out"
while read -r tool w PIN best bestsent top; do
	printf "%-6s W=%s pin %-3s %9s %9s  flat out: %s/s\n" "$tool" "$w" "$PIN" "$best" "$bestsent" "$top"
done < "$D/best.txt"

echo "# one pass (every xid new) at ${LIVE_CHECK_RATE:-half the highest rate}: operations against offline"
header
while read -r tool w PIN best bestsent top; do
	rate=${LIVE_CHECK_RATE:-$((bestsent / 2))}
	[ "$rate" -gt 0 ] || continue
	step "$tool" "$w" "$rate" 1 || exit 1
	read -r opk oops < "$D/offline-$tool.txt"
	if [ "$lost" = 0 ] && [ "$drops" = 0 ]; then
		[ "$ops" = "$oops" ] && v=equal || v=DIFFER
	else
		v="not comparable (lost $lost)"
	fi
	echo "check: $tool W=$w pin $PIN: live $ops operations of $pkts packets," \
		"offline $oops of $opk: $v"
done < "$D/best.txt"
exit 0
