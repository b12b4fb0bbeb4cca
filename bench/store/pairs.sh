#!/bin/sh
# bench/store/pairs.sh NFSCOPE CAPTURE... - issue 18's two store ratios,
# measured as pairs: `report -r X` then `record --ops all -w DB -r X` on
# the same capture back to back, PAIRS times (default 5).  Prints per
# capture the median (and range) of the pairs' wall-time ratios, of their
# CPU-time ratios (user + system, all threads: what a busy shared host
# still measures fairly), and bytes per stored operation (database file
# size / op rows, after the run's final checkpoint) and record's peak
# RSS (the largest of the pairs).  Each pair is printed first, a line
# each: report's and record's wall and CPU seconds and the two ratios.
# Targets (issue 34): wall ratio <= 2, <= 100 bytes per operation.  With SQLITE_CEILING set to
# bench/store/sqlite_ceiling, each pair is followed by sqlite alone
# inserting the pair's op_rows again (same table and settings, nothing but
# bind and step, no nfscope code), timed against that pair's `report`: the
# least an insert thread of these rows can take, as a ratio (column
# "sqlite alone x report").  Never asserts speed.
set -u
N=$1; shift
C=${SQLITE_CEILING:-}
P=${PAIRS:-5}
T=${TMPDIR:-/tmp}/nfscope-pairs.$$
mkdir -p "$T" || exit 1
trap 'rm -rf "$T"' EXIT
# (a report too short for the clock's 0.01 s gives no ratio: "-")
med() { sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else
	printf "%.2f (%.2f-%.2f)", v[int((NR + 1) / 2)], v[1], v[NR] }'; }
printf "%-28s %6s %22s %22s %8s %10s %8s %22s\n" capture pairs "wall x report" \
	"CPU x report" "B/op" "ops" "RSS MB" "${C:+sqlite alone x report}"
for x in "$@"; do
	cat "$x" > /dev/null	# the page cache: time the programs, not the disk
	: > "$T/wall"; : > "$T/cpu"; : > "$T/sql"; : > "$T/rss"
	for i in $(seq "$P"); do
		/usr/bin/time -f "%e %U %S" -o "$T/a" "$N" report -r "$x" > /dev/null || exit 1
		rm -f "$T/db" "$T/db-wal" "$T/db-shm"
		/usr/bin/time -f "%e %U %S %M" -o "$T/b" "$N" record -r "$x" -w "$T/db" \
			--ops all --quiet || exit 1
		paste "$T/a" "$T/b" | awk -v w="$T/wall" -v c="$T/cpu" -v m="$T/rss" \
				-v x="$(basename "$x")" -v i="$i" '{
			if ($1 > 0) print $4 / $1 >> w
			if ($2 + $3 > 0) print ($5 + $6) / ($2 + $3) >> c
			print $7 / 1024 >> m
			printf "%-28s pair %d: report %.2f s (CPU %.2f), record %.2f s (CPU %.2f): wall x %.2f, CPU x %.2f\n",
				x, i, $1, $2 + $3, $4, $5 + $6, ($1 > 0 ? $4 / $1 : 0),
				($2 + $3 > 0 ? ($5 + $6) / ($2 + $3) : 0) }'
		rows=$(sqlite3 "$T/db" "SELECT sum(ops_stored) FROM runs")
		if [ -n "$C" ]; then
			rm -f "$T/c.db" "$T/c.db-wal" "$T/c.db-shm"
			"$C" "$T/db" "$T/c.db" "$rows" > "$T/c" || exit 1
			awk 'NR == 1 { s = $6 } END { print s }' "$T/c" |
				paste - "$T/a" | awk '$2 > 0 { print $1 / $2 }' >> "$T/sql"
			rm -f "$T/c.db" "$T/c.db-wal" "$T/c.db-shm"
		fi
	done
	size=$(stat -c %s "$T/db")
	printf "%-28s %6d %22s %22s %8.1f %10d %8.1f %22s\n" "$(basename "$x")" "$P" \
		"$(med < "$T/wall")" "$(med < "$T/cpu")" \
		"$(echo "$size $rows" | awk '{ print ($2 > 0 ? $1 / $2 : 0) }')" "$rows" \
		"$(sort -n "$T/rss" | tail -1)" "$([ -s "$T/sql" ] && med < "$T/sql")"
done
