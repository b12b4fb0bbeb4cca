#!/usr/bin/env python3
"""Compare `nfscope report --json` per-procedure figures with tshark -z rpc,srt.

usage: srt_compare.py NFSCOPE CAPTURE SRT_REFERENCE EXPECTED_DIFFS [CACHE_DIR]

For every procedure in tshark's SRT tables: the number of answered calls and
min/max/avg service response time must equal nfscope's (answered ops; latency
from the first transmission), to the microsecond.  tshark prints seconds with
6 decimals; nfscope's exact nanosecond min/max/sum are rounded the same way.

EXPECTED_DIFFS lists known differences, one per line:
    PROG VERS PROC FIELD  reason (frames ...)
FIELD is calls, min, max, avg or '*'.  Lines starting with '#' are comments.
A listed difference that does not occur is reported but does not fail.
A .bz2 capture is decompressed into CACHE_DIR (or $NFSCOPE_PCAP_CACHE).
"""
import bz2
import json
import os
import re
import shutil
import subprocess
import sys

PROGS = {'portmap': 100000, 'nfs': 100003, 'mount': 100005, 'nlm': 100021,
         'stat': 100024, 'nfsacl': 100227}


def parse_srt(path):
    out = {}
    prog = vers = None
    for line in open(path):
        m = re.match(r'Filter: (\w+)\.procedure_v(\d+)', line)
        if m:
            prog = PROGS.get(m.group(1))
            vers = int(m.group(2))
            continue
        if line.startswith('Filter:'):
            prog = None
            continue
        m = re.match(r'\s*(\d+)\s+(\S+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)', line)
        if m and prog is not None:
            out[(prog, vers, int(m.group(1)))] = {
                'name': m.group(2), 'calls': int(m.group(3)),
                'min': m.group(4), 'max': m.group(5), 'avg': m.group(6)}
    return out


def sec6(ns):
    # round half up to the microsecond, as printed by tshark (%.6f)
    return '%d.%06d' % divmod((int(ns) + 500) // 1000, 1000000)


def load_expected(path):
    exp = {}
    if path and os.path.exists(path):
        for line in open(path):
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            f = line.split(None, 4)
            exp[(int(f[0]), int(f[1]), int(f[2]), f[3])] = f[4] if len(f) > 4 else ''
    return exp


def capture_path(cap, cache):
    if not cap.endswith('.bz2'):
        return cap
    os.makedirs(cache, exist_ok=True)
    dst = os.path.join(cache, os.path.basename(cap)[:-4])
    if not os.path.exists(dst):
        with bz2.open(cap) as i, open(dst + '.tmp', 'wb') as o:
            shutil.copyfileobj(i, o)
        os.rename(dst + '.tmp', dst)
    return dst


def compound(procs):
    """NFSv4: nfscope's rows are per main operation (every proc but NULL
    is a COMPOUND), tshark's one COMPOUND row: their latencies merged."""
    lat = {'count': 0, 'min_ns': None, 'max_ns': 0, 'sum_ns': 0}
    for p in procs:
        if p['prog'] != 100003 or p['vers'] != 4 or p['proc'] == 0:
            continue
        lt = p['latency_ms']
        if not lt or not lt['count']:
            continue
        lat['count'] += lt['count']
        lat['sum_ns'] += lt['sum_ns']
        lat['max_ns'] = max(lat['max_ns'], lt['max_ns'])
        lat['min_ns'] = lt['min_ns'] if lat['min_ns'] is None else \
            min(lat['min_ns'], lt['min_ns'])
    return {'latency_ms': lat}


def main():
    nfscope, cap, ref, expf = sys.argv[1:5]
    cache = sys.argv[5] if len(sys.argv) > 5 else os.environ.get(
        'NFSCOPE_PCAP_CACHE', '/tmp/nfscope-pcap-cache')
    srt = parse_srt(ref)
    exp = load_expected(expf)
    res = subprocess.run([nfscope, 'report', '--json', '-r', capture_path(cap, cache)],
                         stdout=subprocess.PIPE, check=True)
    rep = json.loads(res.stdout)
    ours = {(p['prog'], p['vers'], p['proc']): p for p in rep['procedures']}
    ours[(100003, 4, 1)] = compound(rep['procedures'])
    bad = 0
    seen = set()
    for key, t in sorted(srt.items()):
        p = ours.get(key)
        lat = p['latency_ms'] if p else {'count': 0}
        got = {'calls': lat['count']}
        if lat['count']:
            got['min'] = sec6(lat['min_ns'])
            got['max'] = sec6(lat['max_ns'])
            got['avg'] = sec6(round(lat['sum_ns'] / lat['count']))
        for field in ('calls', 'min', 'max', 'avg'):
            want = t[field]
            have = got.get(field)
            if field != 'calls' and have is not None:
                # tshark's avg is its sum (in ns) / calls printed %.6f:
                # allow the 1 us of its rounding
                ok = abs(float(have) - float(want)) <= (1.0000001e-6 if field == 'avg' else 0)
            else:
                ok = have == want
            if ok:
                continue
            why = exp.get(key + (field,)) or exp.get(key + ('*',))
            tag = 'expected' if why is not None else 'MISMATCH'
            if why is None:
                bad += 1
            else:
                seen.add(key + (field,) if key + (field,) in exp else key + ('*',))
            print('%s %s %d/%d/%d %s: tshark %s nfscope %s%s' % (
                tag, t['name'], key[0], key[1], key[2], field, want, have,
                (' (' + why + ')') if why else ''))
    for k in exp:
        if k not in seen:
            print('note: listed difference did not occur: %s' % (k,))
    print('%d procedures compared, %d unexplained differences' % (len(srt), bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
