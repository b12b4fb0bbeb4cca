#!/usr/bin/env python3
"""run_counters.py NFSGEN NFSCOPE WORKDIR - the runs table keeps every
counter `report -r` shows (schema version 4: tcp_rejected, tcp_mem_evicted,
dec_late_*, dec_skew_tolerated).

Generator captures (tests/gen, independent of nfscope) with their
per-operation truth (--ops-truth):
  late-calls   TCP WRITEs whose call is completed after its reply: the
               replies within 200 us of the call are held and matched
               (truth: reply_ns - first_call_ns < 200 us, as gen_late.py)
  skew         replies stamped before their call: the uses of the 5 ms
               tolerance (truth: 0 < call - reply <= 5 ms), the half
               written reply first held, matched or timed out
  tcp-mem      1 MiB TCP READs/WRITEs with lost segments and --tcp-mem
               1m: buffers given up for the budget (> 0)
each analysed by `report -r` and by `record` then `report DB`: the JSON
objects capture and decode must be equal key for key, the truth's values
in both, the runs row's new columns equal to them, and the text report's
health lines (TCP segments ..., late replies ...) the same.
Then a schema 3 file: read with the new columns 0, migrated on append.
The direction lock's tcp_rejected (a hand-written capture) is checked the
same way in tests/cli/rel.py.
"""
import json
import os
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
import tally  # noqa: E402
from tally import check  # noqa: E402

NFSGEN, NFSCOPE, WORK = sys.argv[1:4]
SKEW_NS = 5000000     # README, "Replies must fit their call"
COLS = {'tcp_rejected': ('capture', 'tcp_rejected'),
        'tcp_mem_evicted': ('capture', 'tcp_mem_evicted'),
        'dec_late_held': ('decode', 'late_held'),
        'dec_late_matched': ('decode', 'late_matched'),
        'dec_late_expired': ('decode', 'late_expired'),
        'dec_late_over_budget': ('decode', 'late_over_budget'),
        'dec_skew_tolerated': ('decode', 'skew_tolerated')}


def eq(got, want, what):
    check(got == want, '%s: got %r, want %r' % (what, got, want))


def nfscope(*args):
    p = subprocess.run([NFSCOPE] + [str(a) for a in args],
                       capture_output=True, text=True)
    check(p.returncode == 0, 'nfscope %s: exit %d %s' % (
        ' '.join(str(a) for a in args), p.returncode, p.stderr[-300:]))
    return p.stdout


def health(text):
    return [l for l in text.splitlines()
            if l.startswith(('TCP segments', 'late replies'))]


def both(tag, gen_args, budget=()):
    """Generate, then report -r and record + report DB: (truth, file
    report, database report); every comparison between the two done."""
    pcap = os.path.join(WORK, tag + '.pcap')
    ops = os.path.join(WORK, tag + '.ops')
    db = os.path.join(WORK, tag + '.db')
    subprocess.run([NFSGEN, '-o', pcap, '--ops-truth', ops] + gen_args,
                   check=True, stderr=subprocess.DEVNULL)
    truth = [json.loads(l) for l in open(ops)]
    rf = json.loads(nfscope('report', '-r', pcap, '--json', *budget) or '{}')
    nfscope('record', '-r', pcap, '-w', db, '--force', '--quiet', *budget)
    rd = json.loads(nfscope('report', db, '--json') or '{}')
    for obj in ('capture', 'decode'):
        a, b = rf.get(obj, {}), rd.get(obj, {})
        diff = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
        check(a and not diff, '%s: report -r and report DB: %s objects '
              'equal (differ: %s)' % (tag, obj, ', '.join(
                  '%s %s/%s' % (k, a.get(k), b.get(k)) for k in diff)))
    con = sqlite3.connect(db)
    row = con.execute('SELECT %s FROM runs' % ', '.join(COLS)).fetchone()
    con.close()
    for (col, (obj, key)), v in zip(COLS.items(), row):
        eq(v, rf.get(obj, {}).get(key), '%s: runs.%s' % (tag, col))
    tf = health(nfscope('report', '--wide', '-r', pcap, *budget))
    td = health(nfscope('report', '--wide', db))
    check(len(tf) == 2 and tf == td, '%s: text health lines the same:\n'
          '  %s\n  %s' % (tag, tf, td))
    return truth, rf, rd


def t_late_calls():
    args = ['--scenario', 'late-calls', '--count', '400', '--size', '65536',
            '--delay-us', '50', '--jitter-us', '100', '--clients', '3',
            '--rate', '200', '--seed', '1']
    truth, rf, rd = both('late-calls', args)
    late = sum(1 for o in truth if o['proc'] == 7 and
               o['reply_ns'] - o['first_call_ns'] < 200000)
    check(late > 50, 'late-calls: the truth has held replies: %d' % late)
    for tag, r in (('report -r', rf), ('report DB', rd)):
        eq(r['decode']['late_held'], late, 'late-calls %s: late_held' % tag)
        eq(r['decode']['late_matched'], late,
           'late-calls %s: late_matched' % tag)


def t_skew():
    truth, rf, rd = both('skew', ['--scenario', 'skew', '--count', '500',
                                  '--transport', 'mix', '--clients', '3',
                                  '--seed', '1'])
    early = [o['first_call_ns'] - o['reply_ns'] for o in truth]
    tolerated = sum(1 for e in early if 0 < e <= SKEW_NS)
    check(tolerated > 0, 'skew: the truth has tolerated replies')
    for tag, r in (('report -r', rf), ('report DB', rd)):
        d = r['decode']
        eq(d['skew_tolerated'], tolerated, 'skew %s: skew_tolerated' % tag)
        eq(d['late_held'], len(truth) // 2, 'skew %s: late_held' % tag)
        eq(d['late_matched'] + d['late_expired'], d['late_held'],
           'skew %s: held replies matched or timed out' % tag)


def t_tcp_mem():
    _, rf, rd = both('tcp-mem', ['--mix', 'data', '--transport', 'tcp',
                                 '--size', '1048576', '--count', '300',
                                 '--lost-segments', '0.02', '--clients', '8',
                                 '--seed', '3'], ('--tcp-mem', '1m'))
    for tag, r in (('report -r', rf), ('report DB', rd)):
        c = r['capture']
        check(c['tcp_mem_evicted'] > 0 and c['tcp_gaps'] >= 1,
              'tcp-mem %s: buffers given up for --tcp-mem 1m: %d' % (
                  tag, c['tcp_mem_evicted']))


def t_migration_v3():
    """A schema 3 file (runs without the version 4 columns) is read with
    them 0 and gets them, the old run 0 and the new one counted, when
    record appends to it."""
    db = os.path.join(WORK, 'late-calls.db')   # recorded by t_late_calls
    pcap = os.path.join(WORK, 'late-calls.pcap')
    con = sqlite3.connect(db)
    for c in COLS:
        con.execute('ALTER TABLE runs DROP COLUMN %s' % c)
    con.executescript('DELETE FROM schema_version; '
                      "INSERT INTO schema_version VALUES(3, 'nfscope'); "
                      'PRAGMA user_version = 3;')
    con.close()
    rd = json.loads(nfscope('report', db, '--json') or '{}')
    eq(rd.get('decode', {}).get('late_held'), 0,
       'schema 3 file: late_held read as 0')
    nfscope('record', '-r', pcap, '-w', db, '--quiet')
    con = sqlite3.connect(db)
    eq(con.execute('SELECT max(version) FROM schema_version').fetchone()[0],
       6, 'schema 3 migrated to 6 on append')
    eq(con.execute('SELECT id, dec_late_held > 0, tcp_rejected FROM runs '
                   'ORDER BY id').fetchall(), [(1, 0, 0), (2, 1, 0)],
       'schema 3 migrated: old run 0, new run counted')
    con.close()


def main():
    os.makedirs(WORK, exist_ok=True)
    t_late_calls()
    t_migration_v3()
    t_skew()
    t_tcp_mem()
    return tally.summary()


if __name__ == '__main__':
    sys.exit(main())
