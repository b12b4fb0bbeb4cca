#!/usr/bin/env python3
"""columns.py NFSCOPE SRCDIR WORKDIR - the default text fits 80 columns.

Every command that prints text (report with every --by, --interval and
--every; report of a database and of a partial run; diff; dump's
summary) over every bundled capture (pcaps/, pcaps/golden/; with
NFSCOPE_TESTS=full, the CI tier, also ../shared/pcaps/public when it is
there): no line is longer than 80
columns, except one unbreakable token alone on its line (after the
line's lead, its blanks or "# ").  --wide keeps the long lines: at least
one run shows a line past 80 with it (so the check is not vacuous).
`top` draws to the terminal's width and is checked by tests/top.
"""
import glob
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
import testlib  # noqa: E402
from tally import check  # noqa: E402
import tally  # noqa: E402

NFSCOPE, SRC, WORK = sys.argv[1:4]
WIDTH = 80
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)


def run(*args):
    return testlib.run([NFSCOPE, *args], errors='replace',
                       env=dict(os.environ, TZ='UTC'))


def too_long(text, only_hash=False):
    """The lines past WIDTH that are not one token alone."""
    bad = []
    for line in text.splitlines():
        if only_hash and not line.startswith('#'):
            continue
        if len(line) <= WIDTH:
            continue
        if ' ' in line.lstrip('# '):
            bad.append(line)
    return bad


def fits(what, text, only_hash=False):
    bad = too_long(text, only_hash)
    check(not bad, '%s: every line within %d columns%s' % (
        what, WIDTH, ('' if not bad else ': %d past it, the first (%d): %s'
                      % (len(bad), len(bad[0]), bad[0][:200]))))


caps = sorted(p for d in ('pcaps', os.path.join('pcaps', 'golden'))
              for p in glob.glob(os.path.join(SRC, d, '*'))
              if p.endswith(('.pcap', '.pcapng')))
shared = os.path.join(SRC, '..', 'shared', 'pcaps', 'public')
if os.environ.get('NFSCOPE_TESTS') == 'full':
    caps += sorted(p for p in glob.glob(os.path.join(shared, '*.pcap*'))
                   if not p.endswith('.bz2'))
demo = os.path.join(SRC, 'pcaps', 'lab-demo.pcap')
wide_seen = False
for cap in caps:
    name = os.path.basename(cap)
    for extra in ([], ['--by', 'client'], ['--by', 'server'],
                  ['--by', 'export'], ['--by', 'file'],
                  ['--interval', '1'], ['--every', '1']):
        p = run('report', '-r', cap, *extra)
        if p.returncode not in (0, 3):
            check(False, 'report %s %s: exit %d: %s' % (
                name, ' '.join(extra), p.returncode, p.stderr[-300:]))
            continue
        fits('report %s %s' % (name, ' '.join(extra)), p.stdout)
        if not wide_seen and not extra:
            w = run('report', '--wide', '-r', cap)
            wide_seen = bool(too_long(w.stdout))
    p = run('dump', '-r', cap)
    fits('dump %s (summary)' % name, p.stdout, only_hash=True)
    p = run('diff', demo, cap)
    fits('diff lab-demo %s' % name, p.stdout)
    db = os.path.join(WORK, name + '.db')
    if run('record', '-r', cap, '-w', db, '-q').returncode in (0, 3):
        fits('report %s (database)' % name, run('report', db).stdout)
        fits('report %s (database) --by client' % name,
             run('report', db, '--by', 'client').stdout)
        fits('report %s --runs' % name, run('report', db, '--runs').stdout)
    part = os.path.join(WORK, name + '.none.db')
    if run('record', '-r', cap, '-w', part, '-q',
           '--ops', 'none').returncode in (0, 3):
        fits('report %s (run with --ops none)' % name,
             run('report', part).stdout)
check(len(caps) >= 5, 'the bundled captures are there (%d)' % len(caps))
check(wide_seen, '--wide keeps a line past %d columns' % WIDTH)
sys.exit(tally.summary("columns"))
