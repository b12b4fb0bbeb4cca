#!/bin/sh
# Every full-size capture (bundled, golden, public) must come out of
# `report --json` with no hidden-record warning and the same `complete` as
# before.  usage: check_complete.sh NFSCOPE SRCDIR
# Prints one line per capture: complete, hidden spans.  $PYTHON: the
# Python to use (meson's, tests/meson.build), else python3.
nfscope=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for f in "$src"/pcaps/*.pcap "$src"/pcaps/golden/*.pcap \
	 "$src"/../shared/pcaps/public/*.pcap* ; do
	[ -f "$f" ] || continue
	case $f in
	*.bz2) bzip2 -dc "$f" > "$tmp/c.pcap"; in=$tmp/c.pcap ;;
	*) in=$f ;;
	esac
	"$nfscope" report --json -r "$in" > "$tmp/r.json" 2>/dev/null
	line=$("${PYTHON:-python3}" -c '
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception:
    print("unreadable"); sys.exit()
h = d["incomplete"].get("hidden")
print("complete=%s hidden=%s" % (d["complete"],
      h["records_known"] if h else 0))
' "$tmp/r.json")
	echo "$(basename "$f"): $line"
	case $line in *hidden=0*) ;; *) fail=1 ;; esac
done
exit $fail
