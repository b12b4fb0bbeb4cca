# captures.sh - sourced by bench/run.sh and bench/store/run.sh: the
# benchmark captures, deterministic (nfsgen --seed 1), BENCH_PACKETS frames
# (default 5,000,000) each, in BENCH_DIR (default /tmp/nfscope-bench),
# regenerated only when missing or made with other arguments.
# Needs G (nfsgen); sets P and D.  wanted NAME: is NAME in BENCH_FILES
# (unset: every file)?
P=${BENCH_PACKETS:-5000000}
D=${BENCH_DIR:-/tmp/nfscope-bench}
mkdir -p "$D"

wanted() {
	[ -z "${BENCH_FILES:-}" ] && return 0
	case " $BENCH_FILES " in *" $1 "*) return 0 ;; esac
	return 1
}

gen() {	# name args...
	name=$1; shift
	[ -s "$D/$name.pcap" ] && [ "$(cat "$D/$name.args" 2>/dev/null)" = "$*" ] && return
	echo "generating $name: nfsgen $*"
	"$G" -o "$D/$name.pcap" "$@" || exit 1
	echo "$*" > "$D/$name.args"
}
# meta: metadata-heavy mix of small NFSv3 ops, UDP+TCP; data: READ/WRITE/
# COMMIT of 32 KiB (UDP, 23 IP fragments each) and 1 MiB (TCP)
wanted meta && gen meta --mix meta --transport mix --count 1000000000 --packets "$P" --seed 1 --clients 64 --servers 4 --acks 0.1
wanted data && gen data --mix data --transport mix --size 1048576 --count 1000000000 --packets "$P" --seed 1 --clients 16 --servers 4 --acks 0.1
# labmix: the lab's real mix (bench/labmix.py: nfs-ganesha and six
# concurrent labclients, BENCH_LABMIX_PACKETS frames, default 2,200,000),
# whole frames and a -s 256 twin (labmix-256.pcap).  Made once, only when
# LABCLIENT (tests/lab/labclient) is set and we are root; not
# deterministic (real peers), so kept until deleted.
labmix() {
	[ -s "$D/labmix.pcap" ] && [ -s "$D/labmix-256.pcap" ] && return
	[ -n "${LABCLIENT:-}" ] && [ "$(id -u)" = 0 ] || return
	echo "making labmix with the lab: bench/labmix.py"
	python3 "$(dirname "$0")/labmix.py" --labclient "$LABCLIENT" \
		--out "$D/labmix.pcap" --packets "${BENCH_LABMIX_PACKETS:-2200000}" ||
		echo "labmix could not be made: its rows are skipped"
}

