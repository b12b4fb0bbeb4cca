#!/usr/bin/env python3
"""tour.py NFSCOPE SRCDIR WORKDIR - the README's tour prints what it shows.

Every ```console block of README.md: a line "$ COMMAND" is run by sh in
WORKDIR (where pcaps/ is the bundled captures, nfscope the binary under
test, TZ=UTC), and its standard output must be the lines that follow, up
to the next "$ " line or the end of the block.  A command that needs a
program not installed (sqlite3) is skipped with the reason; the test
fails if none ran.
"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from tally import check  # noqa: E402
import tally  # noqa: E402

NFSCOPE, SRC, WORK = sys.argv[1:4]
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
os.symlink(os.path.join(os.path.abspath(SRC), 'pcaps'),
           os.path.join(WORK, 'pcaps'))
bindir = os.path.join(WORK, 'bin')
os.makedirs(bindir)
os.symlink(os.path.abspath(NFSCOPE), os.path.join(bindir, 'nfscope'))
ENV = dict(os.environ, TZ='UTC', LC_ALL='C',
           PATH=bindir + os.pathsep + os.environ.get('PATH', ''))


def steps(text):
    """[(command, [expected lines])] of every console block."""
    out = []
    for block in re.findall(r'```console\n(.*?)```', text, re.S):
        for line in block.splitlines():
            if line.startswith('$ '):
                out.append((line[2:], []))
            elif out:
                out[-1][1].append(line)
    return out


ran = 0
for cmd, want in steps(open(os.path.join(SRC, 'README.md')).read()):
    prog = cmd.split()[0]
    if 'sqlite3' in cmd.split() and not shutil.which('sqlite3'):
        print('SKIP (no sqlite3 program): %s' % cmd)
        continue
    p = subprocess.run(['sh', '-c', cmd], cwd=WORK, env=ENV,
                       capture_output=True, text=True, timeout=300)
    got = p.stdout.splitlines()
    ran += 1
    ok = got == want
    if not ok:
        for k in range(max(len(got), len(want))):
            g = got[k] if k < len(got) else '(none)'
            w = want[k] if k < len(want) else '(none)'
            if g != w:
                print('  line %d: README: %s\n           printed: %s' %
                      (k + 1, w, g))
                break
    check(ok and prog, '$ %s: prints what the README shows (%d lines, '
          'printed %d; stderr %s)' % (cmd, len(want), len(got),
                                       p.stderr.strip()[:200]))
check(ran > 0, 'the README tour ran %d commands' % ran)
sys.exit(tally.summary('tour'))
