#!/usr/bin/env python3
"""`nfscope diff A B` against the generator's per-operation truth (issue
20).  Two pairs of generator captures with known differences:

  sizes:   UDP, 8k READ/WRITE, server 1-4 ms  vs  TCP, 32k, 0.3-0.9 ms
  retrans: the mixed scenario with 20% of calls resent  vs  none

Every figure checked is computed here from the generator's --ops-truth
record (not by nfscope): calls per procedure, p50/p95/p99 latency from
the first transmission (nearest rank; nfscope's are histogram bucket
midpoints, within 1/256 of the value), their change in per cent, READ and
WRITE calls per size and the dominant size, messages by transport,
COMMITs per WRITE and retransmitted calls; then the verdict's words.

usage: check_diff.py NFSCOPE NFSGEN WORKDIR
"""
import json
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
import testlib  # noqa: E402

ERR = 1 / 256          # hist.h: a percentile within 1/256 of the value
PROCS = {(100003, 3, 1): 'NFSv3 GETATTR', (100003, 3, 6): 'NFSv3 READ',
         (100003, 3, 7): 'NFSv3 WRITE', (100003, 3, 21): 'NFSv3 COMMIT'}


def run(*args):
    return testlib.output(args)


def gen(nfsgen, work, name, *opts):
    pcap, ops = (os.path.join(work, name + x) for x in ('.pcap', '.ops'))
    if not os.path.exists(ops):
        run(nfsgen, '-o', pcap, '--ops-truth', ops + '.tmp', *opts)
        os.rename(ops + '.tmp', ops)
    return pcap, [json.loads(line) for line in open(ops)]


def nearest_rank(v, p):
    v = sorted(v)
    return v[max(0, math.ceil(p / 100 * len(v)) - 1)]


class Check:
    def __init__(self):
        self.fails = []
        self.n = 0

    def eq(self, what, got, want):
        self.n += 1
        if got != want:
            self.fails.append('%s: nfscope %r, truth %r' % (what, got, want))

    def near(self, what, got, want, rel, absolute=0.0):
        self.n += 1
        if abs(got - want) > rel * abs(want) + absolute:
            self.fails.append('%s: nfscope %r, truth %r (+-%g%%)' %
                              (what, got, want, rel * 100))


def truth_side(ops):
    t = {'procs': {}, 'read': {}, 'write': {}, 'retrans': 0,
         'udp': 0, 'tcp': 0}
    for o in ops:
        k = (o['prog'], o['vers'], o['proc'])
        p = t['procs'].setdefault(k, {'calls': 0, 'lat': []})
        p['calls'] += 1
        if o['answered']:
            p['lat'].append((o['reply_ns'] - o['first_call_ns']) / 1e6)
        t['retrans'] += o['retrans']
        t[o['proto']] += 1
        if k in ((100003, 3, 6), (100003, 3, 7)):
            sz = t['read' if o['proc'] == 6 else 'write']
            sz[o['count']] = sz.get(o['count'], 0) + 1
    return t


def dominant(sizes):
    return max(sorted(sizes), key=lambda s: sizes[s]) if sizes else 0


def check_pair(c, nfscope, name, a, b):
    (pa, oa), (pb, ob) = a, b
    d = json.loads(run(nfscope, 'diff', '--json', pa, pb))
    ta, tb = truth_side(oa), truth_side(ob)
    procs = {(p['prog'], p['vers'], p['proc']): p for p in d['procedures']}
    for k in set(ta['procs']) | set(tb['procs']):
        for side, t in (('a', ta), ('b', tb)):
            tp = t['procs'].get(k, {'calls': 0, 'lat': []})
            got = procs[k][side]
            c.eq('%s %s %r calls' % (name, side, k), got['calls'], tp['calls'])
            for q in (50, 95, 99):
                if tp['lat']:
                    c.near('%s %s %r p%d' % (name, side, k, q),
                           got['p%d_ms' % q], nearest_rank(tp['lat'], q),
                           ERR, 0.0015)
        la, lb = (t['procs'].get(k, {}).get('lat') for t in (ta, tb))
        if la and lb:
            want = (nearest_rank(lb, 99) / nearest_rank(la, 99) - 1) * 100
            c.near('%s %r d_p99_pct' % (name, k), procs[k]['d_p99_pct'],
                   want, 0, 2.5 * ERR * 100 + 0.2)
    for op in ('read', 'write'):
        z = d[op + '_sizes']
        for side, t in (('a', ta), ('b', tb)):
            c.eq('%s %s %s dominant size' % (name, side, op),
                 z['dominant_' + side], dominant(t[op]))
            c.eq('%s %s %s calls' % (name, side, op), z['total_' + side],
                 sum(t[op].values()))
            for row in z['sizes']:
                c.eq('%s %s %s size %d' % (name, side, op, row['size']),
                     row[side], t[op].get(row['size'], 0))
    for side, t in (('a', ta), ('b', tb)):
        c.eq('%s %s retransmitted calls' % (name, side),
             d[side]['retrans'], t['retrans'])
        c.eq('%s %s transport' % (name, side),
             d[side]['udp_msgs'] > d[side]['tcp_msgs'], t['udp'] > t['tcp'])
        w = t['procs'].get((100003, 3, 7), {'calls': 0})['calls']
        cm = t['procs'].get((100003, 3, 21), {'calls': 0})['calls']
        c.near('%s %s commits per write' % (name, side),
               d[side]['commits_per_write'], cm / w if w else 0, 0, 1e-4)
    return d, ta, tb


def main():
    nfscope, nfsgen, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    c = Check()
    common = ['--scenario', 'sizes', '--count', '200', '--seed', '4']
    a = gen(nfsgen, work, 'sizes-8k-udp', *common, '--transport', 'udp',
            '--size', '8192', '--delay-us', '1000', '--jitter-us', '3000')
    b = gen(nfsgen, work, 'sizes-32k-tcp', *common, '--transport', 'tcp',
            '--size', '32768', '--delay-us', '300', '--jitter-us', '600')
    d, ta, tb = check_pair(c, nfscope, 'sizes', a, b)
    ra, rb = (nearest_rank(t['procs'][(100003, 3, 6)]['lat'], 99)
              for t in (ta, tb))
    for words in ('after: TCP (was UDP)', '32k READs (was 8k)',
                  '32k WRITEs (was 8k)',
                  'NFSv3 READ p99 %+.0f%%' % ((rb / ra - 1) * 100)):
        c.eq('verdict has %r' % words, words in d['verdict'], True)
    common = ['--scenario', 'mixed', '--count', '400', '--seed', '6',
              '--transport', 'udp']
    a = gen(nfsgen, work, 'mixed-retrans', *common, '--retrans', '0.2',
            '--retrans-ivl-us', '50000')
    b = gen(nfsgen, work, 'mixed-clean', *common)
    d, ta, tb = check_pair(c, nfscope, 'retrans', a, b)
    words = 'retransmissions %d -> 0' % ta['retrans']
    c.eq('verdict has %r' % words, words in d['verdict'], True)
    c.eq('retrans truth is not empty', ta['retrans'] > 50, True)
    # the same capture against itself: nothing changed
    same = json.loads(run(nfscope, 'diff', '--json', b[0], b[0]))
    c.eq('a capture against itself', same['verdict'].startswith(
        'after: NFSv3 ') and 'unchanged' in same['verdict'] and
        'ops/s unchanged' in same['verdict'], True)
    # usage and input errors: exit 2 and 1, a message, no crash
    for args, want in ((['diff', b[0]], 2), (['diff', '--json', '--html',
                                              os.path.join(work, 'x.html'),
                                              b[0], b[0]], 2),
                       (['diff', b[0], os.path.join(work, 'none.pcap')], 1),
                       (['diff', b[0], b[0] + '.ops'], 1)):
        r = subprocess.run([nfscope] + args, capture_output=True, text=True)
        c.eq('%r exit status' % args, r.returncode, want)
        c.eq('%r says why' % args, bool(r.stderr.strip()), True)
    # a database's error names the command that met it: diff, not report
    db = os.path.join(work, 'one.db')
    for f in (db, db + '-wal', db + '-shm'):
        if os.path.exists(f):
            os.unlink(f)
    run(nfscope, 'record', '-r', b[0], '-w', db, '--quiet')
    r = subprocess.run([nfscope, 'diff', db + ':9', b[0]],
                       capture_output=True, text=True)
    c.eq('a missing run: exit status', r.returncode, 1)
    c.eq('a missing run: the message is diff\'s', r.stderr.startswith(
        'nfscope diff: no run 9'), True)
    html = os.path.join(work, 'diff.html')
    run(nfscope, 'diff', '--html', html, a[0], b[0])
    page = open(html).read()
    c.eq('html has the verdict', d['verdict'].replace('>', '&gt;') in page,
         True)
    c.eq('html has no script', '<script' in page, False)
    for f in c.fails[:40]:
        print('FAIL', f)
    print('%d checks, %d failed' % (c.n, len(c.fails)))
    return 1 if c.fails else 0


if __name__ == '__main__':
    sys.exit(main())
