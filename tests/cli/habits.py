#!/usr/bin/env python3
"""Habits of tcpdump and nfsiostat users (issue 19): tcpdump's display
flags (-n, -nn, -v) accepted and bundled (-nr FILE), a trailing filter
expression as the BPF filter (and with -f: both), --op repeatable and
comma lists, --csv with --json refused (and --html with either), usage errors in two lines;
readable times (local with TZ, --utc, --epoch) in dump and report and in
the findings' evidence, and
--from/--to as a time of day, a date and time, ISO 8601 or epoch.

Ground truth: tcpdump's own packet counts for the same filter, tshark's
count of calls per NFSv3 procedure and its packet times (formatted here
by Python's zoneinfo), sqlite for the stored filter.

usage: habits.py NFSCOPE SAMPLE_PCAP WORKDIR
"""
import datetime
import json
import os
import shutil
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
import testlib  # noqa: E402
import tally  # noqa: E402
from tally import check  # noqa: E402

NFSCOPE, SAMPLE, WORK = sys.argv[1:4]


def run(*args, tz=None):
    env = dict(os.environ)
    if tz:
        env['TZ'] = tz
    return testlib.run([NFSCOPE, *args], timeout=120, env=env)


def dump_packets(*args):
    """Packets dump read (its JSON summary) and its exit status."""
    p = run('dump', '--json', *args)
    lines = [json.loads(l)['summary'] for l in p.stdout.splitlines()
             if l.startswith('{"summary"')]
    return (lines[0]['packets'] if lines else None), p.returncode


def tcpdump_count(expr):
    p = subprocess.run(['tcpdump', '-nr', SAMPLE, expr],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return len(p.stdout.splitlines())


def tshark_calls(procs):
    """NFSv3 calls of these procedure numbers, counted by tshark."""
    p = subprocess.run(['tshark', '-r', SAMPLE, '-Y', 'rpc.msgtyp == 0',
                        '-T', 'fields', '-e', 'nfs.procedure_v3'],
                       capture_output=True, text=True, timeout=60)
    return sum(1 for l in p.stdout.splitlines()
               if l.strip() and int(l) in procs)


def test_display_flags():
    ref = run('dump', '-r', SAMPLE)
    check(ref.returncode == 0, 'dump -r: %s' % ref.stderr)
    for flags in (['-nr', SAMPLE], ['-nnr', SAMPLE], ['-n', '-r', SAMPLE],
                  ['-nnvvr', SAMPLE], ['-v', '-nr', SAMPLE]):
        p = run('dump', *flags)
        check(p.returncode == 0 and p.stdout == ref.stdout,
              'dump %s: exit %d, same output %s, stderr %s' %
              (' '.join(flags), p.returncode, p.stdout == ref.stdout,
               p.stderr))
    p = run('report', '-nr', SAMPLE, '--json')
    check(p.returncode == 0 and json.loads(p.stdout)['totals']['ops'] == 64,
          'report -nr: %d %s' % (p.returncode, p.stderr))


def test_trailing_filter():
    for expr in (['port', '111'], ['port', '2049'], ['udp', 'and', 'src',
                                                     'port', '2049']):
        want = tcpdump_count(' '.join(expr))
        got, rc = dump_packets('-nr', SAMPLE, *expr)
        check(rc == 0 and got == want,
              'dump -nr FILE %s: %s packets (exit %d), tcpdump %d' %
              (' '.join(expr), got, rc, want))
    # options after the expression are still options (GNU getopt)
    want = tcpdump_count('port 111')
    p = run('report', '-r', SAMPLE, 'port', '111', '--json')
    check(p.returncode == 0 and
          json.loads(p.stdout)['capture']['packets'] == want,
          'report -r FILE port 111 --json: %d %s' % (p.returncode,
                                                     p.stderr[:200]))
    # with -f as well, a packet must match both
    for f, expr in (('udp', 'port 111'), ('port 111', 'port 2049'),
                    ('src port 2049', 'udp')):
        want = tcpdump_count('(%s) and (%s)' % (f, expr))
        got, rc = dump_packets('-r', SAMPLE, '-f', f, *expr.split())
        check(rc == 0 and got == want,
              'dump -f %r %s: %s packets, tcpdump (both) %d' %
              (f, expr, got, want))
    got, rc = dump_packets('-r', SAMPLE, 'port', '(')
    check(rc == 1, 'a bad trailing expression: exit %d' % rc)
    # record stores the filter it applied
    db = os.path.join(WORK, 'filt.db')
    p = run('record', '-qr', SAMPLE, '-w', db, '-f', 'udp', 'port', '2049')
    row = sqlite3.connect(db).execute(
        'SELECT filter, packets FROM runs').fetchone()
    check(p.returncode == 0 and row == ('(udp) and (port 2049)',
                                        tcpdump_count('udp and port 2049')),
          'record -f udp port 2049: %d %s %s' % (p.returncode, row, p.stderr))
    # a database takes no expression; no source: a usage error
    for args in ([db, 'port', '2049'], ['-r', db, 'port', '2049'],
                 ['port', '2049']):
        p = run('report', *args)
        check(p.returncode == 2 and len(p.stderr.splitlines()) == 2 and
              p.stdout == '', 'report %s: %d %s' % (args, p.returncode,
                                                     p.stderr))


def test_ops():
    ops = lambda p: json.loads(p.stdout)['totals']['ops']  # noqa: E731
    want = tshark_calls({3, 6})             # LOOKUP, READ
    check(want > 0, 'the sample has LOOKUPs and READs')
    for args in (['--op', 'READ', '--op', 'LOOKUP'], ['--op', 'read,lookup'],
                 ['--op', 'LOOKUP,READ', '--op', 'READ']):
        p = run('report', '-r', SAMPLE, '--json', *args)
        check(p.returncode == 0 and ops(p) == want,
              'report %s: %s ops, tshark %d' %
              (args, ops(p) if p.returncode == 0 else p.stderr, want))
    p = run('report', '-r', SAMPLE, '--json', '--op', 'GETATTR')
    check(ops(p) == tshark_calls({1}), '--op GETATTR alone')
    for bad in ('READ,', ',READ', 'READ,NOSUCH', 'READ,,WRITE'):
        p = run('report', '-r', SAMPLE, '--op', bad)
        check(p.returncode == 2 and p.stdout == '',
              '--op %r: exit %d' % (bad, p.returncode))


def test_usage_errors():
    p = run('report', '-r', SAMPLE, '--csv', 'ops', '--json')
    check(p.returncode == 2 and p.stdout == '' and
          p.stderr.splitlines() == [
              "nfscope report: --csv TABLE and --json exclude each other: "
              "give one", "Try 'nfscope report --help' for its usage."],
          '--csv with --json: %d %r' % (p.returncode, p.stderr))
    for args, first in ((['dump', '-r', SAMPLE, '--bogus'],
                         "nfscope dump: unrecognized option '--bogus'"),
                        (['dump', '-x'], "nfscope dump: invalid option -- 'x'"),
                        (['report', '-r', SAMPLE, '-q'],
                         "nfscope report: invalid option -- 'q'"),
                        (['record', '-r', SAMPLE],
                         'nfscope record: no output: give -w OUT.db'),
                        (['record', '-k'], "nfscope record: invalid option -- 'k'"),
                        (['top', '--nope'], "nfscope top: unrecognized option '--nope'"),
                        (['report', '-r', SAMPLE, '--csv', 'nope'], None)):
        p = run(*args)
        lines = p.stderr.splitlines()
        check(p.returncode == 2 and p.stdout == '' and len(lines) == 2 and
              (first is None or lines[0] == first) and
              lines[1] == "Try 'nfscope %s --help' for its usage." % args[0],
              '%s: exit %d, stderr %r' % (args, p.returncode, p.stderr))
    p = run('frobnicate')
    check(p.returncode == 2 and len(p.stderr.splitlines()) == 2,
          'unknown command: %r' % p.stderr)
    # report --html: one output, as --csv/--json; '-' is stdout
    for other in (['--json'], ['--csv', 'ops'], ['--every', '1']):
        p = run('report', '-r', SAMPLE, '--html', '-', *other)
        check(p.returncode == 2 and p.stdout == '' and
              p.stderr.splitlines()[0] == 'nfscope report: --html and %s '
              'exclude each other: give one' % other[0],
              '--html with %s: %d %r' % (other, p.returncode, p.stderr))
    p = run('report', '-r', SAMPLE, '--html', '-')
    check(p.returncode == 0 and p.stdout.startswith('<!DOCTYPE html>') and
          p.stdout.endswith('</html>\n') and '<script' not in p.stdout,
          '--html -: %d %r' % (p.returncode, p.stdout[:40]))
    p = run('report', '-r', SAMPLE, '--html', '/nonexistent/dir/x.html')
    check(p.returncode == 1 and p.stdout == '' and p.stderr.startswith(
          'nfscope report: --html /nonexistent/dir/x.html: '),
          '--html to a bad path: %d %r' % (p.returncode, p.stderr))


def tshark_times(filt=None):
    """(epoch seconds as tshark prints them, is_call) of every packet."""
    args = ['tshark', '-r', SAMPLE, '-T', 'fields', '-e',
            'frame.time_epoch', '-e', 'rpc.msgtyp']
    p = subprocess.run(args, capture_output=True, text=True, timeout=60)
    out = []
    for l in p.stdout.splitlines():
        t, typ = (l.split('\t') + [''])[:2]
        out.append((t, typ == '0'))
    return out


def fmt(epoch_str, tz):
    """epoch "S.fffffffff" as "YYYY-MM-DD HH:MM:SS.ffffff" in zone tz."""
    import zoneinfo
    sec, frac = epoch_str.split('.')
    d = datetime.datetime.fromtimestamp(int(sec), zoneinfo.ZoneInfo(tz))
    return d.strftime('%Y-%m-%d %H:%M:%S') + '.' + (frac + '000000')[:6]


def test_times():
    times = tshark_times()
    check(len(times) == 128, 'tshark sees 128 packets')
    for tz, flags, zone in (('UTC', [], 'UTC'),
                            ('Europe/Berlin', [], 'Europe/Berlin'),
                            ('America/New_York', ['--utc'], 'UTC'),
                            ('Asia/Kolkata', [], 'Asia/Kolkata')):
        p = run('dump', '--wide', '-r', SAMPLE, *flags, tz=tz)
        got = [l[:26] for l in p.stdout.splitlines() if not l.startswith('#')]
        want = [fmt(t, zone) for t, _ in times]
        check(got == want, 'dump %s TZ=%s: %s... want %s...' %
              (flags, tz, got[:1], want[:1]))
        summ = [l for l in p.stdout.splitlines()
                if l.startswith('# messages from')]
        check(summ == ['# messages from %s to %s (%s)' % (
            want[0], want[-1], 'UTC' if flags else
            'local time, %s' % {'UTC': 'UTC, UTC+00:00',
                                'Europe/Berlin': 'CET, UTC+01:00',
                                'Asia/Kolkata': 'IST, UTC+05:30'}[tz])],
              'dump summary times TZ=%s: %s' % (tz, summ))
        r = run('report', '--wide', '-r', SAMPLE, *flags, tz=tz)
        line = r.stdout.splitlines()[1]
        check(' from %s to %s (' % (want[0], want[-1]) in line,
              'report header TZ=%s %s: %s' % (tz, flags, line))
    # --epoch: the old form, tcpdump -tt
    p = run('dump', '-r', SAMPLE, '--epoch', tz='Europe/Berlin')
    got = [l.split()[0] for l in p.stdout.splitlines() if not l.startswith('#')]
    check(got == [t[:t.index('.') + 7] for t, _ in times],
          'dump --epoch: %s' % got[:2])
    # JSON: epoch kept, ISO 8601 UTC added
    j = json.loads(run('report', '-r', SAMPLE, '--json',
                       tz='Europe/Berlin').stdout)
    first = times[0][0]
    check(j['first'] == first[:first.index('.') + 10] and
          j['first_utc'] == fmt(first, 'UTC').replace(' ', 'T')[:26] +
          (first.split('.')[1] + '000000000')[6:9] + 'Z',
          'report JSON first %s %s (tshark %s)' % (j['first'],
                                                   j['first_utc'], first))


def test_evidence_times():
    """Finding evidence in the text report: the capture times analyze/
    writes (epoch in JSON, as stored) in the zone of the report, formatted
    here by Python's zoneinfo; --epoch leaves them as JSON has them."""
    import re
    demo = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..',
                        'pcaps', 'lab-demo.pcap')
    j = json.loads(run('report', '-r', demo, '--json').stdout)
    ev = ['[%s] %s' % (f['kind'], f['evidence']) for f in j['findings']]
    stamp = re.compile(r'(?<![\d.])(\d{9,10}\.\d{6})(?![\d.])')
    check(any(stamp.search(e) for e in ev), 'lab-demo: a finding with times')
    for tz, flags in (('Asia/Kolkata', []), ('Europe/Berlin', ['--utc']),
                      ('America/New_York', ['--epoch'])):
        zone = 'UTC' if flags == ['--utc'] else tz
        want = [e if flags == ['--epoch'] else
                stamp.sub(lambda m: fmt(m.group(1), zone), e) for e in ev]
        out = run('report', '--wide', '-r', demo, *flags, tz=tz).stdout.splitlines()
        got = [l for l in out if l.startswith('[')]
        check(got == want, 'evidence times TZ=%s %s: %s want %s' %
              (tz, flags, got[:1], want[:1]))


def test_from_to():
    """--from/--to in every form select the calls tshark times there."""
    times = tshark_times()
    cut = 944207397.5      # 1999-12-03 07:49:57.5 UTC, mid-capture
    after = sum(1 for t, call in times if call and float(t) >= cut)
    before = sum(1 for t, call in times if call and float(t) < cut)
    check(after > 0 and before > 0, 'the cut splits the calls')
    ops = lambda p: json.loads(p.stdout)['totals']['ops'] if \
        p.returncode == 0 else p.stderr  # noqa: E731
    db = os.path.join(WORK, 'times.db')
    run('record', '-qr', SAMPLE, '-w', db)
    for tz, args in (('UTC', ['--from', '07:49:57.5']),
                     ('UTC', ['--utc', '--from', '07:49:57.5']),
                     ('Europe/Berlin', ['--from', '08:49:57.5']),
                     ('Europe/Berlin', ['--from', '07:49:57.5', '--utc']),
                     ('Asia/Kolkata', ['--from', '13:19:57.500']),
                     ('Europe/Berlin', ['--from', '1999-12-03 08:49:57.5']),
                     ('UTC', ['--from', '1999-12-03T07:49:57.5Z']),
                     ('Asia/Kolkata', ['--from', '1999-12-03T08:49:57.5+01:00']),
                     ('UTC', ['--from', '1999-12-03T02:49:57.5-0500']),
                     ('UTC', ['--from', '944207397.5']),
                     ('UTC', ['--from', '+0.22']),
                     ('UTC', ['--from', '07:49:57.5', '--to', '07:50']),
                     ('UTC', ['--from', '1999-12-03', '--to', '1999-12-04'
                              ' 00:00', '--from', '07:49:57.5'])):
        for src in (['-r', SAMPLE], [db]):
            got = ops(run('report', *src, '--json', *args, tz=tz))
            check(got == after, 'report %s %s TZ=%s: %s ops, tshark %d' %
                  (src[-1][-10:], args, tz, got, after))
    for tz, args in (('UTC', ['--to', '07:49:57.5']),
                     ('Europe/Berlin', ['--to', '08:49:57.5']),
                     ('UTC', ['--from', '07:49', '--to', '07:49:57.5'])):
        for src in (['-r', SAMPLE], [db]):
            got = ops(run('report', *src, '--json', *args, tz=tz))
            check(got == before, 'report %s %s TZ=%s: %s ops, tshark %d' %
                  (src[-1][-10:], args, tz, got, before))
    for bad in ('25:00', '10:7', '10:20:00x', '1999-13-01', '1999-12-03T',
                'yesterday', '10:20+01:00', '1999-12-03 10:20:00+2'):
        p = run('report', '-r', SAMPLE, '--from', bad)
        check(p.returncode == 2 and p.stdout == '' and
              'bad time' in p.stderr, '--from %r: exit %d %s' %
              (bad, p.returncode, p.stderr))


def test_traps():
    """Habits that went wrong silently or with no hint (issue 31): each
    refused with the command that does what was meant."""
    out = os.path.join(WORK, 'trap.pcap')
    p = run('record', '-r', SAMPLE, '-w', out)
    check(p.returncode == 2 and not os.path.exists(out) and
          '--write-pcap' in p.stderr and '.db' in p.stderr,
          'record -w x.pcap: refused, suggesting .db or --write-pcap: '
          'exit %d %s' % (p.returncode, p.stderr))
    p = subprocess.run([NFSCOPE, '-r', SAMPLE], capture_output=True,
                       text=True, timeout=60)
    check(p.returncode == 2 and "nfscope report -r %s" % SAMPLE in p.stderr,
          'nfscope -r FILE: suggests report -r: %s' % p.stderr)
    p = run('report', '-r', SAMPLE, '5')
    check(p.returncode == 2 and '--every 5' in p.stderr and p.stdout == '',
          'report -r FILE 5: suggests --every 5: %s' % p.stderr)
    db = os.path.join(WORK, 'trap.db')
    run('record', '-q', '-r', SAMPLE, '-w', db)
    p = run('dump', '-r', db)
    check(p.returncode == 2 and 'nfscope report %s' % db in p.stderr,
          'dump -r DB: suggests report DB: %s' % p.stderr)
    # the xid in SQL as dump and tshark show it (view ops_hex)
    con = sqlite3.connect(db)
    rows = con.execute('SELECT xid_hex, xid FROM ops_hex').fetchall()
    con.close()
    ts = subprocess.run(['tshark', '-r', SAMPLE, '-Y', 'rpc.msgtyp == 0',
                         '-T', 'fields', '-e', 'rpc.xid'],
                        capture_output=True, text=True, timeout=60)
    want = {x.strip() for x in ts.stdout.split()}
    check(rows and all(h == '0x%08x' % x for h, x in rows) and
          {h for h, _ in rows} <= want,
          'ops_hex.xid_hex is 0x%%08x of xid and a call xid tshark shows: '
          '%s' % rows[:3])
    p = run('report', '-r', SAMPLE, '--by', 'clients')
    check(p.returncode == 2 and all(g in p.stderr for g in
                                    ('op', 'client', 'server', 'export',
                                     'file')),
          'report --by clients: names the groups: %s' % p.stderr)


if __name__ == '__main__':
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    test_display_flags()
    test_trailing_filter()
    test_ops()
    test_usage_errors()
    test_times()
    test_evidence_times()
    test_from_to()
    test_traps()
    sys.exit(tally.summary('habits'))
