#!/usr/bin/env python3
"""Shared source options that need no privilege: --duration on a file
(capture time), -c, -s 0, budget options and their errors, -Z errors, the
long options every packet-reading subcommand accepts, report --from/--to
(whose option code moved for -Z), the drops CSV/JSON fields on a file
(complete), and the store's schema 1 -> 3 migration.

Ground truth: packet times read from the pcap by this script, the
generator's per-operation record, sqlite itself.

usage: options.py NFSCOPE NFSGEN SAMPLE_PCAP WORKDIR
"""
import json
import os
import re
import shutil
import sqlite3
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
import testlib  # noqa: E402
import tally  # noqa: E402
from tally import check  # noqa: E402

NFSCOPE, NFSGEN, SAMPLE, WORK = sys.argv[1:5]


def run(*args, **kw):
    kw.setdefault('timeout', None)
    return testlib.run([NFSCOPE, *args], **kw)


def pcap_times(path):
    """Timestamps (ns) of every record of a classic pcap, by hand."""
    with open(path, 'rb') as f:
        hdr = f.read(24)
        for e in '<>':
            magic = struct.unpack(e + 'I', hdr[:4])[0]
            if magic in (0xa1b2c3d4, 0xa1b23c4d):
                break
        assert magic in (0xa1b2c3d4, 0xa1b23c4d), 'not a pcap file'
        nano = magic == 0xa1b23c4d
        out = []
        while True:
            rec = f.read(16)
            if len(rec) < 16:
                return out
            sec, frac, incl, _ = struct.unpack(e + 'IIII', rec)
            f.seek(incl, 1)
            out.append(sec * 10**9 + frac * (1 if nano else 1000))


def summary(stdout):
    return [json.loads(l)['summary'] for l in stdout.splitlines()
            if l.startswith('{"summary"')][0]


def test_duration_offline():
    pcap = os.path.join(WORK, 'dur.pcap')
    subprocess.run([NFSGEN, '--scenario', 'mixed', '--count', '400', '--rate',
                    '50', '--transport', 'udp', '--seed', '5', '-o', pcap],
                   check=True, capture_output=True)
    ts = pcap_times(pcap)
    span = (ts[-1] - ts[0]) / 1e9
    check(span > 4, 'generated capture spans %.1f s (want > 4)' % span)
    for d in (0.5, 1, 2.25, span / 2):
        want = sum(1 for t in ts if t - ts[0] < d * 1e9)
        p = run('dump', '--json', '-r', pcap, '--duration', str(d))
        check(p.returncode == 0, '--duration %s: exit %d %s' % (d, p.returncode, p.stderr))
        got = summary(p.stdout)['packets']
        check(got == want, '--duration %s on a file: %d packets, the first %d '
              'are within %s s of capture time' % (d, got, want, d))
    # report and record take it too, same cut
    d = 2.25
    want = sum(1 for t in ts if t - ts[0] < d * 1e9)
    p = run('report', '--json', '-r', pcap, '--duration', str(d))
    check(p.returncode == 0 and json.loads(p.stdout)['capture']['packets'] == want,
          'report --duration on a file: %s' % p.stderr)
    db = os.path.join(WORK, 'dur.db')
    p = run('record', '-r', pcap, '--duration', str(d), '-w', db, '--force', '--quiet')
    con = sqlite3.connect(db)
    row = con.execute('SELECT packets, state FROM runs').fetchone()
    con.close()
    check(p.returncode == 0 and row == (want, 'complete'),
          'record --duration on a file: %r (want %d, complete) %s' % (row, want, p.stderr))
    # -c and --duration together: whichever comes first
    p = run('dump', '--json', '-r', pcap, '--duration', str(span), '-c', '7')
    check(summary(p.stdout)['packets'] == 7, '-c 7 with a long --duration')


def test_option_errors():
    for cmd in ('dump', 'report', 'record'):
        for opt, val, pat in (('--duration', '0', 'duration'),
                              ('--duration', 'x', 'duration'),
                              ('--xid-max', '3', 'xid-max'),
                              ('--dec-xid-max', 'lots', 'dec-xid-max'),
                              ('--flows-max', '-1', 'flows-max'),
                              ('--frag-mem', '1k', 'frag-mem'),
                              ('--names-max', '0', 'names-max'),
                              ('-s', '300000', 'snaplen')):
            p = run(cmd, '-r', SAMPLE, opt, val, '-w', os.path.join(WORK, 'e.db')) \
                if cmd == 'record' else run(cmd, '-r', SAMPLE, opt, val)
            check(p.returncode == 2 and re.search(pat, p.stderr) and not p.stdout,
                  '%s %s %s: exit %d, stderr %r' % (cmd, opt, val, p.returncode, p.stderr))
        p = run(cmd, '--help')
        for o in ('-Z USER', '--duration', '--xid-max', '--frag-mem', '-s SNAPLEN'):
            check(o in p.stdout, '%s --help mentions %s' % (cmd, o))
    # good values are taken by every subcommand
    good = ['--duration', '1e6', '--xid-max', '64k', '--dec-xid-max', '1024',
            '--flows-max', '512', '--frag-mem', '1m', '--names-max', '100',
            '-s', '0']
    p = run('dump', '-r', SAMPLE, *good)
    check(p.returncode == 0 and ' call xid' in p.stdout, 'dump with every budget: %s' % p.stderr)
    p = run('report', '--json', '-r', SAMPLE, *good)
    check(p.returncode == 0 and json.loads(p.stdout)['totals']['ops'] == 64,
          'report with every budget: %s' % p.stderr)
    p = run('record', '-r', SAMPLE, *good, '-w', os.path.join(WORK, 'g.db'), '--force')
    check(p.returncode == 0, 'record with every budget: %s' % p.stderr)


def test_user():
    p = run('dump', '-r', SAMPLE, '-Z', 'no-such-user-nfscope')
    check(p.returncode == 1 and 'no-such-user-nfscope' in p.stderr and not p.stdout,
          '-Z unknown user: exit %d %r' % (p.returncode, p.stderr))
    if os.geteuid() == 0 and shutil.which('setpriv'):
        # an unprivileged process cannot become another user
        p = subprocess.run(['setpriv', '--reuid=nobody', '--regid=nogroup',
                            '--clear-groups', NFSCOPE, 'dump', '-r', SAMPLE,
                            '-Z', 'root'], capture_output=True, text=True)
        check(p.returncode == 1 and 'needs root' in p.stderr,
              '-Z root as nobody: exit %d %r' % (p.returncode, p.stderr))
        # -Z on a file works as well: the output is the same
        os.chmod(WORK, 0o755)
        a = run('dump', '-r', SAMPLE)
        b = run('dump', '-r', SAMPLE, '-Z', 'nobody')
        check(b.returncode == 0 and a.stdout == b.stdout, '-Z nobody on a file')


def test_report_filters_and_complete():
    ts = pcap_times(SAMPLE)
    # --to moved to another option code when -Z became a letter
    mid = (ts[0] + ts[-1]) / 2e9
    full = json.loads(run('report', '--json', '-r', SAMPLE).stdout)
    cut = json.loads(run('report', '--json', '-r', SAMPLE, '--to', '%.6f' % mid).stdout)
    check(0 < cut['totals']['ops'] < full['totals']['ops'],
          '--to narrows the report (%d of %d)' % (cut['totals']['ops'], full['totals']['ops']))
    check(full['complete'] is True and full['incomplete']['drop_spans'] == [] and
          full['incomplete']['ps_drop'] == 0, 'a file report is complete')
    p = run('report', '-r', SAMPLE, '--csv', 'drops')
    check(p.returncode == 0 and p.stdout == 'start,end,ps_drop,ps_ifdrop\n',
          'CSV drops of a file: header only: %r' % p.stdout)
    p = run('report', '-r', SAMPLE, '--csv', 'intervals', '--interval', '1')
    lines = p.stdout.splitlines()
    check(lines[0].endswith(',incomplete') and len(lines) > 1 and
          all(l.endswith(',0') for l in lines[1:]), 'CSV intervals: incomplete column')
    p = run('report', '-r', SAMPLE)
    check('INCOMPLETE' not in p.stdout, 'text report of a file: no INCOMPLETE')


def test_migration():
    """A schema 1 database (no table drops, none of version 3's table and
    runs columns) is read as it is and migrated when record appends to it."""
    db = os.path.join(WORK, 'v1.db')
    p = run('record', '-r', SAMPLE, '-w', db, '--force', '--quiet')
    check(p.returncode == 0, 'record: %s' % p.stderr)
    con = sqlite3.connect(db)
    check(con.execute('SELECT max(version) FROM schema_version').fetchone()[0] == 6,
          'new database has schema version 6')
    check(con.execute("SELECT count(*) FROM sqlite_schema WHERE name = 'drops'")
          .fetchone()[0] == 1, 'new database has table drops')
    check(con.execute("SELECT count(*) FROM sqlite_schema WHERE name = "
                      "'sizes_from_replies'").fetchone()[0] == 1,
          'new database has table sizes_from_replies')
    # what version 3 added is dropped too: a schema 1 file as it was
    con.executescript('DROP TABLE drops; DROP TABLE sizes_from_replies; '
                      'ALTER TABLE runs DROP COLUMN dec_shape_fit; '
                      'ALTER TABLE runs DROP COLUMN dec_shape_ambiguous; '
                      'ALTER TABLE runs DROP COLUMN dec_shape_nofit; '
                      'ALTER TABLE runs DROP COLUMN eng_from_replies; '
                      'ALTER TABLE runs DROP COLUMN read_error; '
                      'ALTER TABLE runs DROP COLUMN read_error_offset; '
                      'DELETE FROM schema_version; '
                      "INSERT INTO schema_version VALUES(1, 'nfscope'); "
                      'PRAGMA user_version = 1;')
    con.close()
    p = run('report', '--json', db)
    check(p.returncode == 0 and json.loads(p.stdout)['totals']['ops'] == 64,
          'report reads a schema 1 database: %s' % p.stderr)
    p = run('record', '-r', SAMPLE, '-w', db, '--quiet')
    check(p.returncode == 0, 'record appends to a schema 1 database: %s' % p.stderr)
    con = sqlite3.connect(db)
    check(con.execute('SELECT max(version) FROM schema_version').fetchone()[0] == 6 and
          con.execute('PRAGMA user_version').fetchone()[0] == 6 and
          con.execute("SELECT count(*) FROM pragma_table_info('runs') "
                      "WHERE name LIKE 'read_error%'").fetchone()[0] == 2 and
          con.execute("SELECT count(*) FROM sqlite_schema WHERE name = 'drops'")
          .fetchone()[0] == 1 and
          con.execute("SELECT count(*) FROM sqlite_schema WHERE name = "
                      "'sizes_from_replies'").fetchone()[0] == 1 and
          # the column added, 0 for the run recorded before it existed
          con.execute('SELECT count(*) FROM runs WHERE dec_shape_fit = 0')
          .fetchone()[0] == 2 and
          con.execute('SELECT count(*) FROM runs').fetchone()[0] == 2,
          'schema 1 migrated to 6 on append, both runs there')
    con.close()


HIDDEN_COLS = ('snap_caplen', 'tcp_hidden_spans', 'tcp_hidden_bytes',
               'tcp_hidden_calls', 'tcp_hidden_replies', 'tcp_hidden_flows',
               'tcp_seg_max', 'tcp_seg_cut_max', 'eng_reply_not_seen')


def old_schema(name, table, cols, version):
    """A database of SAMPLE as schema `version` wrote it: cols of table
    dropped, the version set back."""
    db = os.path.join(WORK, name)
    p = run('record', '-r', SAMPLE, '-w', db, '--force', '--quiet')
    check(p.returncode == 0, 'record: %s' % p.stderr)
    con = sqlite3.connect(db)
    for c in cols:
        con.execute('ALTER TABLE %s DROP COLUMN %s' % (table, c))
    con.executescript('DELETE FROM schema_version; '
                      "INSERT INTO schema_version VALUES(%d, 'nfscope'); "
                      'PRAGMA user_version = %d;' % (version, version))
    con.close()
    return db


def test_migration_v2():
    """A schema 2 database (runs without the hidden-record columns) is
    read as it is and gets the columns when record appends to it."""
    db = old_schema('v2.db', 'runs', HIDDEN_COLS, 2)
    p = run('report', '--json', db)
    check(p.returncode == 0 and json.loads(p.stdout)['totals']['ops'] == 64 and
          json.loads(p.stdout)['incomplete']['hidden'] is None,
          'report reads a schema 2 database: %s' % p.stderr)
    p = run('record', '-r', SAMPLE, '-w', db, '--quiet')
    check(p.returncode == 0, 'record appends to a schema 2 database: %s' % p.stderr)
    con = sqlite3.connect(db)
    cols = {r[1] for r in con.execute('PRAGMA table_info(runs)')}
    check(con.execute('SELECT max(version) FROM schema_version').fetchone()[0] == 6 and
          all(c in cols for c in HIDDEN_COLS) and
          con.execute('SELECT count(*) FROM runs WHERE tcp_hidden_spans = 0')
          .fetchone()[0] == 2,
          'schema 2 migrated to 6 on append: runs has the hidden columns')
    con.close()


PCT_COLS = ('lat_p50_ns', 'lat_p90_ns', 'lat_p99_ns')
MISSED_COLS = ('tcp_gaps_missed', 'tcp_gap_missed_bytes')


def test_migration_v5():
    """A schema 5 database (runs without the columns of the TCP holes
    the capture missed) is read as it is (none missed) and gets them,
    0 for the old run, when record appends to it."""
    db = old_schema('v5.db', 'runs', MISSED_COLS, 5)
    p = run('report', '--json', db)
    check(p.returncode == 0 and json.loads(p.stdout)['capture']['tcp_gaps_missed'] == 0,
          'report reads a schema 5 database: %s' % p.stderr)
    p = run('record', '-r', SAMPLE, '-w', db, '--quiet')
    check(p.returncode == 0, 'record appends to a schema 5 database: %s' % p.stderr)
    con = sqlite3.connect(db)
    check(con.execute('SELECT max(version) FROM schema_version').fetchone()[0] == 6 and
          con.execute('SELECT count(*) FROM runs WHERE tcp_gaps_missed = 0 AND '
                      'tcp_gap_missed_bytes = 0').fetchone()[0] == 2,
          'schema 5 migrated to 6 on append: runs has the missed-hole columns')
    con.close()


def test_migration_v4():
    """A schema 4 database (intervals without the percentile columns) is
    read as it is; record appending to it adds them, filled from the
    blobs of the rows before: the same values as the run it appends of
    the same capture writes."""
    db = old_schema('v4.db', 'intervals', PCT_COLS, 4)
    before = run('report', '--json', db)
    check(before.returncode == 0 and json.loads(before.stdout)['totals']['ops'] == 64,
          'report reads a schema 4 database: %s' % before.stderr)
    p = run('record', '-r', SAMPLE, '-w', db, '--quiet')
    check(p.returncode == 0, 'record appends to a schema 4 database: %s' % p.stderr)
    con = sqlite3.connect(db)
    q = ('SELECT start_ns, prog, vers, proc, client, server, lat_count, %s '
         'FROM intervals WHERE run = ? ORDER BY 1, 2, 3, 4, 5, 6' % ', '.join(PCT_COLS))
    old, new = con.execute(q, (1,)).fetchall(), con.execute(q, (2,)).fetchall()
    check(con.execute('SELECT max(version) FROM schema_version').fetchone()[0] == 6 and
          len(old) > 5 and old == new and
          all((r[7] is None) == (r[6] == 0) for r in old) and
          any(r[7] is not None for r in old),
          'schema 4 migrated to 6 on append: the percentiles of the old run '
          'filled as the new run writes them (%d rows)' % len(old))
    hexes = con.execute('SELECT xid_hex, xid FROM ops_hex').fetchall()
    check(len(hexes) > 64 and all(h == '0x%08x' % x for h, x in hexes),
          'schema 4 migrated: view ops_hex, xid_hex = 0x%%08x of xid (%d)'
          % len(hexes))
    con.close()


def epoch_us(text):
    """'1700000000.529314[413]' -> microseconds, exactly."""
    sec, frac = text.split('.')
    return int(sec) * 10**6 + int((frac + '000000')[:6])


def test_dump_order():
    """dump keeps capture time (issue 31): replies whose call never came
    (held for it, then given up) are printed at their place, not at the
    end.  Ground truth: the capture's own record times (read by hand)."""
    pcap = os.path.join(WORK, 'orphans.pcap')
    subprocess.run([NFSGEN, '-o', pcap, '--orphan-replies', '--count',
                    '3000', '--seed', '5', '--transport', 'udp'],
                   check=True, capture_output=True)
    times = pcap_times(pcap)
    for args in ([], ['--json']):
        p = run('dump', '-r', pcap, '--epoch', *args)
        if args:
            msgs = [json.loads(l) for l in p.stdout.splitlines()]
            s = [m for m in msgs if 'summary' in m][0]['summary']
            ts = [epoch_us(m['ts']) for m in msgs if 'summary' not in m]
        else:
            ts = [epoch_us(l.split()[0])
                  for l in p.stdout.splitlines() if not l.startswith('#')]
        late = [k for k in range(1, len(ts)) if ts[k] < ts[k - 1]]
        check(p.returncode == 0 and len(ts) > 5000 and not late,
              'dump %s: %d messages in capture time (%d out of order, the '
              'first at %s)' % (' '.join(args), len(ts), len(late),
                                late[:1]))
        check(set(ts) <= set(t // 1000 for t in times),
              'dump %s: every message at a packet time of the capture'
              % ' '.join(args))
    check(s['orphan_replies'] > 0 and s['late_expired'] > 0,
          'the capture has replies held, then given up: %s' % s)


def main():
    os.makedirs(WORK, exist_ok=True)
    test_dump_order()
    test_duration_offline()
    test_option_errors()
    test_user()
    test_report_filters_and_complete()
    test_migration()
    test_migration_v2()
    test_migration_v4()
    test_migration_v5()
    return tally.summary()


if __name__ == '__main__':
    sys.exit(main())
