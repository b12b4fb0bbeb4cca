#!/usr/bin/env python3
"""nfs4_cost.py NFSCOPE [BASE] [PAIRS]: NFSv4 against NFSv3, cost per packet.

`nfscope report` (capture, TCP reassembly, decode, analysis, report) over
nfstrace's NFSv4.0 capture (eth-ipv4-tcp-nfsv4: 45059 frames, mostly 64 KiB
WRITE COMPOUNDs) and its NFSv3 one (eth-ipv4-tcp-nfsv3: WRITE-heavy too),
both from ../shared/pcaps/public (decompressed into $BENCH_DIR or /tmp).
The two are timed as interleaved pairs (v3, v4, v3, v4 ...; best of PAIRS,
default 5, CPU time of the child: user + system) and the ratio of the
costs per packet printed.  BASE, a binary from before NFSv4 was decoded,
adds its cost on the v4 capture (what decoding v4 costs over skipping
it).  A run's fixed cost (a 1-frame capture) is taken off before dividing.  On a shared, loaded machine the numbers are noisy: read the ratios.
Exits 77 when the captures are not there."""
import bz2
import os
import resource
import subprocess
import sys

nfscope = sys.argv[1]
base = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else None
pairs = int(sys.argv[3]) if len(sys.argv) > 3 else 5
here = os.path.dirname(os.path.abspath(__file__))
pub = os.path.join(here, '..', '..', 'shared', 'pcaps', 'public')
work = os.environ.get('BENCH_DIR', '/tmp')
caps = {}
for v in ('nfsv3', 'nfsv4'):
    src = os.path.join(pub, 'epam_nfstrace__traces_eth-ipv4-tcp-%s.pcap.bz2' % v)
    if not os.path.exists(src):
        print('skip: %s not there' % src)
        sys.exit(77)
    dst = os.path.join(work, 'nfs4_cost_%s.pcap' % v)
    if not os.path.exists(dst):
        with bz2.open(src) as i, open(dst + '.tmp', 'wb') as o:
            o.write(i.read())
        os.rename(dst + '.tmp', dst)
    caps[v] = dst


def packets(path):
    out = subprocess.run([nfscope, 'report', '--json', '-r', path],
                         capture_output=True, text=True, check=True).stdout
    import json
    d = json.loads(out)
    return (d['capture']['packets'], d['decode']['rpc_messages'],
            d['capture']['bytes'])


def cpu(binary, path):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([binary, 'report', '-r', path], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + \
        (after.ru_stime - before.ru_stime)


npk = {v: packets(p) for v, p in caps.items()}
one = os.path.join(pub, 'epam_nfstrace__traces_1-packet.pcap')
best = {'v3': 1e9, 'v4': 1e9, 'base_v4': 1e9, 'fixed': 1e9}
for _ in range(pairs):
    # the fixed cost of a run (tables, threads, the report): a 1-frame
    # capture, taken off both
    best['fixed'] = min(best['fixed'], cpu(nfscope, one))
    best['v3'] = min(best['v3'], cpu(nfscope, caps['nfsv3']))
    best['v4'] = min(best['v4'], cpu(nfscope, caps['nfsv4']))
    if base:
        best['base_v4'] = min(best['base_v4'], cpu(base, caps['nfsv4']))
fx = best['fixed']
print('fixed cost of a run: %.1f ms CPU (taken off)' % (fx * 1e3))
per = {}
for v, k in (('nfsv3', 'v3'), ('nfsv4', 'v4')):
    t = (best[k] - fx) * 1e9
    n, msgs, nbytes = npk[v]
    per[k] = (t / n, t / msgs, t / nbytes * 1e6)
    print('%s capture: %d packets, %d RPC messages, %.0f MB: %.0f ns CPU '
          'per packet, %.0f per RPC message, %.0f per MB' %
          (v, n, msgs, nbytes / 1e6, per[k][0], per[k][1], per[k][2]))
print('v4 / v3 cost per packet %.2f, per RPC message %.2f, per MB %.2f '
      '(best of %d interleaved pairs)' %
      tuple([per['v4'][i] / per['v3'][i] for i in range(3)] + [pairs]))
v4 = per['v4'][0]
if base:
    b = (best['base_v4'] - fx) / npk['nfsv4'][0] * 1e9
    print('NFSv4 capture, binary before v4 decoding: %.0f ns per packet; '
          'decoding v4 costs %.2fx that' % (b, v4 / b))
