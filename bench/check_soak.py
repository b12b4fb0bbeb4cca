#!/usr/bin/env python3
"""check_soak.py - the checks of bench/soak.sh on what it left in --dir:
soak.db (record killed with SIGKILL), record.log, rss.tsv, tcpreplay.log.

A batch is one sqlite transaction (store/write.c batch_commit): the ops
queued since the last one, the interval cells closed, flows, names, drops
and the runs row's counters (ops_stored among them) commit together.  So
after a kill -9 the file must hold whole batches and nothing of the open
one: ops_stored equal to the rows in ops, ops ids 1..N without holes, at
least the ops and intervals of the last batch record logged as committed,
no interval cell counting more calls than the stored ops of its key, and
every stored op with its call seen counted in a written cell unless its
cell was still open (it ends less than the interval plus the store's 5 s
hold before the last stored op).
Prints a summary; exit 1 if a check fails."""
import argparse
import resource
import json
import os
import re
import sqlite3
import subprocess
import sys

HOLD_NS = 5 * 10**9          # store/write.c HOLD_NS
CALL_NOT_SEEN = 0x8000       # analyze/ops.h AN_OP_CALL_NOT_SEEN
fails = []


def check(ok, what):
    print('%s: %s' % ('ok  ' if ok else 'FAIL', what))
    if not ok:
        fails.append(what)


SQLITE_BOUND_KB = 32 * 1024 + 4096   # cache_size (store/schema.c) + statements


def rss_summary(path, warmup, margin_kb):
    """Columns: seconds, VmRSS, RssAnon, sqlite's heap as of the last
    commit logged (kB).  VmRSS includes the packet ring, touched block by
    block; RssAnon is the process's own allocations, sqlite's page cache
    among them, which fills up to its cache_size as the file grows.  The
    flatness check is on RssAnon less sqlite's heap (nfscope's own), and
    sqlite's heap is held to its bound."""
    vm, rows, sq, anon = [], [], [], []
    with open(path) as f:
        for line in f:
            v = [int(x) for x in line.split()]
            if len(v) < 4:
                continue
            vm.append((v[0], v[1]))
            anon.append((v[0], v[1], v[2]))
            rows.append((v[0], v[2] - v[3]))
            sq.append((v[0], v[3]))
    if not rows:
        check(False, 'RSS samples: none in %s' % path)
        return
    print('VmRSS (with the packet ring): first %.1f MB, max of [%d, %d) s '
          '%.1f MB, max after %d s %.1f MB' % (
              vm[0][1] / 1024, warmup // 2, warmup, max(
                  [kb for t, kb in vm if warmup // 2 <= t < warmup] or [0])
              / 1024, warmup, max([kb for t, kb in vm if t >= warmup] or
                                  [0]) / 1024))
    sqk = [kb for _, kb in sq]
    step = max(1, len(rows) // 10)
    print('sqlite heap (page cache, up to cache_size): first %.1f MB, max %.1f '
          'MB, last %.1f MB; every %d samples (s:MB): %s' % (
              sqk[0] / 1024, max(sqk) / 1024, sqk[-1] / 1024, step, ' '.join(
                  '%d:%.1f' % (t, kb / 1024) for t, kb in sq[::step])))
    check(max(sqk) <= SQLITE_BOUND_KB,
          'sqlite heap within its bound: max %.1f MB <= %.1f MB' % (
              max(sqk) / 1024, SQLITE_BOUND_KB / 1024))
    kbs = [kb for _, kb in rows]
    base = [kb for t, kb in rows if warmup // 2 <= t < warmup]
    tail = [kb for t, kb in rows if t >= warmup]
    print('RssAnon less sqlite heap: %d samples (one a second), first %.1f MB, '
          'max %.1f MB, last %.1f MB' % (len(rows), kbs[0] / 1024,
                                         max(kbs) / 1024, kbs[-1] / 1024))
    print('RssAnon less sqlite heap every %d samples (s:MB): %s' % (
        step, ' '.join('%d:%.1f' % (t, kb / 1024) for t, kb in rows[::step])))
    if not base or not tail:
        check(False, 'RSS: too few samples for a warm-up of %d s' % warmup)
        return None
    check(max(tail) <= max(base) + margin_kb,
          'RssAnon less sqlite heap flat after the warm-up: max after %d s '
          '%.1f MB <= max of [%d, %d) s %.1f MB + %.1f MB' % (
              warmup, max(tail) / 1024, warmup // 2, warmup,
              max(base) / 1024, margin_kb / 1024))
    # the trend over the rest: the last minute against the first minute
    # after the warm-up (informative)
    first = [kb for t, kb in rows if warmup <= t < warmup + 60]
    last = [kb for t, kb in rows if t >= rows[-1][0] - 60]
    if first and last:
        print('RssAnon less sqlite heap: mean of the first minute after the '
              'warm-up %.1f MB, of the last minute %.1f MB' % (
                  sum(first) / len(first) / 1024, sum(last) / len(last) / 1024))
    return max(v[2] for v in anon)


def control_peak(nfscope, d):
    """Peak RSS (VmHWM, kB) of `record -r` over one pass of the same
    capture, offline: every table touched at full speed (the peak is the
    same over 1 and 8 passes: 96.4 and 96.9 MB on 2026-12-02, before the
    histograms' small chunks; one pass 90.4 MB after)."""
    db = os.path.join(d, 'control.db')
    for sfx in ('', '-wal', '-shm'):
        if os.path.exists(db + sfx):
            os.unlink(db + sfx)
    r = subprocess.run([nfscope, 'record', '--quiet', '-r', os.path.join(d, 'pass.pcap'),
                        '-w', db], capture_output=True, text=True)
    check(r.returncode == 0, 'offline control record -r pass.pcap: exit %d %s' % (
        r.returncode, r.stderr.strip()[-200:]))
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss


def bound_check(live_max_kb, peak_kb, margin_kb):
    """Live, the process's own memory (RssAnon, sqlite's cache with it)
    approaches what the same traffic takes offline at full speed, where the
    tables are touched at once: it must stay below that peak."""
    check(live_max_kb <= peak_kb + margin_kb,
          'RssAnon live (max %.1f MB) within the offline peak of the same '
          'traffic (record -r, VmHWM %.1f MB) + %.1f MB' % (
              live_max_kb / 1024, peak_kb / 1024, margin_kb / 1024))


def smaps_summary(path):
    """The largest mappings by Rss just before the kill (informative)."""
    if not os.path.exists(path):
        return
    maps, cur = [], None
    with open(path) as f:
        for line in f:
            head = re.match(r'^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$',
                            line)
            if head:
                cur = [head.group(1).strip() or '[anon]', 0]
                maps.append(cur)
            elif line.startswith('Rss:') and cur is not None:
                cur[1] = int(line.split()[1])
    byname = {}
    for name, kb in maps:
        byname[name] = byname.get(name, 0) + kb
    top = sorted(byname.items(), key=lambda x: -x[1])[:6]
    print('RSS at the kill by mapping (MB): %s' % ', '.join(
        '%s %.1f' % (os.path.basename(n) or n, kb / 1024) for n, kb in top))


def last_logged(path):
    """(batches, ops, intervals) of the last 'batch committed' line."""
    pat = re.compile(r'batch (\d+) committed: ops (\d+) intervals (\d+)')
    last = (0, 0, 0)
    with open(path) as f:
        for line in f:
            m = pat.search(line)
            if m:
                last = tuple(int(x) for x in m.groups())
    return last


def store_checks(nfscope, d):
    db = os.path.join(d, 'soak.db')
    con = sqlite3.connect(db)
    ic = con.execute('PRAGMA integrity_check').fetchall()
    check(ic == [('ok',)], 'PRAGMA integrity_check: %s' % ic[:3])
    run = con.execute('SELECT id, state, ops_stored, packets, ps_recv, '
                      'ps_drop, ps_ifdrop, interval_ns, eng_ops, flows, '
                      'flows_evicted, tcp_msgs, udp_msgs FROM runs').fetchall()
    check(len(run) == 1, 'one run: %d' % len(run))
    (rid, state, stored, packets, recv, drop, ifdrop, ivl, eng_ops, flows,
     fevict, tcp_msgs, udp_msgs) = run[0]
    nops, lo, hi = con.execute('SELECT count(*), min(id), max(id) FROM ops '
                               'WHERE run = ?', (rid,)).fetchone()
    nivl = con.execute('SELECT count(*) FROM intervals').fetchone()[0]
    ndrops = con.execute('SELECT count(*), total(ps_drop), '
                         'total(ps_ifdrop) FROM drops').fetchone()
    print('run %d: state %s, packets %d, ps_recv %d, dropped by kernel %d, '
          'by interface %d (table drops: %d spans, %d + %d packets), '
          'flows %d (evicted %d), TCP records %d, UDP datagrams %d' % (
              rid, state, packets, recv, drop, ifdrop, ndrops[0],
              ndrops[1], ndrops[2], flows, fevict, tcp_msgs, udp_msgs))
    print('stored: ops %d, interval rows %d' % (nops, nivl))
    check(state == 'recording', 'the killed run reads recording: %s' % state)
    check(stored == nops, 'runs.ops_stored %d == rows in ops %d (one '
          'transaction per batch)' % (stored, nops))
    check(eng_ops == nops, 'runs.eng_ops %d == rows in ops %d (--ops all: '
          'the counters of the same batch)' % (eng_ops, nops))
    check(nops == 0 or (lo == 1 and hi == nops),
          'ops ids 1..%d without holes: min %s max %s' % (nops, lo, hi))
    batches, lops, livl = last_logged(os.path.join(d, 'record.log'))
    check(nops >= lops and nivl >= livl and lops > 0,
          'at least the last logged batch (%d: ops %d, intervals %d) is '
          'stored (a batch committed after its log line may add more)' % (
              batches, lops, livl))
    # interval cells against the ops of their key
    key = ('(o.first_call_ns - (o.first_call_ns %% %d)) AS start_ns, '
           'o.prog, o.vers, o.proc, o.client, o.server' % ivl)
    con.execute('CREATE TEMP TABLE k AS SELECT %s, count(*) AS n FROM ops o '
                'WHERE o.run = ? AND (o.flags & %d) = 0 GROUP BY 1, 2, 3, '
                '4, 5, 6' % (key, CALL_NOT_SEEN), (rid,))
    con.execute('CREATE INDEX temp.k_key ON k(start_ns, prog, vers, proc, '
                'client, server)')
    con.execute('CREATE TEMP TABLE i AS SELECT start_ns, prog, vers, proc, '
                'client, server, sum(calls) AS c FROM intervals WHERE run = ? '
                'GROUP BY 1, 2, 3, 4, 5, 6', (rid,))
    con.execute('CREATE INDEX temp.i_key ON i(start_ns, prog, vers, proc, '
                'client, server)')
    over = con.execute(
        'SELECT count(*) FROM i LEFT JOIN k USING (start_ns, prog, vers, '
        'proc, client, server) WHERE i.c > coalesce(k.n, 0)').fetchone()[0]
    check(over == 0, 'no interval cell counts more calls than the stored '
          'ops of its key: %d do' % over)
    last_call = con.execute('SELECT max(first_call_ns) FROM ops WHERE '
                            'run = ?', (rid,)).fetchone()[0] or 0
    missing = con.execute(
        'SELECT count(*), coalesce(sum(k.n - coalesce(i.c, 0)), 0) FROM k '
        'LEFT JOIN i USING (start_ns, prog, vers, proc, client, server) '
        'WHERE k.n > coalesce(i.c, 0) AND k.start_ns + ? + ? <= ?',
        (ivl, HOLD_NS, last_call)).fetchone()
    check(missing[0] == 0, 'every stored op of a closed cell is in a '
          'written interval row: %d cells lack %d ops' % tuple(missing))
    # the reader: text and JSON.  Its totals leave out the ops known from
    # a reply alone (flag 0x8000: a call lost, in a drop span or before
    # the start), counted as engine.from_replies
    from_replies = con.execute('SELECT count(*) FROM ops WHERE run = ? AND '
                               'flags & %d' % CALL_NOT_SEEN,
                               (rid,)).fetchone()[0]
    con.close()
    with_call = nops - from_replies
    r = subprocess.run([nfscope, 'report', db], capture_output=True,
                       text=True)
    check(r.returncode == 0 and '%d operations' % with_call in r.stdout,
          'nfscope report DB: exit %d, "%d operations" in its text (%d '
          'stored, %d of them from a reply alone)' % (
              r.returncode, with_call, nops, from_replies))
    r = subprocess.run([nfscope, 'report', '--json', db],
                       capture_output=True, text=True)
    js = json.loads(r.stdout) if r.returncode == 0 else {}
    tot, eng = js.get('totals', {}), js.get('engine', {})
    check(tot.get('ops') == with_call and
          eng.get('from_replies') == from_replies,
          'nfscope report --json DB: totals.ops %s == %d, '
          'engine.from_replies %s == %d' % (tot.get('ops'), with_call,
                                             eng.get('from_replies'),
                                             from_replies))
    return drop, ifdrop


def tcpreplay_summary(path):
    with open(path) as f:
        text = f.read()
    for pat in (r'Actual: .*', r'Rated: .*', r'Failed packets:\s+\d+'):
        m = re.search(pat, text)
        if m:
            print('tcpreplay: %s' % m.group(0).strip())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--nfscope', required=True)
    ap.add_argument('--dir', required=True)
    ap.add_argument('--warmup', type=int, required=True)
    ap.add_argument('--margin-kb', type=int, required=True)
    a = ap.parse_args()
    peak = control_peak(a.nfscope, a.dir)	# the first child: ru_maxrss is its
    tcpreplay_summary(os.path.join(a.dir, 'tcpreplay.log'))
    live = rss_summary(os.path.join(a.dir, 'rss.tsv'), a.warmup, a.margin_kb)
    if live is not None:
        bound_check(live, peak, a.margin_kb)
    smaps_summary(os.path.join(a.dir, 'smaps.txt'))
    store_checks(a.nfscope, a.dir)
    print('soak: %d check(s) failed' % len(fails) if fails else
          'soak: every check holds')
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
