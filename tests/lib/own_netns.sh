#!/bin/sh
# own_netns.sh CMD [ARGS...] - run a live test in a network namespace of its
# own, its lo up, so that tests capturing on lo run beside each other (and
# beside another suite on the same machine) without seeing each other's
# datagrams.  Not root: CMD runs as it is (the live tests skip themselves,
# exit 77, without root).  Root without namespaces: skipped (77), the
# reason printed.
if [ "$(id -u)" -ne 0 ]; then
	exec "$@"
fi
if ! unshare -n true 2>/dev/null; then
	echo "SKIP: no network namespaces (unshare -n failed)"
	exit 77
fi
exec unshare -n sh -c 'ip link set lo up && exec "$@"' own_netns "$@"
