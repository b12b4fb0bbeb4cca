#!/usr/bin/env python3
"""gen_acc.py - the one accumulator (analyze/acc.c) against the generator's
per-operation record.

nfsgen writes what it sent (--ops-truth: every operation with its client,
server, procedure, first call, reply, retransmits, duplicate replies and
status).  This script adds those records up itself, per second x procedure
x client x server, and compares the sums with the accumulator's cells as
nfscope writes them: the store's interval rows (`record --interval 1`, every
column but the histogram blob, whose count must match) and report's time
series (`report --json --interval 1`, the per-second totals).

usage: gen_acc.py NFSGEN NFSCOPE
"""
import json
import os
import sqlite3
import subprocess
import sys
import tempfile

NFSGEN, NFSCOPE = sys.argv[1:3]
checks = 0


def ok(cond, msg):
    global checks
    if not cond:
        print('FAIL: ' + msg)
        sys.exit(1)
    checks += 1


def is_error(o):
    return bool(o.get('rpc_error')) or o.get('status', 0) != 0


def truth_cells(ops):
    """{(second, prog, vers, proc, client, server): sums} from the record."""
    cells = {}
    for o in ops:
        sec = o['first_call_ns'] // 10**9
        k = (sec, o['prog'], o['vers'], o['proc'], o['client'], o['server'])
        c = cells.setdefault(k, dict(calls=0, answered=0, unanswered=0,
                                     errors=0, retrans=0, dup_replies=0,
                                     lat=[]))
        c['calls'] += 1
        c['retrans'] += o['retrans']
        c['dup_replies'] += o['dup_replies']
        if o['answered']:
            c['answered'] += 1
            c['errors'] += is_error(o)
            c['lat'].append(o['reply_ns'] - o['first_call_ns'])
        else:
            c['unanswered'] += 1
    return cells


def check_store(work, pcap, cells):
    db = os.path.join(work, 'acc.db')
    subprocess.run([NFSCOPE, 'record', '-r', pcap, '-w', db, '--interval',
                    '1', '--quiet'], check=True, capture_output=True)
    c = sqlite3.connect(db)
    rows = c.execute('SELECT start_ns, prog, vers, proc, client, server, '
                     'calls, answered, unanswered, errors, retrans, '
                     'dup_replies, lat_count, lat_sum_ns, lat_min_ns, '
                     'lat_max_ns FROM intervals').fetchall()
    c.close()
    # a cell written when it closed may get a late op (an unanswered call
    # is delivered 60 s on) in a second row of the same key: readers sum
    got = {}
    for r in rows:
        k = (r[0] // 10**9, r[1], r[2], r[3], r[4], r[5])
        ok(r[0] % 10**9 == 0, 'store: %s starts on a second' % (k,))
        g = got.setdefault(k, [0] * 8 + [None, None])
        for i in range(7):
            g[i] += r[6 + i]
        g[7] += r[13]
        if r[14] is not None:
            g[8] = r[14] if g[8] is None else min(g[8], r[14])
            g[9] = r[15] if g[9] is None else max(g[9], r[15])
    ok(set(got) == set(cells), 'store: %d cells, record %d' %
       (len(got), len(cells)))
    for k, g in got.items():
        t = cells[k]
        for i, f in enumerate(('calls', 'answered', 'unanswered', 'errors',
                               'retrans', 'dup_replies')):
            ok(g[i] == t[f], 'store %s %s: %d, record %d' % (k, f, g[i], t[f]))
        lat = t['lat']
        ok(g[6] == len(lat), 'store %s latency count' % (k,))
        ok(g[7] == float(sum(lat)), 'store %s latency sum %r, record %d' %
           (k, g[7], sum(lat)))
        if lat:
            ok(g[8] == min(lat) and g[9] == max(lat),
               'store %s latency min/max' % (k,))


def check_report(pcap, cells):
    out = subprocess.run([NFSCOPE, 'report', '-r', pcap, '--json',
                          '--interval', '1'], check=True,
                         capture_output=True).stdout
    secs = {}
    for k, t in cells.items():
        s = secs.setdefault(k[0], dict(calls=0, answered=0, unanswered=0,
                                       errors=0, retrans=0, dup_replies=0,
                                       lat=[]))
        for f in s:
            s[f] += t[f]
    got = [x for x in json.loads(out)['intervals'] if x['calls']]
    ok(len(got) == len(secs), 'report: %d seconds, record %d' %
       (len(got), len(secs)))
    for x in got:
        sec = int(x['start'].split('.')[0])
        t = secs.get(sec)
        ok(t is not None, 'report: second %d' % sec)
        for f in ('calls', 'answered', 'unanswered', 'errors', 'retrans',
                  'dup_replies'):
            ok(x[f] == t[f], 'report second %d %s: %d, record %d' %
               (sec, f, x[f], t[f]))
        lat = t['lat']
        want = round(max(lat) / 1e6, 3) if lat else 0
        ok(abs(x['latency_max_ms'] - want) < 0.0011,
           'report second %d latency max %.3f, record %.3f' %
           (sec, x['latency_max_ms'], want))
        want = sum(lat) / len(lat) / 1e6 if lat else 0
        ok(abs(x['latency_avg_ms'] - want) < 0.0011,
           'report second %d latency avg' % sec)


def main():
    with tempfile.TemporaryDirectory() as work:
        pcap = os.path.join(work, 'acc.pcap')
        rec = os.path.join(work, 'acc.truth')
        # 3 clients, 2 servers, UDP and TCP, about 8 s: retransmits,
        # duplicate replies, unanswered calls and errors in most seconds
        subprocess.run([NFSGEN, '-o', pcap, '--ops-truth', rec, '--scenario',
                        'mixed', '--count', '1600', '--rate', '200',
                        '--clients', '3', '--servers', '2', '--retrans',
                        '0.03', '--dup-replies', '0.01', '--unanswered',
                        '0.01', '--delay-us', '2000', '--jitter-us', '3000',
                        '--seed', '14', '--transport', 'mix'], check=True,
                       stderr=subprocess.DEVNULL)
        ops = [json.loads(l) for l in open(rec)]
        ops = [o for o in ops if not o.get('one_way')]
        cells = truth_cells(ops)
        ok(len({k[0] for k in cells}) >= 7, 'the record spans 7+ seconds')
        check_store(work, pcap, cells)
        check_report(pcap, cells)
    print('gen_acc: %d checks passed' % checks)


if __name__ == '__main__':
    main()
