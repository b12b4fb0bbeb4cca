#!/usr/bin/env python3
"""Several runs as one (issue 20): a generator capture split by client
into two databases (libpcap's BPF does the split, nfscope record each
part), `report A.db B.db` against `report -r` of the whole capture.

Equal, figure for figure: the totals, every procedure row, every row by
client, server and export, every client/server pair's sizes, writes and
verdicts, the capture's, decoder's and engine's counters.  Not compared,
because they depend on how the two parts interleave in one capture, which
two separate recordings do not keep (nfscope(1), report, "Several runs as
one"): the source's name, the engine's peak of pending calls, the order
of first appearance (lists are compared keyed, not by position), each
row's few named error statuses (the first ones seen; their sum is
compared), a server's FSINFO limits and write verifier (the last ones the
replay saw: when two parts' replies are close in time, another part's than
in one capture) and the size verdicts that quote those limits, the
verifier change list, the TCP vantage evidence and the findings.

usage: check_merge.py NFSCOPE NFSGEN WORKDIR
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
import testlib  # noqa: E402

PART_A = ('host 10.0.0.1 or host 10.0.0.2 or host fd00::1:1 or '
          'host fd00::1:2')


def run(*args):
    return testlib.output(args)


def keyed(rows, key):
    out = {}
    for r in rows:
        k = tuple(r.get(x) for x in key)
        if k in out:
            sys.exit('duplicate key %r' % (k,))
        out[k] = r
    return out


SKIP_ROW = {'errors_by_status', 'vantage', 'verifier_change_list', 'fsinfo',
            'write_verifier', 'read_verdict', 'write_verdict'}


def diff(a, b, path, fails):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in SKIP_ROW:
                diff(a.get(k), b.get(k), path + '.' + k, fails)
    elif a != b:
        fails.append('%s: merged %r, whole capture %r' % (path, a, b))


def main():
    nfscope, nfsgen, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    pcap = os.path.join(work, 'merge.pcap')
    run(nfsgen, '-o', pcap, '--count', '2500', '--seed', '5',
        '--all-features')
    dbs = []
    for name, flt in (('a', PART_A), ('b', 'not (%s)' % PART_A)):
        db = os.path.join(work, name + '.db')
        run(nfscope, 'record', '-r', pcap, '-w', db, '--ops', 'all',
            '--force', flt)
        dbs.append(db)
    whole = json.loads(run(nfscope, 'report', '--json', '-r', pcap))
    merged = json.loads(run(nfscope, 'report', '--json', *dbs))
    fails = []
    for sec in ('totals', 'capture', 'decode', 'duration_s', 'first',
                'last', 'complete', 'incomplete'):
        diff(merged[sec], whole[sec], sec, fails)
    eng = dict(merged['engine'], xid_peak=None)
    diff(eng, dict(whole['engine'], xid_peak=None), 'engine', fails)
    for sec, key in (('procedures', ('prog', 'vers', 'proc')),
                     ('clients', ('key', 'procedure')),
                     ('servers', ('key', 'procedure')),
                     ('exports', ('key', 'procedure')),
                     ('pairs', ('client', 'server')),
                     ('server_info', ('server',))):
        m, w = keyed(merged[sec], key), keyed(whole[sec], key)
        if set(m) != set(w):
            fails.append('%s: keys differ: %r' % (sec, set(m) ^ set(w)))
        for k in set(m) & set(w):
            diff(m[k], w[k], '%s%r' % (sec, k), fails)
            for x in ('errors_by_status',):
                if x in m[k] and sum(m[k][x].values()) != sum(w[k][x].values()):
                    fails.append('%s%r: errors differ' % (sec, k))
    # the two runs' sources, both named
    if merged['source'] != '%s, %s' % (pcap, pcap):
        fails.append('source: %r' % merged['source'])
    if merged['totals']['ops'] < 2400:
        fails.append('too few ops: %r' % merged['totals']['ops'])
    # DB:N names a run; the same run named twice is taken once (issue 32)
    twice = json.loads(run(nfscope, 'report', '--json', dbs[0] + ':1',
                           dbs[0] + ':1'))
    one = json.loads(run(nfscope, 'report', '--json', dbs[0]))
    if twice['totals']['ops'] != one['totals']['ops']:
        fails.append('a run twice: %r ops, once %r' %
                     (twice['totals']['ops'], one['totals']['ops']))
    for f in fails[:40]:
        print('FAIL', f)
    print('%d differences; %d ops merged from %d runs' %
          (len(fails), merged['totals']['ops'], len(dbs)))
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
