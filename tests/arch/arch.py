#!/usr/bin/env python3
"""The layering of the whole tree, from its #includes and calls.

  arch.py SRCROOT

Reads every .c and .h of the stages (base < capture < decode < analyze <
store < run < ui, with their subfolders; tests/, bench/ and fuzz targets
are exempt) and fails when

  - a file includes a header of a folder above its own (ui/ may include
    everything, capture/ only capture/ and base/);
  - a file of a ui/ room includes a header of a room it may not use
    (ROOMS: the shared floor ui/*.[ch] uses no room; main.c every room;
    doc/design.md, "The house");
  - files form an include loop over the .c <-> .h pairing: module X is
    X.c with X.h (and X_int.h, its private header: find_int.h is find's), and X -> Y when X.c or X.h includes Y.h; a cycle
    (A.c includes B.h and B.c includes A.h, or longer) fails;
  - files form a call loop: A.c -> B.c when A.c names a function or object
    defined (not static) in B.c, directly or through a macro or static
    inline function of a header it includes (their bodies' names count as
    A.c's); a cycle fails.  A shared header can hide a call loop from the
    include check; this one sees it, through the header's macros too.

Loops listed in EXPECTED (empty since issue 14's merge) are shown as
expected and do not fail; an entry that no longer occurs is said, so the
list is kept empty.
"""
import os
import re
import sys

STAGES = ['base', 'capture', 'decode', 'analyze', 'store', 'run', 'ui']
RANK = {s: k for k, s in enumerate(STAGES)}

# ui/'s rooms and the rooms each may include (besides the floor, ui/*.h,
# and every stage below).  main.c picks the command: it may use all.
ROOMS = {
    'ui/serve': set(),                  # the metrics endpoint
    'ui/report': set(),                 # report, diff
    'ui/dump': set(),                   # dump
    'ui/record': {'ui/serve'},          # record, serve
    'ui/top': {'ui/serve'},             # the dashboard
}


def room(path):
    """ui/ROOM for a file of a room, 'ui' for the floor, else None."""
    parts = path.split('/')
    if parts[0] != 'ui':
        return None
    return 'ui/' + parts[1] if len(parts) > 2 else 'ui'


# Loops known and not fixed yet (none since issue 14's merge): a loop
# among (some of) an entry's files does not fail.
EXPECTED = set()


def strip(text):
    """C text without comments and string or character literals."""
    out, k, n = [], 0, len(text)
    while k < n:
        c = text[k]
        if text.startswith('/*', k):
            e = text.find('*/', k + 2)
            e = n if e < 0 else e + 2
            out.append('\n' * text.count('\n', k, e))
            k = e
        elif text.startswith('//', k):
            e = text.find('\n', k)
            k = n if e < 0 else e
        elif c in '"\'':
            e = k + 1
            while e < n and text[e] != c:
                e += 2 if text[e] == '\\' else 1
            out.append(c + c)
            k = e + 1
        else:
            out.append(c)
            k += 1
    return ''.join(out)


def sources(root):
    files = {}
    for stage in STAGES:
        top = os.path.join(root, stage)
        for d, subs, names in os.walk(top):
            subs.sort()
            for name in sorted(names):
                if name.endswith(('.c', '.h')):
                    full = os.path.join(d, name)
                    rel = os.path.relpath(full, root).replace(os.sep, '/')
                    with open(full, encoding='utf-8', errors='replace') as f:
                        files[rel] = f.read()
    return files


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# a definition at the start of a line: type words, a name, its parameters
# and the opening brace (functions), or "= ..." / "[...] =" (objects)
DEF = re.compile(r'^(?!static\b|typedef\b|extern\b|struct\s+\w+\s*\{|'
                 r'enum\b|union\b|return\b|else\b|if\b|for\b|while\b)'
                 r'[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)\s*'
                 r'(?:\([^;{}]*\)\s*\{|(?:\[[^\]]*\])?\s*=)', re.M)
WORD = re.compile(r'\b[A-Za-z_]\w*\b')


def sccs(graph):
    """Strongly connected components with more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def module(path):
    """X for X.c, X.h and X_int.h (a module's private header)."""
    m = path.rsplit('.', 1)[0]
    return m[:-4] if m.endswith('_int') else m


STATIC = re.compile(r'^static\b[^;=(]*?\b([A-Za-z_]\w*)\s*\(', re.M)


def check(root):
    files = sources(root)
    problems = []
    text = {p: strip(t) for p, t in files.items()}
    # layering and the include graph over modules (X.c + X.h)
    inc = {}
    for path, t in files.items():
        stage = path.split('/')[0]
        mod = module(path)
        for h in INCLUDE.findall(t):
            top = h.split('/')[0]
            if top not in RANK:
                continue
            if RANK[top] > RANK[stage]:
                problems.append('layering: %s includes %s (%s is above %s)'
                                % (path, h, top, stage))
            mine, theirs = room(path), room(h)
            if (theirs not in (None, 'ui', mine) and path != 'ui/main.c' and
                    theirs not in ROOMS.get(mine, set())):
                problems.append('rooms: %s includes %s (%s may not use %s)'
                                % (path, h, mine, theirs))
            hm = module(h)
            if hm != mod:
                inc.setdefault(mod, set()).add(hm)
    for comp in sccs(inc):
        problems.append('include loop: ' + ' '.join(comp))
    # the call graph over .c files
    defs = {}
    for path, t in text.items():
        if path.endswith('.c'):
            for name in DEF.findall(t):
                defs.setdefault(name, path)
    calls = {}
    bodies = header_bodies(text)
    for path, t in text.items():
        if not path.endswith('.c'):
            continue
        own = set(STATIC.findall(t))    # a file's static names shadow
        for w in through_headers(set(WORD.findall(t)) - own, bodies, own):
            d = defs.get(w)
            if d and d != path:
                calls.setdefault(path, set()).add(d)
                stage, dstage = path.split('/')[0], d.split('/')[0]
                if RANK[dstage] > RANK[stage]:
                    problems.append('layering: %s uses %s of %s' %
                                    (path, w, d))
    for comp in sccs(calls):
        problems.append('call loop: ' + ' '.join(comp))
    return files, defs, problems


MACRO = re.compile(r'^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(.*(?:\\\n.*)*)',
                   re.M)
INLINE = re.compile(r'^static\s+inline\b[^;{]*?\b([A-Za-z_]\w*)\s*\([^;{]*\)\s*\{',
                    re.M)


def header_bodies(text):
    """name -> the names its macro or static inline body uses, for every
    macro and static inline function of a header."""
    out = {}
    for path, t in text.items():
        if not path.endswith('.h'):
            continue
        for m in MACRO.finditer(t):
            out.setdefault(m.group(1), set()).update(WORD.findall(m.group(2)))
        for m in INLINE.finditer(t):
            depth, k = 1, m.end()
            while k < len(t) and depth:
                depth += {'{': 1, '}': -1}.get(t[k], 0)
                k += 1
            out.setdefault(m.group(1), set()).update(
                WORD.findall(t[m.end():k]))
    return out


def through_headers(words, bodies, own):
    """words and, transitively, the names the header macros and inline
    functions among them use (a file's own static names shadow)."""
    seen, todo = set(words), list(words)
    while todo:
        for w in bodies.get(todo.pop(), ()):
            if w not in seen and w not in own:
                seen.add(w)
                todo.append(w)
    return seen


def within(problem, expected):
    """A loop of the expected kind among (some of) its files: a loop that
    lost members as files were fixed stays expected."""
    kind, _, names = problem.partition(': ')
    ekind, _, enames = expected.partition(': ')
    return (kind == ekind and kind.endswith('loop') and
            set(names.split()) <= set(enames.split()))


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else '.'
    files, defs, problems = check(root)
    if len(files) < 20 or len(defs) < 100:
        print('FAIL: read only %d files, %d definitions under %s' %
              (len(files), len(defs), root))
        return 1
    found = sorted(set(problems))
    bad = [p for p in found if not any(within(p, e) for e in EXPECTED)]
    for p in found:
        print('%s %s' % ('FAIL' if p in bad else 'expected', p))
    for e in sorted(EXPECTED):
        if not any(within(p, e) for p in found):
            print('gone (remove it from EXPECTED): %s' % e)
    print('%d files, %d definitions, %d problems (%d expected)' %
          (len(files), len(defs), len(set(problems)),
           len(set(problems)) - len(bad)))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
