#!/bin/sh
# Command line: stdin input, clear errors for bad input, exit codes.
# usage: cli.sh NFSCOPE CAPTURE WORKDIR
nfscope=$1 cap=$2 work=$3
pass=0 fail=0
mkdir -p "$work"
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAILED: $*"; }

# -r - reads stdin: same output as reading the file
"$nfscope" dump -r "$cap" > "$work/file.txt" 2>&1
"$nfscope" dump -r - < "$cap" > "$work/stdin.txt" 2>&1
cmp -s "$work/file.txt" "$work/stdin.txt" && ok || bad "dump -r - differs from dump -r FILE"
[ "$(grep -c ' call xid' "$work/file.txt")" -eq 64 ] && ok || bad "expected 64 calls in $cap"

# errors: message on stderr, non-zero exit, nothing on stdout
expect_error() {	# expect_error PATTERN ARGS...
	pat=$1; shift
	"$nfscope" "$@" > "$work/out" 2> "$work/err"
	rc=$?
	if [ $rc -ne 0 ] && grep -q "$pat" "$work/err" && [ ! -s "$work/out" ]; then
		ok
	else
		bad "nfscope $*: exit $rc, stderr: $(cat "$work/err")"
	fi
}
expect_error 'No such file' dump -r "$work/does-not-exist.pcap"
printf 'this is not a capture file at all\n' > "$work/junk.pcap"
expect_error 'junk.pcap' dump -r "$work/junk.pcap"
# a pcap whose link type (147, USER0) nfscope does not decode
printf '\324\303\262\241\002\000\004\000\000\000\000\000\000\000\000\000\377\377\000\000\223\000\000\000' > "$work/user0.pcap"
expect_error 'link' dump -r "$work/user0.pcap"
expect_error 'filter' dump -r "$cap" -f 'this is (not a filter'
expect_error 'not both' dump -r "$cap" -i lo
expect_error 'no input' dump
expect_error 'unknown command' frobnicate
expect_error 'snaplen' dump -r "$cap" -s -5
expect_error 'usage' dump -r "$cap" --no-such-option
# a capture cut in the middle of a packet: everything before it printed,
# then the reason; exit status 3 (tests/cli/cut.py has the rest)
head -c 3000 "$cap" > "$work/cut.pcap"
"$nfscope" dump -r "$work/cut.pcap" > "$work/out" 2> "$work/err"
rc=$?
[ $rc -eq 3 ] && grep -q '^# INPUT CUT: reading stopped after packet' "$work/out" && ok ||
	bad "cut capture: exit $rc, $(cat "$work/err")"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
