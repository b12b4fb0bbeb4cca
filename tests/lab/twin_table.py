#!/usr/bin/env python3
"""twin_table.py - for each twin scenario kept by lab.py (LAB_KEEP=1), the
full capture against its tcpdump twins at -s 512 and -s 256: operations per
procedure, READ and WRITE size shares and the first lines nfscope's report
prints, with the truth (truth.twin_truth) beside them.  Issue 15 asks the
lead's note to give these.

usage: twin_table.py WORKDIR [SCENARIO...] [--end client|server]

WORKDIR is lab.py's --work; SCENARIO defaults to every pipe* directory in it.
Reads only files lab.py wrote there (X.report.json, X.report.txt,
truth-END.json); runs nothing.
"""
import argparse
import json
import os

COLUMNS = (('full', ''), ('512', '-512'), ('256', '-256'))


def load(work, end):
    """{column: (report json, report text)} of one scenario's end."""
    out = {}
    for col, suffix in COLUMNS:
        base = 'capture' if (end, suffix) == ('client', '') else \
            '%s-%s' % (end, 'full' if not suffix else suffix[1:])
        path = os.path.join(work, base + '.report')
        out[col] = (json.load(open(path + '.json')), open(path + '.txt').read())
    return out


def shares(report, key):
    """'size: share% (n)' of READs or WRITEs over all pairs."""
    n = {}
    for p in report['pairs']:
        for size, k in p[key]['count_by_size'].items():
            n[int(size)] = n.get(int(size), 0) + k
    total = sum(n.values())
    return ', '.join('%dk %.0f%% (%d)' % (s // 1024, 100.0 * k / total, k)
                     for s, k in sorted(n.items())) if total else '-'


def first_lines(text, most=6):
    """The lines the report prints before its first table."""
    out = []
    for ln in text.splitlines():
        if not ln.strip() or ln.startswith('=='):
            break
        out.append(ln)
    return out[:most]


def table(name, work, end):
    reps = load(work, end)
    t = json.load(open(os.path.join(work, 'truth-%s.json' % end)))
    tw = {'full': None, '512': t['twins']['512'], '256': t['twins']['256']}
    print('== %s (%s end)' % (name, end))
    row = '  %-34s' + ' %18s' * 3
    print(row % (('',) + tuple(c for c, _ in COLUMNS)))
    print(row % (('operations (answered/unanswered)',) + tuple(
        '%d (%d/%d)' % (r['totals']['ops'], r['totals']['answered'],
                        r['totals']['unanswered']) for r, _ in reps.values())))
    procs = sorted({p['procedure'] for r, _ in reps.values() for p in r['procedures']} |
                   set(t['ops'].values()))
    for proc in procs:
        calls = [{p['procedure']: p['calls'] for p in r['procedures']}.get(proc, 0)
                 for r, _ in reps.values()]
        real = sum(1 for p in t['ops'].values() if p == proc)
        seen = [tw[c]['seen_ops'].get(proc, 0) if tw[c] else real for c, _ in COLUMNS]
        print(row % (('%s  (truth %d)' % (proc, real),) +
                     tuple('%d  (seen %d)' % cs for cs in zip(calls, seen))))
    print(row % (('truth: hidden calls / replies',) + tuple(
        '%d / %d' % (tw[c]['hidden_calls'], tw[c]['hidden_replies']) if tw[c] else '0 / 0'
        for c, _ in COLUMNS)))
    print(row % (('nfscope: complete',) + tuple(str(r['complete'])
                                                 for r, _ in reps.values())))
    for op, key in (('READ', 'read_sizes'), ('WRITE', 'write_sizes')):
        for col, (r, _) in reps.items():
            print('  %-6s sizes %-5s %s' % (op, col, shares(r, key)))
    for col, (_, text) in reps.items():
        print('  report %s says first:' % col)
        for ln in first_lines(text):
            print('    ' + ln)
    print()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('work')
    ap.add_argument('scenario', nargs='*')
    ap.add_argument('--end', default='client', choices=('client', 'server'))
    a = ap.parse_args()
    names = a.scenario or sorted(n for n in os.listdir(a.work) if n.startswith('pipe'))
    for n in names:
        table(n, os.path.join(a.work, n), a.end)
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
