#!/usr/bin/env python3
"""The default budgets' worst case fits in 64 MiB (issue 18).

One capture overflows every default budget at once, all of it within the
same minute of capture time so that no table has aged out when the next
fills:
  fleet    2000 clients x 4 servers, NFSv3 metadata mix with MOUNT (UDP and
           TCP): the figures' rows (4096), cells (4096), files (2048),
           client/server pairs (512) and servers, the findings' subjects
           (1024) and storm rings (64)
  xid      20,000 calls never answered (the call table: 16384)
  partial  10,000 TCP directions each holding a short partial record
           (--flows-max 8192)
  ooo      30 TCP directions each holding 400 KB out of order behind a
           hole (--tcp-mem 8m)
  frag     400 32 KiB UDP messages each missing one IP fragment
           (--frag-mem 2m)
`report` (text and --json) with the default budgets must peak at most
64 MiB (wait4's ru_maxrss), every one of those budgets must have evicted
or dropped (so the capture did fill them), and a control run with the
defaults of before (--xid-max 65536 --flows-max 65536 --tcp-mem 64m
--frag-mem 16m) must peak above 64 MiB: the bound could catch a budget
that grew back.

Under a sanitizer (5th argument other than 'none') only the evictions are
checked.

usage: worst.py NFSCOPE NFSGEN SAMPLE_PCAP WORKDIR [B_SANITIZE]
"""
import json
import os
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flood  # noqa: E402  (the same arguments: NFSCOPE NFSGEN SAMPLE WORK)
from flood import check, gen, peak, tcp_frame, write_pcap  # noqa: E402
import tally  # noqa: E402

WORK = flood.WORK
MIB = 1024 * 1024
LIMIT = 64 * MIB
T0 = 1700000000		# nfsgen's first second


def shifted(name, frames):
    """frames written by pcapw (stamped from 1000 s), moved to T0."""
    raw = os.path.join(WORK, name + '.raw.pcap')
    out = os.path.join(WORK, name + '.pcap')
    write_pcap(raw, frames, usec_step=10)
    subprocess.run(['editcap', '-t', str(T0 - 1000), raw, out], check=True,
                   capture_output=True)
    os.unlink(raw)
    return out


def partial(nflows):
    sv = (10, 2, 0, 2)
    part = struct.pack('>I', 0x80000000 | 2000) + bytes(196)
    for k in range(nflows):
        a = (10, 3, k >> 8, k & 255)
        yield tcp_frame(a, 1000, sv, 2049, 1000, 0x02, b'')
        yield tcp_frame(a, 1000, sv, 2049, 1001, 0x18, part)


def ooo(nflows, nseg, mss=1460):
    cl, sv = (10, 4, 0, 1), (10, 4, 0, 2)
    for k in range(nflows):
        yield tcp_frame(cl, 1000 + k, sv, 2049, 1000, 0x02, b'')
    for j in range(nseg):	# the first segment (seq 1001) is the hole
        for k in range(nflows):
            yield tcp_frame(cl, 1000 + k, sv, 2049, 1001 + (j + 1) * mss,
                            0x10, bytes(mss))


def main():
    os.makedirs(WORK, exist_ok=True)
    parts = [
        gen('fleet', '--mix', 'meta', '--mount', '--clients', '2000',
            '--servers', '4', '--count', '100000', '--transport', 'mix'),
        gen('xid', '--scenario', 'mixed', '--unanswered', '1', '--count',
            '20000', '--rate', '1000000', '--size', '1024', '--transport',
            'udp', '--clients', '1', '--servers', '1'),
        gen('frag', '--transport', 'udp', '--clients', '2', '--servers', '1',
            '--mix', 'data', '--count', '400', '--lost-frags', '1'),
        shifted('partial', partial(10000)),
        shifted('ooo', ooo(30, 280)),
    ]
    pcap = os.path.join(WORK, 'worst.pcap')
    subprocess.run(['mergecap', '-F', 'pcap', '-w', pcap] + parts, check=True)
    for p in parts:
        os.unlink(p)

    rss, out = peak(['report', '--json', '-r', pcap])
    rep = json.loads(out)
    c, d, e = rep['capture'], rep['decode'], rep['engine']
    print('report --json, default budgets: peak RSS %.1f MiB' % (rss / MIB))
    check(rss <= LIMIT, 'report --json: peak RSS %.1f MiB over 64 MiB'
          % (rss / MIB), rss=True)
    for what, n in (('call table (decoder evictions)', d['xid_evictions']),
                    ('call table (unanswered evicted)', e['evicted']),
                    ('TCP directions', c['flows_evicted']),
                    ('TCP memory', c['tcp_mem_evicted']),
                    ('fragment memory', c['ipfrag_evicted']),
                    ('rows and cells', e['rows_dropped']),
                    ('files', e['files_dropped']),
                    ('pairs', e['pairs_dropped']),
                    ('findings: hosts and storm rings',
                     e.get('findings_looks_skipped', 0))):
        check(n > 0, '%s: the budget filled (%d dropped)' % (what, n))
    check(rep['complete'] is False, 'the report says incomplete')

    rss, _ = peak(['report', '-r', pcap])
    print('report (text), default budgets: peak RSS %.1f MiB' % (rss / MIB))
    check(rss <= LIMIT, 'report: peak RSS %.1f MiB over 64 MiB'
          % (rss / MIB), rss=True)

    # record says what the findings' budgets left out (no column for it)
    db = os.path.join(WORK, 'worst.db')
    p = subprocess.run([flood.NFSCOPE, 'record', '-w', db, '-r', pcap],
                       capture_output=True, text=True)
    check(p.returncode == 0 and 'findings are incomplete: ' in p.stderr,
          'record logs that findings are incomplete (exit %d)' % p.returncode)
    for f in (db, db + '-wal', db + '-shm'):
        if os.path.exists(f):
            os.unlink(f)

    old = ['--xid-max', '65536', '--flows-max', '65536', '--tcp-mem', '64m',
           '--frag-mem', '16m']
    rss, _ = peak(['report', '--json', '-r', pcap] + old)
    print('control, the budgets of before: peak RSS %.1f MiB' % (rss / MIB))
    check(rss > LIMIT, 'control: the budgets of before must exceed 64 MiB '
          '(%.1f MiB: the test could not fail)' % (rss / MIB), rss=True)
    if not os.environ.get('WORST_KEEP'):	# WORST_KEEP=1: for heaptrack
        os.unlink(pcap)
    return tally.summary()


if __name__ == '__main__':
    sys.exit(main())
