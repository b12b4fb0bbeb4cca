#!/bin/sh
# soak.sh NFSGEN NFSCOPE - `nfscope record -i` on a veth pair for a long
# time, its memory sampled every second, then `kill -9` and a check that
# every committed batch is intact.
#
# Two network namespaces of its own (nfsoak-t-PID, nfsoak-r-PID) joined by
# a veth pair; tcpreplay sends, in the first, a deterministic nfsgen capture
# (metadata mix, 16 clients and 2 servers over UDP and TCP, SOAK_PASS
# seconds of traffic at SOAK_PPS) in a loop; `nfscope record -i` captures
# it in the second.  The pass (150 s) is longer than the decoder's and the
# analysis's xid lifetime (120 s), so a pass's xids are new calls, not
# retransmissions of the last pass's; each TCP connection opens again with
# its SYN.  The population is steady, as on a real mirror port.  With
# SOAK_UNIQUE=1 tcpreplay's --unique-ip gives each pass other addresses:
# every pass new clients, servers and flows, whose per-address rows (the
# report's per-client and per-pair figures, up to their budgets of 16384
# rows, 4096 pairs) keep growing for as long as the run lasts.  VmRSS of the nfscope process is read from
# /proc/PID/status every second, with RssAnon (the process's own
# allocations: heap, malloc arenas, sqlite's page cache; not the packet
# ring, which the kernel fills and which joins VmRSS block by block as the
# reader first touches it, up to its -B size, slowly at a low rate).  After SOAK_SECONDS record is killed with
# SIGKILL while traffic still flows (a batch is open), and check_soak.py
# checks the database: PRAGMA integrity_check, the run readable and left
# 'recording', runs.ops_stored equal to the rows in ops (one transaction),
# ops ids without holes, at least what the last "batch committed" log line
# said, no interval cell counting an op that is not stored, every stored op
# in a written cell unless its cell was still open at the kill, `nfscope
# report DB` (text and JSON) working and counting the stored ops; and RSS
# flat after the warm-up: the maximum of RssAnon less sqlite's heap (from
# record's commit log lines) after SOAK_WARMUP seconds at most
# SOAK_MARGIN_KB above its maximum in the warm-up's second half
# (VmRSS is printed beside it).  Kernel
# drops (ps_drop, ps_ifdrop, table drops) and tcpreplay's counts are
# printed.  Exit 0 when every check holds, 1 otherwise, 77 without root or
# tcpreplay.
#
# SOAK_SECONDS (600), SOAK_PPS (2000), SOAK_PASS (150), SOAK_UNIQUE (0),
# SOAK_WARMUP (min(240, SOAK_SECONDS * 2 / 5): a pass, the second pass
# taking over the first's state, and the xid lifetime of 120 s; sqlite's
# page cache, which fills up to cache_size as the file grows, is not part
# of the flat check but held to its bound), SOAK_MARGIN_KB (4096), SOAK_DIR
# (/tmp/nfscope-soak: the capture, the database, rss.tsv and the logs stay
# there).  Needs root (namespaces, veth, packet sockets), ip, tcpreplay,
# python3.  Sends nothing outside its own namespaces.
set -u
G=$1 N=$2
S=${SOAK_SECONDS:-600}
R=${SOAK_PPS:-2000}
PASS=${SOAK_PASS:-150}
UNIQUE=
[ "${SOAK_UNIQUE:-0}" = 1 ] && UNIQUE=--unique-ip
W=${SOAK_WARMUP:-$((S * 2 / 5 < 240 ? S * 2 / 5 : 240))}
M=${SOAK_MARGIN_KB:-4096}
D=${SOAK_DIR:-/tmp/nfscope-soak}
HERE=$(cd "$(dirname "$0")" && pwd)

[ "$(id -u)" = 0 ] || { echo "soak.sh: needs root (namespaces, veth, capture)"; exit 77; }
for t in ip tcpreplay python3; do
	command -v $t >/dev/null 2>&1 || { echo "soak.sh: $t missing"; exit 77; }
done
mkdir -p "$D"
TX=nfsoak-t-$$ RX=nfsoak-r-$$ IF=soak0
RPID= TPID= SPID=

cleanup() {
	for p in $SPID $TPID $RPID; do kill -9 "$p" 2>/dev/null; done
	ip netns del $TX 2>/dev/null
	ip netns del $RX 2>/dev/null
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# the capture: one pass of SOAK_PASS seconds at SOAK_PPS
P=$((R * PASS))
ARGS="--mix meta --transport mix --count 1000000000 --packets $P --seed 1 --clients 16 --servers 2 --acks 0.1"
if [ ! -s "$D/pass.pcap" ] || [ "$(cat "$D/pass.args" 2>/dev/null)" != "$ARGS" ]; then
	echo "generating $D/pass.pcap: nfsgen $ARGS"
	# shellcheck disable=SC2086
	"$G" -o "$D/pass.pcap" $ARGS || exit 1
	echo "$ARGS" > "$D/pass.args"
fi

ip netns add $TX && ip netns add $RX || exit 1
ip link add sv$$ netns $TX type veth peer name sp$$ netns $RX || exit 1
ip -n $TX link set sv$$ name $IF && ip -n $RX link set sp$$ name $IF || exit 1
ip -n $TX link set $IF up && ip -n $RX link set $IF up || exit 1

rm -f "$D/soak.db" "$D/soak.db-wal" "$D/soak.db-shm"
# ip netns exec execs the command: $RPID is nfscope's own PID
ip netns exec $RX "$N" record -i $IF -w "$D/soak.db" --ops all \
	2> "$D/record.log" &
RPID=$!
k=0	# capture open: a packet socket in its namespace
while [ "$(ip netns exec $RX cat /proc/net/packet | wc -l)" -lt 2 ]; do
	k=$((k + 1))
	[ $k -lt 100 ] && kill -0 $RPID 2>/dev/null || {
		echo "record did not start:"; cat "$D/record.log"; exit 1; }
	sleep 0.1
done
echo "record -i $IF: pid $RPID ($(cat /proc/$RPID/comm))"

(	t0=$(date +%s)
	while [ -r /proc/$RPID/status ]; do
		kb=$(awk '/^VmRSS/ { r = $2 } /^RssAnon/ { a = $2 }
			END { if (r != "") print r, a }' /proc/$RPID/status 2>/dev/null)
		# sqlite's heap (kB) as of the last commit logged
		sq=$(grep -o 'sqlite heap [0-9]*' "$D/record.log" 2>/dev/null |
			tail -1 | awk '{ print int($3 / 1024) }')
		[ -n "$kb" ] && echo "$(($(date +%s) - t0)) $kb ${sq:-0}"
		sleep 1
	done > "$D/rss.tsv"
) &
SPID=$!

# replay beyond the kill: the kill lands on an open batch
# shellcheck disable=SC2086
ip netns exec $TX tcpreplay -i $IF --pps "$R" --loop 0 $UNIQUE \
	--duration $((S + 15)) "$D/pass.pcap" > "$D/tcpreplay.log" 2>&1 &
TPID=$!
echo "tcpreplay: $R packets/s, a pass of $PASS s looped${UNIQUE:+ ($UNIQUE)}, $S s"
sleep "$S"
cat /proc/$RPID/smaps > "$D/smaps.txt" 2>/dev/null	# where the RSS is
kill -9 $RPID
wait $RPID 2>/dev/null
echo "record killed (SIGKILL) after $S s"
kill -INT $TPID 2>/dev/null	# tcpreplay prints its statistics
wait $TPID 2>/dev/null
TPID=
kill $SPID 2>/dev/null
wait $SPID 2>/dev/null
SPID=
RPID=

python3 "$HERE/check_soak.py" --nfscope "$N" --dir "$D" --warmup "$W" \
	--margin-kb "$M"
