#!/bin/sh
# live_snaplen.sh NFSCOPE PCAP [nfscope options...] - what a live capture on
# a host sees of TCP traffic (README, "Live defaults, measured").
#
# The TCP payloads of PCAP (Ethernet, IPv4, e.g. written by tests/gen's
# nfsgen) are played over real TCP connections to 127.0.0.1:2049 in a
# network namespace of their own, so the kernel segments them as it does
# on a host (up to 64 KiB per segment on lo); `nfscope report -i lo` with
# the options given reads them live.  Prints operations seen and answered
# next to what `report -r PCAP` finds, and the kernel's drops.  Needs root.
#
#   scripts/live_snaplen.sh build/ui/nfscope x.pcap -s 512
set -eu
nfscope=$1 pcap=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
ns=nfscope-snaplen-$$
out=$(mktemp)
ip netns add "$ns"
trap 'ip netns del "$ns"; rm -f "$out"' EXIT
ip netns exec "$ns" ip link set lo up
ip netns exec "$ns" "$nfscope" report --json -i lo "$@" >"$out" &
pid=$!
sleep 1.5
ip netns exec "$ns" python3 "$here/../tests/live/live_tcp.py" --play "$pcap" 0
sleep 1.5
kill -INT "$pid"
wait "$pid"
"$nfscope" report --json -r "$pcap" | python3 -c '
import json, sys
ref = json.load(sys.stdin)["totals"]
r = json.load(open(sys.argv[1]))
t, c = r["totals"], r["capture"]
print("live %s: %d ops, %d answered; file: %d ops, %d answered; "
      "kernel drops %d, interface drops %d" % (" ".join(sys.argv[2:]) or "(defaults)",
      t["ops"], t["answered"], ref["ops"], ref["answered"], c["ps_drop"], c["ps_ifdrop"]))
' "$out" "$@"
