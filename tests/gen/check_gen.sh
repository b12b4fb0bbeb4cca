#!/bin/sh
# check_gen.sh NFSGEN [TSHARK] - validate nfsgen (meson suite 'gen').
#  1. same seed, same bytes (determinism);
#  2. check_streams.py: independent Python reassembly of IP fragments, TCP
#     streams and record marks finds every message of the ground truth;
#  3. check_gen.py: tshark's RPC dissection agrees with the ground truth on
#     (frame, xid, type, program, procedure) for every message.
set -eu
G=$1
TS=${2:-}
[ -n "$TS" ] || TS=$(command -v tshark || true)
HERE=$(cd "$(dirname "$0")" && pwd)
PY=${PYTHON:-python3}	# meson's Python (tests/meson.build)
command -v "$PY" >/dev/null || { echo "python3 missing: skipped"; exit 77; }
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
fail=0

gen() {
	name=$1
	shift
	"$G" -o "$D/$name.pcap" -t "$D/$name.json" "$@" 2>/dev/null
}

# 1. determinism
gen d1 --all-features --count 300 --seed 42
gen d2 --all-features --count 300 --seed 42
cmp -s "$D/d1.pcap" "$D/d2.pcap" && cmp -s "$D/d1.json" "$D/d2.json" ||
	{ echo "FAIL: not deterministic"; fail=1; }

# 2. independent reassembly, every link type, all features but TCP loss
for l in eth vlan qinq sll sll2 raw; do
	gen s_$l --all-features --lost-segments 0 --count 400 --link $l --seed 7
	printf '%s: ' "streams $l"
	"$PY" "$HERE/check_streams.py" "$D/s_$l.pcap" "$D/s_$l.json" || fail=1
done

# 3. tshark
if [ -z "$TS" ]; then
	echo "tshark missing: third-party cross-check skipped"
	exit $fail
fi
DA="-o udp.try_heuristic_first:TRUE -o tcp.try_heuristic_first:TRUE
    -o rpc.defragment_rpc_over_tcp:TRUE -o tcp.reassemble_out_of_order:TRUE
    -d udp.port==20048,rpc -d tcp.port==20048,rpc -d udp.port==4045,rpc
    -d tcp.port==4045,rpc -d udp.port==993,rpc -d tcp.port==993,rpc
    -d udp.port==502,rpc -d tcp.port==502,rpc"
n=0
while read -r args; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	gen t$n $args
	# shellcheck disable=SC2086
	"$TS" -r "$D/t$n.pcap" $DA -T fields -e frame.number -e rpc.xid \
		-e rpc.msgtyp -e rpc.program -e rpc.procedure >"$D/t$n.tsv" 2>/dev/null
	printf '%s: ' "tshark [$args]"
	"$PY" "$HERE/check_gen.py" "$D/t$n.json" "$D/t$n.tsv" || fail=1
done <<'EOS'
--transport udp --ip mix --mix all --link vlan --count 400 --seed 1
--transport udp --ip 6 --mix data --size 32768 --count 100 --seed 2
--transport tcp --ip mix --mix all --multi-record --link sll --count 400 --seed 3
--transport tcp --ip 4 --mix all --multifrag-hdr --count 300 --seed 7
--transport mix --ip mix --mix all --odd-ports --garbage --retrans 0.1 --dup-replies 0.1 --xid-reuse --orphan-replies --count 400 --seed 5
--transport tcp --ip 4 --mix data --size 1048576 --count 20 --link sll2 --seed 6
--transport tcp --ip mix --mix data --reorder 0.3 --multi-record --count 200 --seed 9
--transport udp --ip mix --mix data --lost-frags 0.3 --count 300 --seed 9
EOS
exit $fail
