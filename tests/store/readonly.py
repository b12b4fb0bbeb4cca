#!/usr/bin/env python3
"""Databases named twice, read-only databases, stored times (issue 32 and
issue 31), a check per defect, named after it:

- same_run_taken_once: `report a.db a.db`, `a.db:1 a.db:1`, `a.db --run 1
  --run 1` and a symlink to a.db beside a.db give the report of a.db
  alone, with a notice on stderr; two different runs still add up.
- readonly_db_reportable: a database this user cannot write (mode 444,
  another owner, in a read-only directory; with a stale empty -wal and
  -shm of another owner too) gives the same report as a writable one.
- report_leaves_no_files: `report DB` leaves no DB-shm and no DB-wal.
- stored_times_saturate: run times at the int64 limits report without
  signed overflow (the sanitizer build runs this with UBSan fatal).

Ground truth: the report of the database as written, the runs' counters
sqlite itself sums, the directory's listing.

usage: readonly.py NFSCOPE NFSGEN WORKDIR
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
import tally  # noqa: E402
from tally import check  # noqa: E402

NFSCOPE, NFSGEN, WORK = [os.path.abspath(a) for a in sys.argv[1:4]]
NOBODY = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups']


def w(name):
    return os.path.join(WORK, name)


def report(*args, user=None, cwd=WORK):
    p = subprocess.run((user or []) + [NFSCOPE, 'report', '--json'] +
                       list(args), capture_output=True, text=True,
                       timeout=300, cwd=cwd)
    try:
        return json.loads(p.stdout), p
    except ValueError:
        return None, p


def ops(rep):
    return rep and (rep['totals']['ops'], rep['capture']['packets'])


def same_run_taken_once(one):
    os.symlink('a.db', w('link.db'))
    for args in (['a.db', 'a.db'], ['a.db:1', 'a.db:1'],
                 ['a.db', '--run', '1', '--run', '1'], ['a.db', 'link.db'],
                 ['a.db:2', 'link.db', 'a.db']):
        rep, p = report(*args)
        check(p.returncode == 0 and ops(rep) == ops(one) and
              'named twice: taken once' in p.stderr,
              'same_run_taken_once: report %s: %s (want %s) %r' %
              (' '.join(args), ops(rep), ops(one), p.stderr[:200]))
    rep, p = report('a.db:1', 'a.db:2')
    want = (2 * one['totals']['ops'], 2 * one['capture']['packets'])
    check(p.returncode == 0 and ops(rep) == want and 'twice' not in p.stderr,
          'same_run_taken_once: two runs add up: %s (want %s)' %
          (ops(rep), want))


def leftovers(d):
    return sorted(f for f in os.listdir(d) if f.endswith(('-wal', '-shm')))


def report_leaves_no_files(one):
    rep, p = report('a.db')
    check(p.returncode == 0 and not leftovers(WORK),
          'report_leaves_no_files: %s' % leftovers(WORK))


def readonly_db_reportable(one):
    user = NOBODY if os.geteuid() == 0 and shutil.which('setpriv') else None
    if user is None:
        print('readonly_db_reportable: as this user (not root: no other '
              'owner)')
    ro = w('ro')
    db = os.path.join(ro, 'r.db')
    os.makedirs(ro)
    shutil.copy(w('a.db'), db)
    os.chmod(db, 0o444)
    os.chmod(ro, 0o555)
    rep, p = report('r.db', user=user, cwd=ro)
    check(p.returncode == 0 and ops(rep) == ops(one) and not leftovers(ro),
          'readonly_db_reportable: mode 444 in a read-only directory: exit '
          '%d %s %s %r' % (p.returncode, ops(rep), leftovers(ro),
                           p.stderr[:300]))
    # a stale empty -wal and -shm this user cannot write (a reader of
    # before, or a writer killed between two checkpoints)
    os.chmod(ro, 0o755)
    for suffix in ('-wal', '-shm'):
        open(db + suffix, 'w').close()
        os.chmod(db + suffix, 0o444)
    os.chmod(ro, 0o555)
    rep, p = report('r.db', user=user, cwd=ro)
    check(p.returncode == 0 and ops(rep) == ops(one) and
          all(os.path.getsize(db + x) == 0 for x in ('-wal', '-shm')),
          'readonly_db_reportable: with a stale -wal and -shm: exit %d %s '
          '%r' % (p.returncode, ops(rep), p.stderr[:300]))
    os.chmod(ro, 0o755)


def stored_times_saturate():
    shutil.copy(w('a.db'), w('t.db'))
    c = sqlite3.connect(w('t.db'))
    c.execute('UPDATE runs SET first_ns = ?, last_ns = ?, started = ?, '
              'ended = ? WHERE id = 1',
              (-(1 << 63) + 1, (1 << 63) - 1, -(1 << 63), (1 << 63) - 1))
    c.execute('UPDATE runs SET first_ns = ?, last_ns = ? WHERE id = 2',
              ((1 << 63) - 1, -(1 << 63)))
    c.commit()
    c.close()
    for args in (['t.db:1'], ['t.db:2'], ['t.db:1', 't.db:2']):
        rep, p = report(*args)
        check(p.returncode == 0 and rep is not None and
              'runtime error' not in p.stderr,
              'stored_times_saturate: report %s: exit %d %r' %
              (' '.join(args), p.returncode, p.stderr[-300:]))
        p = subprocess.run([NFSCOPE, 'report'] + args, capture_output=True,
                           text=True, timeout=300, cwd=WORK)
        check(p.returncode == 0 and 'runtime error' not in p.stderr,
              'stored_times_saturate: text report %s: exit %d %r' %
              (' '.join(args), p.returncode, p.stderr[-300:]))


def main():
    if os.path.exists(WORK):
        shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    os.chmod(WORK, 0o755)
    pcap = w('g.pcap')
    subprocess.run([NFSGEN, '-o', pcap, '--count', '400', '--seed', '5'],
                   check=True, capture_output=True)
    for _ in range(2):
        subprocess.run([NFSCOPE, 'record', '-q', '-w', w('a.db'), '-r', pcap],
                       check=True, capture_output=True, timeout=300)
    one, p = report('a.db:1')
    if not check(p.returncode == 0 and one, 'report a.db:1: %s' % p.stderr):
        return tally.summary('readonly')
    report_leaves_no_files(one)
    same_run_taken_once(one)
    readonly_db_reportable(one)
    stored_times_saturate()
    return tally.summary('readonly')


if __name__ == '__main__':
    sys.exit(main())
