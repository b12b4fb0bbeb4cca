#!/bin/sh
# make_demo.sh - regenerate pcaps/lab-demo.pcap and pcaps/lab-demo.truth.json:
# one lab run (tests/lab/lab.py, scenario DEMO: UDP with 2% loss each way,
# a mixed workload and a COMMIT storm, snaplen 256).  Needs root.
#   tests/lab/make_demo.sh [BUILDDIR]      (default: build)
set -eu
cd "$(dirname "$0")/../.."
b=${1:-build}
ninja -C "$b" ui/nfscope tests/lab/tapfwd tests/lab/labclient >/dev/null
work=$(mktemp -d /tmp/nfscope-demo.XXXXXX)
trap 'rm -rf "$work"' EXIT
python3 tests/lab/lab.py --nfscope "$b/ui/nfscope" --tapfwd "$b/tests/lab/tapfwd" \
	--labclient "$b/tests/lab/labclient" --work "$work" --demo pcaps
ls -l pcaps/lab-demo.pcap pcaps/lab-demo.truth.json
