#!/usr/bin/env python3
"""The README's memory per budget unit, measured (issue 17).

doc/bench.md's Budgets table says what one unit of each budget costs at most
(parsed from doc/bench.md by flood.readme_costs, so the figures cannot drift
from what is checked).  For each unit, two runs hold N1 and N2 units with
the budget equal to the units held (a table allocated for its budget and
one that grows as it fills are both charged); the slope of peak RSS
(wait4's ru_maxrss) between them is the cost of one unit, and must be at
most the README's figure:

  --xid-max      N calls outstanding in the analysis (generator: never
                 answered, one client, all within a second), the decoder's
                 table small and fixed: report
  --dec-xid-max  the same calls remembered by the decoder, the analysis's
                 table small and fixed: dump (no analysis)
  --flows-max    N TCP directions (SYN seen) each holding nothing, then
                 each holding a short partial record (doc/bench.md's 576 B
                 plus 256 B): dump
The names table (--names-max, 1.4 KB) is not measured here: no generator
capture yet learns tens of thousands of names (a name needs its parent's
path, from MOUNT down).

Printed: each measured slope beside the README's figure.  Under a
sanitizer only the runs' exits are checked (its shadow and quarantine are
not nfscope's memory).

usage: costs.py NFSCOPE NFSGEN SAMPLE_PCAP WORKDIR [B_SANITIZE]
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flood  # noqa: E402  (the same arguments: NFSCOPE NFSGEN SAMPLE WORK)
from flood import check, gen, peak, tcp_frame, write_pcap  # noqa: E402
import tally  # noqa: E402

WORK = flood.WORK


def slope(what, runs, readme):
    """runs: [(units, peak RSS bytes)] for two sizes; check the cost per
    unit against the README's figure."""
    (n1, r1), (n2, r2) = runs
    per = (r2 - r1) / float(n2 - n1)
    print('%s: peak RSS %d KiB at %d, %d KiB at %d: %.0f B a unit '
          '(doc/bench.md: %d B)' % (what, r1 // 1024, n1, r2 // 1024, n2, per,
                              readme))
    check(per <= readme, '%s: %.0f B a unit, doc/bench.md says at most %d B'
          % (what, per, readme), rss=True)


def outstanding(n):
    return gen('costs-xid-%d' % n, '--scenario', 'mixed', '--unanswered',
               '1', '--count', str(n), '--rate', '1000000', '--size', '1024',
               '--transport', 'udp', '--clients', '1', '--servers', '1')


def t_xid(n1, n2):
    runs = []
    for n in (n1, n2):
        rss, out = peak(['report', '--json', '-r', outstanding(n),
                         '--xid-max', str(n), '--dec-xid-max', '1024'])
        e = json.loads(out)['engine']
        check(e['evicted'] == 0 and e['xid_peak'] == n,
              'xid-max %d: all %d held, none evicted (peak %d, evicted %d)'
              % (n, n, e['xid_peak'], e['evicted']))
        runs.append((n, rss))
    slope('--xid-max (analysis: outstanding call)', runs, flood.XID_ENTRY)


def t_dec_xid(n1, n2):
    """Larger counts than t_xid: below 65536 the decoder's table stays
    under dump's start-up peak and the slope reads 0."""
    runs = []
    for n in (n1, n2):
        rss, out = peak(['dump', '--json', '-r', outstanding(n),
                         '--dec-xid-max', str(n)])
        s = [json.loads(l)['summary'] for l in out.splitlines()
             if '"summary"' in l][0]
        check(s['xid_evictions'] == 0 and s['calls'] == n,
              'dec-xid-max %d: %d calls remembered, none evicted' % (
                  n, s['calls']))
        runs.append((n, rss))
    slope('--dec-xid-max (decoder: remembered call)', runs, flood.DEC_ENTRY)


def directions(n, partial):
    """n TCP directions, SYN seen; each then holds 200 bytes of a
    2000-byte record when partial."""
    pcap = os.path.join(WORK, 'costs-flows-%d-%d.pcap' % (n, partial))
    sv = (10, 3, 0, 2)
    part = (0x80000000 | 2000).to_bytes(4, 'big') + bytes(196)

    def frames():
        for k in range(n):
            a = (10, 3 + (k >> 16), (k >> 8) & 255, k & 255)
            yield tcp_frame(a, 1000, sv, 2049, 1000, 0x02, b'')
            if partial:
                yield tcp_frame(a, 1000, sv, 2049, 1001, 0x18, part)
    write_pcap(pcap, frames(), usec_step=10)
    return pcap


def t_flows(n1, n2):
    for partial, readme in ((False, flood.FLOW_ENTRY),
                            (True, flood.FLOW_ENTRY + flood.PARTIAL_BUF)):
        runs = []
        for n in (n1, n2):
            rss, out = peak(['dump', '--json', '-r', directions(n, partial),
                             '--flows-max', str(n)])
            s = [json.loads(l)['summary'] for l in out.splitlines()
                 if '"summary"' in l][0]
            check(s['flows_evicted'] == 0,
                  'flows-max %d: nothing evicted: %d' % (n, s['flows_evicted']))
            runs.append((n, rss))
        slope('--flows-max (TCP direction%s)' % (
            ', short partial record' if partial else ''), runs, readme)


def main():
    os.makedirs(WORK, exist_ok=True)
    if not flood.RSS:
        print('sanitizer build: peak RSS not checked')
    t_xid(16384, 65536)
    t_dec_xid(65536, 262144)
    t_flows(16384, 65536)
    for f in os.listdir(WORK):
        os.unlink(os.path.join(WORK, f))
    return tally.summary()


if __name__ == '__main__':
    sys.exit(main())
