#!/usr/bin/env bash
# compare_outputs.sh - run two nfscope binaries over every capture the
# project knows and diff every output, so a refactor can show it changed
# nothing (and a feature can show exactly what it changed).
#
#   bench/compare_outputs.sh OLD_NFSCOPE NEW_NFSCOPE NFSGEN [OUTDIR]
#
# Captures: pcaps/*.pcap, pcaps/golden/*, ../shared/pcaps/public/* (the
# .bz2 ones unpacked once into $CMP_CACHE), and generator captures (one per
# scripted scenario and three feature mixes, made with NFSGEN, fixed seeds).
# Outputs per capture and binary: report text, --json, --by
# client|server|export|file, every --csv table, --interval 1 (text); dump
# text and --json; record into a database, then every table and view
# dumped row by row (the runs row without its wall-clock columns
# `started`/`ended`; the op_* tables of schema 5 through their view ops);
# --every 1 (text) and every --csv table (with shortio and vantage); the
# report of that database (text, --json, --by client, --csv ops, --interval
# 1), and partial reports of runs recorded with --ops slow:5 and --ops none
# (text, and the refusal of --json).
# Prints one line per difference and a summary; exits 1 if any output
# differs (OUTDIR keeps both sides for reading: OUTDIR/old, OUTDIR/new).
# CMP_QUICK=1 skips the two large nfstrace captures and dump (minutes less).
set -uo pipefail
[ $# -ge 3 ] || { echo "usage: $0 OLD_NFSCOPE NEW_NFSCOPE NFSGEN [OUTDIR]" >&2; exit 2; }
OLD=$(realpath "$1"); NEW=$(realpath "$2"); GEN=$(realpath "$3")
OUT=${4:-$(mktemp -d /tmp/nfscope-cmp.XXXXXX)}
CACHE=${CMP_CACHE:-/tmp/nfscope-cmp-cache}
cd "$(dirname "$0")/.."
SHARED=../shared/pcaps/public
mkdir -p "$OUT/old" "$OUT/new" "$CACHE"
OUT=$(cd "$OUT" && pwd)	# absolute: database reports run in its folders

caps=()
for f in pcaps/*.pcap pcaps/golden/*.pcap "$SHARED"/*.pcap "$SHARED"/*.pcapng; do
	[ -f "$f" ] && caps+=("$f")
done
for z in "$SHARED"/*.pcap.bz2; do
	[ -f "$z" ] || continue
	[ "${CMP_QUICK:-0}" = 1 ] && continue
	u=$CACHE/$(basename "${z%.bz2}")
	[ -s "$u" ] || bzcat "$z" > "$u"
	caps+=("$u")
done
# generator captures: every scripted scenario, and feature mixes
for s in mixed sizes writes getattr-storm access-storm lookup-storm commit-storm noent errors; do
	g=$CACHE/gen-$s.pcap
	[ -s "$g" ] || "$GEN" -o "$g" --scenario "$s" --seed 7 >/dev/null
	caps+=("$g")
done
gen_mix() {	# name args...
	local g=$CACHE/gen-$1.pcap; shift
	[ -s "$g" ] || "$GEN" -o "$g" "$@" >/dev/null
	caps+=("$g")
}
gen_mix all-features --all-features --count 20000 --seed 3 --transport mix --clients 8
gen_mix snap256 --all-features --count 10000 --seed 4 --transport tcp --snaplen 256 --mix data --size 32768
gen_mix nfs2-udp --nfs2 --mount --portmap --nlm --count 5000 --seed 5 --transport udp

# run NAME BIN OUTFILE args...: stdout and the exit status, stderr apart
run() {
	local bin=$1 out=$2; shift 2
	"$bin" "$@" > "$out" 2> "$out.err"
	echo "exit $?" >> "$out.err"
}

dump_db() {	# dump_db DB OUT: every documented table and view (ops: a view over
	# op_rows and its key tables since schema 5), rows in a stable order
	python3 - "$1" > "$2" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.text_factory = lambda b: b.decode('utf-8', 'backslashreplace')
for (t,) in c.execute("select name from sqlite_master where type in ('table', 'view') "
                      "and name not like 'op\\_%' escape '\\' order by name"):
    cols = [r[1] for r in c.execute('pragma table_info("%s")' % t)]
    keep = [x for x in cols if not (t == 'runs' and x in ('started', 'ended'))]
    print('## %s (%s)' % (t, ','.join(keep)))
    q = 'select %s from "%s" order by %s' % (','.join('"%s"' % x for x in keep), t,
                                            ','.join('"%s"' % x for x in keep))
    for row in c.execute(q):
        print('|'.join('x' + v.hex() if isinstance(v, bytes) else str(v) for v in row))
PY
}

variants() {	# variants BIN DIR CAPTURE
	local bin=$1 d=$2 c=$3
	run "$bin" "$d/report.txt" report -r "$c"
	run "$bin" "$d/report.json" report -r "$c" --json
	for g in client server export file; do
		run "$bin" "$d/by-$g.txt" report -r "$c" --by "$g"
	done
	for t in ops sizes writes shortio retrans vantage findings servers intervals drops; do
		run "$bin" "$d/csv-$t.csv" report -r "$c" --csv "$t" --interval 1
	done
	run "$bin" "$d/interval.txt" report -r "$c" --interval 1
	run "$bin" "$d/every.txt" report -r "$c" --every 1
	if [ "${CMP_QUICK:-0}" != 1 ]; then
		run "$bin" "$d/dump.txt" dump -r "$c"
		run "$bin" "$d/dump.json" dump -r "$c" --json
	fi
	rm -f "$d/rec.db" "$d/rec.db-wal" "$d/rec.db-shm"
	run "$bin" "$d/record.txt" record -r "$c" -w "$d/rec.db" --quiet
	if [ -f "$d/rec.db" ]; then
		dump_db "$d/rec.db" "$d/record.rows"
		# in $d, so messages name the database the same on both sides
		(cd "$d" && run "$bin" db-report.txt report rec.db &&
		 run "$bin" db-report.json report rec.db --json &&
		 run "$bin" db-by-client.txt report rec.db --by client &&
		 run "$bin" db-csv-ops.csv report rec.db --csv ops &&
		 run "$bin" db-interval.txt report rec.db --interval 1)
	fi
	rm -f "$d/rec.db" "$d/rec.db-wal" "$d/rec.db-shm"
	for o in slow:5 none; do	# partial reports: the aggregate tables
		run "$bin" "$d/rec-$o.txt" record -r "$c" -w "$d/rec.db" --quiet --ops "$o"
		(cd "$d" && run "$bin" "db-$o.txt" report rec.db &&
		 run "$bin" "db-$o.json" report rec.db --json)
		rm -f "$d/rec.db" "$d/rec.db-wal" "$d/rec.db-shm"
	done
}

n=0 diffs=0
for c in "${caps[@]}"; do
	name=$(basename "$c")
	for side in old new; do
		mkdir -p "$OUT/$side/$name"
		bin=$OLD; [ $side = new ] && bin=$NEW
		variants "$bin" "$OUT/$side/$name" "$c"
	done
	for f in "$OUT/old/$name"/*; do
		b=$(basename "$f")
		n=$((n + 1))
		# the capture's path appears in outputs; both sides read the same one
		if ! cmp -s "$f" "$OUT/new/$name/$b"; then
			diffs=$((diffs + 1))
			echo "DIFF $name/$b ($(diff "$f" "$OUT/new/$name/$b" | grep -c '^[<>]') lines)"
		fi
	done
done
echo "compare_outputs: ${#caps[@]} captures, $n outputs compared, $diffs differ (both sides in $OUT)"
[ "$diffs" -eq 0 ]
