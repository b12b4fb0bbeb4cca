#!/bin/sh
# stages.sh BUILD CAPTURE [nfscope args...] - where nfscope's CPU goes, by
# thread and by stage: perf samples (cpu-clock, no hardware counters
# needed) of `nfscope report -r CAPTURE` (or the command given after the
# capture: `record --ops all -w /tmp/x.db`), each sample's function given
# to the stage whose static library defines it (BUILD/capture, decode,
# analyze, store, run, ui: nm), the rest to libc, sqlite or the kernel
# (reading the file, page faults, futex wake-ups).  Prints per thread
# (the read loop's first) its share of the samples and, within it, each
# stage's; then the top functions of each thread.  A profile, not a
# timing: the shares hold on a loaded machine, the seconds do not.
# Exit 77 without perf.
set -u
B=$1 P=$2; shift 2
[ $# -gt 0 ] || set -- report
command -v perf >/dev/null 2>&1 || { echo "stages.sh: perf missing"; exit 77; }
W=$(mktemp -d /tmp/nfscope-stages.XXXXXX)
trap 'rm -rf "$W"' EXIT
for s in capture decode analyze store run ui; do
	nm --defined-only "$B/$s/libnfscope_$s.a" 2>/dev/null |
		awk -v s=$s 'NF == 3 { print $3, s }'
done > "$W/syms"
cmd=$1; shift
perf record -q -e cpu-clock -F 4000 -o "$W/perf.data" \
	"$B/ui/nfscope" "$cmd" -r "$P" "$@" > /dev/null 2> "$W/err" ||
	{ cat "$W/err"; exit 1; }
perf report -i "$W/perf.data" --sort pid,dso,sym --stdio 2>/dev/null |
	awk '/^ *[0-9.]+%/ { print }' > "$W/rows"
awk -v syms="$W/syms" '
	BEGIN { while ((getline l < syms) > 0) { split(l, a, " "); st[a[1]] = a[2] } }
	{
		pct = $1 + 0; pid = $2; dso = $3; sym = $5
		sub(/\.(isra|constprop|part|cold)\..*$/, "", sym)
		if (sym in st) s = st[sym]
		else if ($4 == "[k]") s = "kernel"
		else if (dso ~ /sqlite/) s = "sqlite"
		else if (dso ~ /libc|ld-linux/) s = "libc"
		else if (dso ~ /pcap/) s = "libpcap"
		else s = "other"
		if (!(pid in tot)) order[++np] = pid
		tot[pid] += pct; by[pid, s] += pct; all += pct
		if (!((pid, s) in seen)) { seen[pid, s] = 1; ss[pid] = ss[pid] " " s }
		if (++nf[pid] <= 8) top[pid] = top[pid] sprintf("    %5.1f%% %s (%s)\n", pct, sym, s)
	}
	END {
		for (i = 2; i <= np; i++)	# by thread id: the read loop first
			for (j = i; j > 1 && order[j - 1] + 0 > order[j] + 0; j--) {
				t = order[j]; order[j] = order[j - 1]; order[j - 1] = t
			}
		for (i = 1; i <= np; i++) {
			p = order[i]
			printf "thread %d (%s): %.1f%% of the samples\n", i, p, tot[p]
			n = split(ss[p], names, " ")
			for (j = 1; j <= n; j++)
				printf "  %-8s %5.1f%%\n", names[j], by[p, names[j]]
			printf "  top functions:\n%s", top[p]
		}
	}' "$W/rows"
