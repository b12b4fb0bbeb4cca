#!/usr/bin/env python3
"""Golden test: the RPC messages nfscope finds in a public capture, against
tshark 4.0's view of the same capture (../shared/pcaps/reference/tshark).

Each side is reduced to a set of (frame, xid, call|reply, prog, vers, proc).
The test passes when the symmetric difference equals the expected one in
tests/golden/expected/NAME.diff, where every line says why the two tools
disagree.  A line is either one disagreement
    SIDE frame=F xid=X TYPE PROG/VERS/PROC SPORT>DPORT # reason
or a rule covering exactly N of them, by port and/or frames:
    SIDE [port=P] [frames=A-B,C,...] count=N # reason
With --update the current disagreements are printed, to be explained by hand.

usage: golden.py NFSCOPE CAPTURE REFERENCE_TSV EXPECTED_DIFF [--update]
"""
import bz2
import json
import os
import shutil
import subprocess
import sys
import tempfile


# tshark field -> how to find the same value in nfscope's JSON message
FIELDS = {
    'rpc.replystat': lambda m: m.get('reply_stat'),
    'rpc.state_accept': lambda m: m.get('accept_stat'),
    'nfs.status': lambda m: m.get('res', {}).get('status') if m.get('prog') == 100003 else None,
    'nfs.count3': lambda m: (m.get('args') or m.get('res') or {}).get('count')
    if m.get('prog') == 100003 and m.get('vers') == 3 else None,
    'nfs.write.stable': lambda m: m.get('args', {}).get('stable'),
    'nfs.write.committed': lambda m: m.get('res', {}).get('committed'),
    'nfs.fsinfo.rtmax': lambda m: m.get('res', {}).get('fsinfo', {}).get('rtmax'),
    'nfs.fsinfo.rtpref': lambda m: m.get('res', {}).get('fsinfo', {}).get('rtpref'),
    'nfs.fsinfo.wtmax': lambda m: m.get('res', {}).get('fsinfo', {}).get('wtmax'),
    'nfs.fsinfo.wtpref': lambda m: m.get('res', {}).get('fsinfo', {}).get('wtpref'),
}
TSHARK_FIELDS = {}   # (frame, xid, type) -> {field: value}, one-message frames


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
            if n == 1:
                vals = {}
                for fld in FIELDS:
                    v = c[col[fld]] if fld in col else ''
                    if v and ',' not in v:
                        vals[fld] = int(v, 0)
                TSHARK_FIELDS[(frame, int(xids[0], 16),
                               'call' if typ[0] == '0' else 'reply')] = vals
            sport = c[col['tcp.srcport']] or c[col['udp.srcport']]
            dport = c[col['tcp.dstport']] or c[col['udp.dstport']]
            for i in range(n):
                def pick(lst):
                    if len(lst) == n:
                        return lst[i]
                    if n == 1 and lst:
                        return lst[0]
                    return '?'
                t = 'call' if pick(typ) == '0' else 'reply'
                out.add((frame, int(xids[i], 16), t, pick(prog), pick(vers), pick(proc),
                         int(sport.split(',')[0] or 0), int(dport.split(',')[0] or 0)))
    return out


NFSCOPE_MSGS = {}    # (frame, xid, type) -> [messages]


def field_diffs():
    """Fields tshark and nfscope both decoded for a message, that differ."""
    out, compared = [], 0
    for k, vals in TSHARK_FIELDS.items():
        ms = NFSCOPE_MSGS.get(k)
        if not ms or len(ms) != 1:
            continue
        for fld, v in vals.items():
            got = FIELDS[fld](ms[0])
            if got is None:
                continue
            compared += 1
            if got != v:
                out.append('field frame=%d xid=0x%08x %s %s tshark=%d nfscope=%d' % (
                    k[0], k[1], k[2], fld, v, got))
    return out, compared


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
        NFSCOPE_MSGS.setdefault((m['frame'], m['xid'], m['type']), []).append(m)
        prog = str(m['prog']) if 'prog' in m else '?'
        vers = str(m['vers']) if 'vers' in m else '?'
        proc = str(m['proc']) if 'proc' in m else '?'
        # NFSv4 / its callbacks: nfscope names a COMPOUND by its main
        # operation (doc/nfs4.md), tshark's procedure is COMPOUND (1)
        if (m.get('prog'), m.get('vers')) in ((100003, 4), (0x40000000, 1)) \
                and proc not in ('0', '?'):
            proc = '1'
        out.add((m['frame'], m['xid'], m['type'], prog, vers, proc,
                 m['sport'], m['dport']))
    return out


def fmt(side, t):
    return '%s frame=%d xid=0x%08x %s %s/%s/%s %d>%d' % ((side,) + t)


def parse_frames(spec):
    out = []
    for part in spec.split(','):
        lo, _, hi = part.partition('-')
        out.append((int(lo), int(hi or lo)))
    return out


def rule_covers(r, side, frame, ports):
    if r['side'] != side:
        return False
    if r['port'] is not None and r['port'] not in ports:
        return False
    if r['frames'] is not None and not any(lo <= frame <= hi for lo, hi in r['frames']):
        return False
    return True


def main():
    args = [a for a in sys.argv[1:] if a != '--update']
    update = '--update' in sys.argv
    nfscope, capture, tsv, expected = args
    ts = tshark_set(tsv)
    ns = nfscope_set(nfscope, capture)
    fdiff, fcompared = field_diffs()
    diff = sorted([fmt('only-nfscope', t) for t in ns - ts] +
                  [fmt('only-tshark', t) for t in ts - ns] + fdiff,
                  key=lambda s: (int(s.split('frame=')[1].split()[0]), s))
    want = {}     # exact line -> reason
    rules = []    # {side, port, frames, count, why, seen}
    if os.path.exists(expected):
        with open(expected) as f:
            for line in f:
                line = line.rstrip('\n')
                if not line or line.startswith('#'):
                    continue
                body, _, why = line.partition(' # ')
                body, why = body.strip(), why.strip()
                words = body.split()
                if any(w.startswith('count=') for w in words):
                    r = {'side': words[0], 'port': None, 'frames': None,
                         'count': None, 'why': why, 'seen': 0}
                    for w in words[1:]:
                        k, _, v = w.partition('=')
                        if k == 'port':
                            r['port'] = int(v)
                        elif k == 'frames':
                            r['frames'] = parse_frames(v)
                        elif k == 'count':
                            r['count'] = int(v)
                    rules.append(r)
                else:
                    want[body] = why
    if update:
        print('\n'.join(diff))
        return 0
    bad = 0
    for d in diff:
        if d in want:
            continue
        w = d.split()
        side, frame = w[0], int(w[1].split('=')[1])
        ports = [int(x) for x in w[-1].split('>')] if '>' in w[-1] else []
        for r in rules:
            if rule_covers(r, side, frame, ports):
                r['seen'] += 1
                break
        else:
            print('UNEXPECTED', d)
            bad += 1
    for d in sorted(set(want) - set(diff)):
        print('MISSING (expected disagreement did not happen)', d)
        bad += 1
    for r in rules:
        if r['seen'] != r['count']:
            print('RULE %s port=%s frames=%s: expected %d disagreements, got %d' % (
                r['side'], r['port'], r['frames'], r['count'], r['seen']))
            bad += 1
    for why in list(want.values()) + [r['why'] for r in rules]:
        if not why:
            print('NO REASON given for an expected disagreement')
            bad += 1
    agree = len(ns & ts)
    print('%s: %d messages agree, %d nfscope-only, %d tshark-only, %d of %d fields differ, %d problems' % (
        os.path.basename(capture), agree, len(ns - ts), len(ts - ns), len(fdiff), fcompared, bad))
    if agree == 0 and ts:
        print('nothing agrees: refusing to pass')
        bad += 1
    print('%d passed, %d failed' % (1 if bad == 0 else 0, 1 if bad else 0))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
