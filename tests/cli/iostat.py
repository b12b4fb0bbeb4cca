#!/usr/bin/env python3
"""nfsiostat habits (issue 19): `report --every S` prints a block per S
seconds of capture time with per procedure ops/s, kB/s, kB/op, retrans
and their %, avg RTT and avg exe; the operations table has kB/op, kB/s
and Retr%.  `report DB` of a run recorded with --ops slow:MS or none
reports what the aggregate tables hold (the operations by procedure from
table intervals, sizes, fsinfo, findings), says PARTIAL and what is
missing, in text and --json (its "partial" object lists what needs --ops
all), gives --csv ops (from_replies empty), and refuses what needs every
operation.

Ground truth: the generator's per-operation record (procedure, call and
reply times, retransmissions, status) and the data counts of the READ and
WRITE replies the generator wrote (rcount); nothing computed by nfscope.
(tshark decodes the privileged client ports these captures use, 631 for
one, as other protocols, so it cannot give the counts here.)

usage: iostat.py NFSCOPE NFSGEN WORKDIR
"""
import collections
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
import tally  # noqa: E402
from tally import check  # noqa: E402

NFSCOPE, NFSGEN, WORK = [os.path.abspath(a) for a in sys.argv[1:4]]
NAMES = {1: 'NFSv3 GETATTR', 6: 'NFSv3 READ', 7: 'NFSv3 WRITE',
         21: 'NFSv3 COMMIT'}
ROW = re.compile(r'^(.+?)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(\d+)\s+'
                 r'([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(\d+)$')
HEAD = re.compile(r'^--- (\d+)\.(\d+) \+ ([\d.]+) s \(seconds since '
                  r'1970-01-01 UTC\): (\d+) operations, ([\d.]+) ops/s ---$')


def setup():
    pcap, truth = os.path.join(WORK, 'x.pcap'), os.path.join(WORK, 't.ndjson')
    subprocess.run([NFSGEN, '-o', pcap, '--mix', 'data', '--size', '32768',
                    '--count', '2000', '--rate', '200', '--retrans', '0.05',
                    '--transport', 'udp',
                    '--seed', '3', '--ops-truth', truth], check=True,
                   capture_output=True)
    ops = [json.loads(l) for l in open(truth) if l.strip()]
    # data bytes of each answered READ/WRITE: the count in its reply
    # (rcount), as the generator wrote it
    count = {o['xid']: o.get('rcount', 0) for o in ops}
    return pcap, ops, count


def expected(ops, count, every_ns):
    """{window start ns: {name: [ops, retrans, bytes, rtt_sum, exe_sum]}}"""
    win = collections.defaultdict(lambda: collections.defaultdict(
        lambda: [0, 0, 0, 0, 0]))
    for o in ops:
        assert o['answered'], 'the test wants every op answered'
        t = o['reply_ns']
        w = win[t // every_ns * every_ns][NAMES[o['proc']]]
        w[0] += 1
        w[1] += o['retrans']
        if not o.get('status', 0) and not o.get('rpc_error') and \
                o['proc'] in (6, 7):
            w[2] += count[o['xid']]
        w[3] += t - o['last_call_ns']
        w[4] += t - o['first_call_ns']
    return win


def blocks(text):
    out, cur = {}, None
    for l in text.splitlines():
        m = HEAD.match(l)
        if m:
            cur = out[int(m.group(1)) * 10**9 + int(m.group(2)) * 1000] = {}
            continue
        m = ROW.match(l)
        if m and cur is not None:
            cur[m.group(1)] = [float(x) for x in m.groups()[1:]]
        if l.startswith('nfscope report:'):
            cur = None
    return out


def close(a, b, tol):
    return abs(a - b) <= tol


def test_every(pcap, ops, count):
    for every in (1, 0.5):
        ns = int(every * 1e9)
        want = expected(ops, count, ns)
        p = subprocess.run([NFSCOPE, 'report', '--wide', '-r', pcap,
                            '--epoch', '--every', str(every)], capture_output=True,
                           text=True, timeout=300)
        got = blocks(p.stdout)
        check(p.returncode == 0 and sorted(got) == sorted(want),
              '--every %s: windows %s, want %s' %
              (every, [g / 1e9 for g in sorted(got)],
               [w / 1e9 for w in sorted(want)]))
        check(p.stdout.index('\n== Operations') > p.stdout.rindex('\n--- '),
              '--every %s: the report follows the blocks' % every)
        for w in sorted(want):
            for name, (n, rt, by, rtt, exe) in want[w].items():
                g = got.get(w, {}).get(name)
                ok = g is not None and \
                    close(g[0], n / every, 0.051) and \
                    close(g[1], by / 1024 / every, 0.051) and \
                    close(g[2], by / 1024 / n, 0.051) and \
                    g[3] == rt and close(g[4], 100 * rt / n, 0.051) and \
                    close(g[5], rtt / n / 1e6, 0.0011) and \
                    close(g[6], exe / n / 1e6, 0.0011)
                check(ok, '--every %s window %.1f %s: %s, want ops %d '
                      'retrans %d bytes %d rtt %.3f exe %.3f' %
                      (every, w / 1e9, name, g, n, rt, by, rtt / n / 1e6,
                       exe / n / 1e6))
    for bad in (['--every', '0'], ['--every', 'x'], ['--every', '1', '--json'],
                ['--every', '1', '--csv', 'ops']):
        p = subprocess.run([NFSCOPE, 'report', '-r', pcap] + bad,
                           capture_output=True, text=True)
        check(p.returncode == 2 and p.stdout == '' and
              len(p.stderr.splitlines()) == 2, '%s: %d %r' %
              (bad, p.returncode, p.stderr))


def test_table(pcap, ops, count):
    p = subprocess.run([NFSCOPE, 'report', '--wide', '-r', pcap],
                       capture_output=True,
                       text=True, timeout=300)
    j = json.loads(subprocess.run([NFSCOPE, 'report', '-r', pcap, '--json'],
                                  capture_output=True, text=True).stdout)
    dur = j['duration_s']
    lines = p.stdout.splitlines()
    head = [l for l in lines if l.startswith('Procedure ')]
    check(head and head[0].split()[1:7] == ['Calls', 'Ops/s', 'Err', 'kB/op',
                                             'kB/s', 'Retr%'],
          'operations table header: %s' % head[:1])
    for proc, name in NAMES.items():
        mine = [o for o in ops if o['proc'] == proc]
        n = len(mine)
        rt = sum(o['retrans'] for o in mine)
        by = sum(count[o['xid']] for o in mine
                 if not o.get('status', 0) and not o.get('rpc_error')
                 and proc in (6, 7))
        row = [l for l in lines if l.startswith(name + ' ')][0].split()[2:]
        ok = int(row[0]) == n and close(float(row[5]), 100 * rt / n, 0.051)
        if by:
            ok = ok and close(float(row[3]), by / 1024 / n, 0.051) and \
                close(float(row[4]), by / 1024 / dur, 0.051)
        else:
            ok = ok and row[3] == '-' and row[4] == '-'
        check(ok, 'table row %s: %s; want %d calls, %d bytes, %d retrans' %
              (name, row[:6], n, by, rt))
    # the 80-column table (the default): Calls Ops/s Err kB/op Retr% Avg
    # p50 p99 Max, the same figures as the generator's and the wide row's
    q = subprocess.run([NFSCOPE, 'report', '-r', pcap], capture_output=True,
                       text=True, timeout=300).stdout.splitlines()
    check([l.split() for l in q if l.startswith('Procedure ')][:1] ==
          [['Procedure', 'Calls', 'Ops/s', 'Err', 'kB/op', 'Retr%', 'Avg',
            'ms', 'p50', 'p99', 'Max', 'ms']],
          '80-column table header: %s' % [l for l in q if 'Calls' in l][:1])
    for proc, name in NAMES.items():
        mine = [o for o in ops if o['proc'] == proc]
        n = len(mine)
        rt = sum(o['retrans'] for o in mine)
        wide = [l for l in lines if l.startswith(name + ' ')][0].split()[2:]
        row = [l for l in q if l.startswith(name + ' ')][0].split()[2:]
        lat = [float(wide[k]) for k in (7, 9, 11, 8)]  # avg p50 p99 max
        ok = (len(row) == 9 and int(row[0]) == n and row[2] == wide[2] and
              row[1] == wide[1] and row[3] == wide[3] and
              close(float(row[4]), 100 * rt / n, 0.051) and
              all(abs(float(row[5 + k]) - lat[k]) <= 0.0005 + lat[k] * 0.0005
                  for k in range(4)))
        check(ok, '80-column row %s: %s; wide %s' % (name, row, wide))


def table_rows(text):
    """{procedure: fields after the name} of the operations table."""
    out = {}
    for l in text.splitlines():
        for name in NAMES.values():
            if l.startswith(name + ' '):
                out[name] = l.split()[2:]
    return out


def test_partial_json(db, mode, ops, count):
    """report DB --json of an --ops slow/none run: the procedures against
    the generator's operations, the tables, and what needs --ops all."""
    p = subprocess.run([NFSCOPE, 'report', db, '--json'], capture_output=True,
                       text=True)
    try:
        d = json.loads(p.stdout)
    except ValueError:
        d = None
    check(p.returncode == 0 and d is not None,
          '--ops %s --json: rc %d %s' % (mode, p.returncode, p.stderr[-300:]))
    if d is None:
        return
    part = d.get('partial', {})
    check(part.get('ops_mode') == mode.split(':')[0] and part.get('run') == 1 and
          (part.get('slow_ms') == 2.0) == (mode == 'slow:2') and
          {'clients', 'servers', 'exports', 'files', 'pairs', 'intervals'} <=
          set(part.get('need_ops_all', [])) and
          'procedures' in part.get('whole', []) and
          'latency_last_ms' in part.get('procedures_lack', []) and
          not any(k in d for k in ('clients', 'servers', 'files', 'pairs',
                                   'intervals')),
          '--ops %s --json: partial %s' % (mode, part))
    err = sum(1 for o in ops if o.get('status') or o.get('rpc_error'))
    check(d['totals']['ops'] == len(ops) and d['totals']['errors'] == err and
          d['totals']['retrans'] == sum(o['retrans'] for o in ops),
          '--ops %s --json totals %s' % (mode, d['totals']))
    rows = {r['procedure']: r for r in d['procedures']}
    for proc, name in NAMES.items():
        mine = [o for o in ops if o['proc'] == proc]
        lat = [o['reply_ns'] - o['first_call_ns'] for o in mine]
        by = sum(count[o['xid']] for o in mine
                 if not o.get('status') and not o.get('rpc_error'))
        g = rows.get(name, {})
        h = g.get('latency_ms', {})
        check(g.get('calls') == len(mine) and g.get('answered') == len(mine) and
              g.get('errors') == sum(1 for o in mine if o.get('status') or
                                     o.get('rpc_error')) and
              g.get('retrans') == sum(o['retrans'] for o in mine) and
              g.get('data_bytes') == by and h.get('count') == len(mine) and
              h.get('min_ns') == min(lat) and h.get('max_ns') == max(lat),
              '--ops %s --json %s: %s' % (mode, name, {k: g.get(k) for k in
                                                     ('calls', 'errors', 'retrans',
                                                      'data_bytes')}))
    check(any(r['op'] == 'READ' and r['size'] == 32768 for r in d['sizes']) and
          d['findings'] is not None and d['capture']['packets'] > 0 and
          sum(r['calls'] for r in d['sizes'] if r['op'] == 'READ') ==
          sum(1 for o in ops if o['proc'] == 6),
          '--ops %s --json: sizes, findings, capture' % mode)


def test_partial_csv(db, mode, ops):
    """report DB --csv ops of an --ops slow/none run: the full report's
    columns, from_replies empty (the cells do not hold it)."""
    p = subprocess.run([NFSCOPE, 'report', db, '--csv', 'ops'],
                       capture_output=True, text=True)
    lines = p.stdout.splitlines()
    head = lines[0].split(',') if lines else []
    rows = {l.split(',')[2]: dict(zip(head, l.split(','))) for l in lines[1:]}
    ok = p.returncode == 0 and head[:4] == ['group', 'key', 'procedure', 'calls'] \
        and head[-1] == 'from_replies'
    for proc, name in NAMES.items():
        mine = [o for o in ops if o['proc'] == proc]
        g = rows.get(name, {})
        ok = ok and g.get('calls') == str(len(mine)) and \
            g.get('errors') == str(sum(1 for o in mine if o.get('status') or
                                       o.get('rpc_error'))) and \
            g.get('retrans') == str(sum(o['retrans'] for o in mine)) and \
            g.get('from_replies') == '' and g.get('group') == 'op'
    check(ok, '--ops %s --csv ops: rc %d %s' % (mode, p.returncode, lines[:2]))


def test_partial(pcap, ops, count):
    for mode in ('slow:2', 'none'):
        db = os.path.join(WORK, 'p-%s.db' % mode[:4])
        subprocess.run([NFSCOPE, 'record', '-q', '-r', pcap, '-w', db,
                        '--ops', mode, '--interval', '1'], check=True)
        p = subprocess.run([NFSCOPE, 'report', '--wide', db, '--epoch'],
                           capture_output=True, text=True)
        lines = p.stdout.splitlines()
        check(p.returncode == 0 and len(lines) > 3 and
              lines[2].startswith('PARTIAL: run 1 was recorded with --ops %s'
                                  % mode) and
              'missing (they need one row per operation' in lines[4],
              'report of an --ops %s run: %d %s %s' %
              (mode, p.returncode, lines[:3], p.stderr))
        check(' 2000 operations (2000 answered, 0 unanswered, %d errors)' %
              sum(1 for o in ops if o.get('status') or o.get('rpc_error'))
              in lines[1], '--ops %s header: %s' % (mode, lines[1:2]))
        rows = table_rows(p.stdout)
        # (the header's duration has 1 ms: kB/s to within that)
        dur = float(lines[1].split(' over ')[1].split()[0])
        for proc, name in NAMES.items():
            mine = [o for o in ops if o['proc'] == proc]
            n, rt = len(mine), sum(o['retrans'] for o in mine)
            err = sum(1 for o in mine if o.get('status') or o.get('rpc_error'))
            by = sum(count[o['xid']] for o in mine
                     if not o.get('status') and not o.get('rpc_error'))
            lat = [(o['reply_ns'] - o['first_call_ns']) / 1e6 for o in mine]
            g = rows.get(name)
            ok = g is not None and int(g[0]) == n and int(g[2]) == err and \
                close(float(g[5]), 100 * rt / n, 0.051) and \
                close(float(g[6]), min(lat), 0.0011) and \
                close(float(g[8]), max(lat), 0.0011)
            if by:
                ok = ok and close(float(g[3]), by / 1024 / n, 0.051) and \
                    close(float(g[4]), by / 1024 / dur,
                          by / 1024 / dur * 0.0005 / dur + 0.051)
            check(ok, '--ops %s %s: %s; want %d calls %d errors %d retrans '
                  '%d bytes lat %.3f..%.3f' % (mode, name, g, n, err, rt, by,
                                               min(lat), max(lat)))
        check('== Transfer sizes' in p.stdout and 'op READ size 32768 calls'
              in p.stdout and '== Findings' in p.stdout,
              '--ops %s: sizes and findings tables' % mode)
        test_partial_json(db, mode, ops, count)
        test_partial_csv(db, mode, ops)
        for bad in (['--csv', 'sizes'], ['--by', 'client'],
                    ['--every', '1'], ['--interval', '1']):
            q = subprocess.run([NFSCOPE, 'report', db] + bad,
                               capture_output=True, text=True)
            check(q.returncode == 1 and q.stdout == '' and
                  'need every operation (--ops all)' in q.stderr,
                  '--ops %s %s: %d %s' % (mode, bad, q.returncode, q.stderr))
        # --op narrows the table to that procedure
        q = subprocess.run([NFSCOPE, 'report', '--wide', db, '--op',
                            'READ,COMMIT'],
                           capture_output=True, text=True)
        r = table_rows(q.stdout)
        check(sorted(r) == ['NFSv3 COMMIT', 'NFSv3 READ'] and
              int(r['NFSv3 READ'][0]) == sum(1 for o in ops if o['proc'] == 6),
              '--ops %s --op READ,COMMIT: %s' % (mode, sorted(r)))


if __name__ == '__main__':
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    pcap, ops, count = setup()
    test_every(pcap, ops, count)
    test_table(pcap, ops, count)
    test_partial(pcap, ops, count)
    sys.exit(tally.summary('iostat'))
