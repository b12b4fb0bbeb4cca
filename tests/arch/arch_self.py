#!/usr/bin/env python3
"""arch_self.py - arch.py against small trees whose answer is known.

A tree is made in a temporary folder: enough files and definitions that
arch.py reads it (it refuses a tree of fewer than 20 files or 100
definitions), then one defect at a time.  Each defect must fail and name
its files; the clean tree must pass.
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
import tally  # noqa: E402
import testlib  # noqa: E402
from tally import check  # noqa: E402

ARCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'arch.py')


def write(root, path, text):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, 'w') as f:
        f.write(text)


def clean_tree(root):
    """Filler modules in every stage: each defines five functions and
    calls only downwards."""
    stages = ['base', 'capture', 'decode', 'analyze', 'store', 'run', 'ui']
    for k, st in enumerate(stages):
        for m in range(4):
            name = '%s/f%d' % (st, m)
            fns = ['%s_f%d_%d' % (st, m, j) for j in range(5)]
            h = ''.join('int %s(void);\n' % f for f in fns)
            c = '#include "%s.h"\n' % name
            if k:
                c += '#include "%s/f0.h"\n' % stages[k - 1]
            body = ''
            for f in fns:
                call = ('%s_f0_0()' % stages[k - 1]) if k else '0'
                body += 'int %s(void)\n{\n\treturn %s;\n}\n\n' % (f, call)
            write(root, name + '.h', h)
            write(root, name + '.c', c + '\n' + body)


def arch(root):
    return testlib.run([sys.executable, ARCH, root], timeout=60)


def case(name, files, want):
    """files: path -> text added to a clean tree; want: None to pass, or
    words the failure must name."""
    root = tempfile.mkdtemp(prefix='arch-self-')
    try:
        clean_tree(root)
        for p, t in files.items():
            write(root, p, t)
        p = arch(root)
        if want is None:
            check(p.returncode == 0, '%s: passes (%s)' % (name, p.stdout[-300:]))
        else:
            fail = [l for l in p.stdout.splitlines() if l.startswith('FAIL')]
            check(p.returncode == 1 and any(all(w in l for w in want)
                                             for l in fail),
                  '%s: fails naming %s (%s)' % (name, want, p.stdout[-400:]))
    finally:
        shutil.rmtree(root)


def main():
    case('clean', {}, None)
    # a circle of calls through a shared header's macro: a.c calls b.c's
    # function; b.c names only a macro of the header, whose body calls a.c
    case('circle through a header macro', {
        'ui/hub.h': 'int ui_a(void);\nint ui_b(void);\n'
                    '#define UI_HUB_BACK() ui_a()\n',
        'ui/a.c': '#include "ui/hub.h"\nint ui_a(void)\n{\n\treturn ui_b();\n}\n',
        'ui/b.c': '#include "ui/hub.h"\nint ui_b(void)\n{\n\treturn UI_HUB_BACK();\n}\n',
    }, ['call loop', 'ui/a.c', 'ui/b.c'])
    # the same through a static inline function of the header
    case('circle through a header inline', {
        'ui/hub.h': 'int ui_a(void);\nint ui_b(void);\n'
                    'static inline int ui_hub_back(void)\n{\n\treturn ui_a();\n}\n',
        'ui/a.c': '#include "ui/hub.h"\nint ui_a(void)\n{\n\treturn ui_b();\n}\n',
        'ui/b.c': '#include "ui/hub.h"\nint ui_b(void)\n{\n\treturn ui_hub_back();\n}\n',
    }, ['call loop', 'ui/a.c', 'ui/b.c'])
    # one direction only through the header: no circle
    case('one way through a header', {
        'ui/hub.h': 'int ui_a(void);\nint ui_b(void);\n'
                    '#define UI_HUB_FWD() ui_b()\n',
        'ui/a.c': '#include "ui/hub.h"\nint ui_a(void)\n{\n\treturn UI_HUB_FWD();\n}\n',
        'ui/b.c': '#include "ui/hub.h"\nint ui_b(void)\n{\n\treturn 1;\n}\n',
    }, None)
    case('include going up a stage', {
        'decode/up.c': '#include "analyze/f0.h"\nint decode_up(void)\n{\n\treturn 0;\n}\n',
    }, ['layering', 'decode/up.c', 'analyze/f0.h'])
    case('room beside', {
        'ui/top/t.c': '#include "ui/report/r.h"\nint ui_t(void)\n{\n\treturn 0;\n}\n',
        'ui/report/r.h': 'int ui_r(void);\n',
    }, ['rooms', 'ui/top/t.c', 'ui/report/r.h'])
    case('include loop of modules', {
        'store/x.h': 'int store_x(void);\n',
        'store/x.c': '#include "store/x.h"\n#include "store/y.h"\n',
        'store/y.h': 'int store_y(void);\n',
        'store/y.c': '#include "store/y.h"\n#include "store/x.h"\n',
    }, ['include loop', 'store/x', 'store/y'])
    return tally.summary('arch_self')


if __name__ == '__main__':
    sys.exit(main())
