#!/usr/bin/env python3
"""Golden test: the RPC messages nfscope finds in a public capture, against
tshark 4.0's view of the same capture (../shared/pcaps/reference/tshark).

Each side is reduced to a set of (frame, xid, call|reply, prog, vers, proc).
The test passes when the symmetric difference equals the expected one in
tests/golden/expected/NAME.diff, where every line names the frame and says
why the two tools disagree.  With --update the expected file is written
(reasons must then be filled in by hand: the test refuses lines without one).

usage: golden.py NFSCOPE CAPTURE REFERENCE_TSV EXPECTED_DIFF [--update]
"""
import bz2
import json
import os
import shutil
import subprocess
import sys
import tempfile


def tshark_set(tsv):
    out = set()
    with open(tsv) as f:
        head = f.readline().rstrip('\n').split('\t')
        col = {n: i for i, n in enumerate(head)}
        for line in f:
            c = line.rstrip('\n').split('\t')
            if len(c) < len(head):
                c += [''] * (len(head) - len(c))
            xids = [x for x in c[col['rpc.xid']].split(',') if x]
            if not xids:
                continue
            n = len(xids)
            typ = c[col['rpc.msgtyp']].split(',')
            prog = c[col['rpc.program']].split(',') if c[col['rpc.program']] else []
            vers = c[col['rpc.programversion']].split(',') if c[col['rpc.programversion']] else []
            proc = c[col['rpc.procedure']].split(',') if c[col['rpc.procedure']] else []
            # tshark repeats rpc.programversion inside some bodies (NFS,
            # portmap GETADDR): with 2 values per message keep the first.
            if len(vers) == 2 * n:
                vers = vers[0::2]
            frame = int(c[col['frame.number']])
            for i in range(n):
                def pick(lst):
                    if len(lst) == n:
                        return lst[i]
                    if n == 1 and lst:
                        return lst[0]
                    return '?'
                t = 'call' if pick(typ) == '0' else 'reply'
                out.add((frame, int(xids[i], 16), t, pick(prog), pick(vers), pick(proc)))
    return out


def nfscope_set(nfscope, capture):
    tmp = None
    path = capture
    if capture.endswith('.bz2'):
        cache = os.environ.get('NFSCOPE_PCAP_CACHE') or tempfile.gettempdir()
        os.makedirs(cache, exist_ok=True)
        path = os.path.join(cache, os.path.basename(capture)[:-4])
        if not os.path.exists(path) or os.path.getsize(path) == 0:
            tmp = path + '.tmp%d' % os.getpid()
            with bz2.open(capture, 'rb') as src, open(tmp, 'wb') as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
            os.replace(tmp, path)
    p = subprocess.run([nfscope, 'dump', '--json', '-r', path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        sys.exit('nfscope failed (%d): %s' % (p.returncode, p.stderr.decode()))
    out = set()
    for line in p.stdout.decode().splitlines():
        m = json.loads(line)
        if 'summary' in m:
            continue
        prog = str(m['prog']) if 'prog' in m else '?'
        vers = str(m['vers']) if 'vers' in m else '?'
        proc = str(m['proc']) if 'proc' in m else '?'
        out.add((m['frame'], m['xid'], m['type'], prog, vers, proc))
    return out


def fmt(side, t):
    return '%s frame=%d xid=0x%08x %s %s/%s/%s' % ((side,) + t[:2] + t[2:])


def main():
    args = [a for a in sys.argv[1:] if a != '--update']
    update = '--update' in sys.argv
    nfscope, capture, tsv, expected = args
    ts = tshark_set(tsv)
    ns = nfscope_set(nfscope, capture)
    diff = sorted([fmt('only-nfscope', t) for t in ns - ts] +
                  [fmt('only-tshark', t) for t in ts - ns],
                  key=lambda s: (int(s.split('frame=')[1].split()[0]), s))
    want = {}     # exact line -> reason
    ranges = []   # (side, lo, hi, count, reason)
    if os.path.exists(expected):
        with open(expected) as f:
            for line in f:
                line = line.rstrip('\n')
                if not line or line.startswith('#'):
                    continue
                body, _, why = line.partition(' # ')
                body, why = body.strip(), why.strip()
                if ' frames=' in body:
                    side, fr, cnt = body.split()
                    lo, hi = fr.split('=')[1].split('-')
                    ranges.append([side, int(lo), int(hi), int(cnt.split('=')[1]), why, 0])
                else:
                    want[body] = why
    if update:
        with open(expected, 'w') as f:
            f.write('# nfscope vs tshark disagreements for %s\n' % os.path.basename(capture))
            f.write('# SIDE frame xid type prog/vers/proc # reason, or\n')
            f.write('# SIDE frames=FIRST-LAST count=N # reason (exactly N lines of SIDE in that range)\n')
            for r in ranges:
                f.write('%s frames=%d-%d count=%d # %s\n' % (r[0], r[1], r[2], r[3], r[4]))
            for d in diff:
                fr = int(d.split('frame=')[1].split()[0])
                if any(r[0] == d.split()[0] and r[1] <= fr <= r[2] for r in ranges):
                    continue
                f.write('%s # %s\n' % (d, want.get(d, '')))
        print('wrote', expected, len(diff), 'lines')
        return 0
    bad = 0
    for d in diff:
        if d in want:
            continue
        side = d.split()[0]
        fr = int(d.split('frame=')[1].split()[0])
        for r in ranges:
            if r[0] == side and r[1] <= fr <= r[2]:
                r[5] += 1
                break
        else:
            print('UNEXPECTED', d)
            bad += 1
    for d in sorted(set(want) - set(diff)):
        print('MISSING (expected disagreement did not happen)', d)
        bad += 1
    for r in ranges:
        if r[5] != r[3]:
            print('RANGE %s frames=%d-%d: expected %d disagreements, got %d' % (
                r[0], r[1], r[2], r[3], r[5]))
            bad += 1
    for why in list(want.values()) + [r[4] for r in ranges]:
        if not why:
            print('NO REASON given for an expected disagreement')
            bad += 1
    agree = len(ns & ts)
    print('%s: %d messages agree, %d nfscope-only, %d tshark-only, %d problems' % (
        os.path.basename(capture), agree, len(ns - ts), len(ts - ns), bad))
    if agree == 0 and ts:
        print('nothing agrees: refusing to pass')
        bad += 1
    print('%d passed, %d failed' % (1 if bad == 0 else 0, 1 if bad else 0))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
