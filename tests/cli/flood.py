#!/usr/bin/env python3
"""Memory stays within the budgets under floods, and evictions are counted.

Three generator captures, each far beyond a small budget:
  xid    60000 calls never answered, all outstanding at once (1 client)
  flows  3000 TCP connections (6000 directions)
  frags  3000 32 KiB UDP READ/WRITE messages, each missing one IP fragment

For each, peak RSS (wait4's ru_maxrss) of nfscope with small budgets must
stay under   base + the budgets' cost + slack,   where base is the same
command's peak RSS on a 128-packet capture and the cost per entry is the
documented upper bound (doc/bench.md, Budgets).  Evictions must match what the
generator's own record implies.  A control run with budgets 32 times larger
must exceed the xid and frags bounds: the bound would catch a budget that is
not enforced.

Under a sanitizer (5th argument other than 'none') memory is the
sanitizer's (shadow, quarantine of freed blocks): only evictions are checked.

usage: flood.py NFSCOPE NFSGEN SAMPLE_PCAP WORKDIR [B_SANITIZE]
"""
import json
import os
import re
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
import tally  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pcapw import tcp_frame, write_pcap  # noqa: E402

NFSCOPE, NFSGEN, SAMPLE, WORK = sys.argv[1:5]
RSS = len(sys.argv) < 6 or sys.argv[5] == 'none'
KIB = 1024
README = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..',
                      'doc', 'bench.md')


def readme_costs(path=README):
    """doc/bench.md's Budgets table: {option: [bytes, ...]}, every size in
    the 'memory per unit' column in order ('0.75 KB' = 750)."""
    costs = {}
    with open(path) as f:
        for line in f:
            m = re.match(r'\| `(--[a-z-]+)[^|]*\|[^|]*\|[^|]*\|([^|]*)\|\s*$',
                         line)
            if m:
                costs[m.group(1)] = [
                    round(float(v) * (1000 if u == 'KB' else 1))
                    for v, u in re.findall(r'([0-9.]+) (KB|B)\b', m.group(2))]
    return costs


# documented upper bounds of memory per budget unit (bytes), doc/bench.md
COSTS = readme_costs()
XID_ENTRY = COSTS['--xid-max'][0]     # analysis: pending call
DEC_ENTRY = COSTS['--dec-xid-max'][0]  # decoder: remembered call
FLOW_ENTRY = COSTS['--flows-max'][0]   # TCP flow direction (no record buffer)
PARTIAL_BUF = COSTS['--flows-max'][1]  # record buffer of a short partial record
NAME_ENTRY = COSTS['--names-max'][0]   # a handle's learned name
OOO_SEG = 64          # header of a held out-of-order segment (with malloc's)
# allocator and stdio, independent of the budgets, and what a long run
# touches that the 128-packet base does not.  3 MiB until 2026-12-07, when
# the fragment flood (a 256 KiB budget) sat 2.8 to 3.1 MiB above its base
# with the binary before the pcap reader's thread and with it alike, under
# MALLOC_PERTURB_ (CI failed it once at 3.4)
SLACK = 4 * 1024 * KIB


def check(cond, what, rss=False):
    """tally.check; a memory bound only where RSS can be measured."""
    if not rss or RSS:
        tally.check(cond, what)


# ru_maxrss counts a child's memory before exec too, and a fork (or vfork)
# of this script holds the truth files it has read: measure through a small
# fresh interpreter that only spawns nfscope and reports wait4's figure.
WRAP = """import os, sys
pid = os.posix_spawn(sys.argv[2], sys.argv[2:], os.environ)
_, st, ru = os.wait4(pid, 0)
open(sys.argv[1], 'w').write('%d %d' % (ru.ru_maxrss, os.waitstatus_to_exitcode(st)))
"""


def peak(args):
    """(peak RSS in bytes, stdout) of one nfscope run."""
    res = os.path.join(WORK, 'rss')
    p = subprocess.run([sys.executable, '-c', WRAP, res, NFSCOPE] + args,
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    with open(res) as f:
        rss, rc = map(int, f.read().split())
    check(rc == 0, 'nfscope %s: exit %s' % (' '.join(args), rc))
    return rss * KIB, p.stdout.decode()


def gen(name, *args):
    pcap = os.path.join(WORK, name + '.pcap')
    subprocess.run([NFSGEN, '-o', pcap, '--seed', '3'] + list(args),
                   check=True, capture_output=True)
    return pcap


def truth_lines(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


def bounded(cmd, pcap, budgets, cost, what):
    base, _ = peak(cmd + ['-r', SAMPLE] + budgets)
    rss, out = peak(cmd + ['-r', pcap] + budgets)
    bound = base + cost + SLACK
    check(rss <= bound, '%s: peak RSS %d KiB over the bound %d KiB (base %d KiB '
          '+ budgets %d KiB + slack)' % (what, rss // KIB, bound // KIB,
                                          base // KIB, cost // KIB), rss=True)
    print('%s: peak RSS %d KiB, bound %d KiB' % (what, rss // KIB, bound // KIB))
    return out, bound


def flood_xid():
    n = 60000
    ops = os.path.join(WORK, 'xid.ops')
    pcap = gen('xid', '--scenario', 'mixed', '--unanswered', '1', '--count',
               str(n), '--rate', '1000000', '--size', '1024', '--transport',
               'udp', '--clients', '1', '--servers', '1', '--ops-truth', ops)
    truth = truth_lines(ops)
    check(len(truth) == n and not any(o['answered'] for o in truth),
          'generator: %d unanswered calls' % n)
    xid_max, dec_max = 1024, 1024
    budgets = ['--xid-max', str(xid_max), '--dec-xid-max', str(dec_max)]
    cost = xid_max * XID_ENTRY + dec_max * DEC_ENTRY
    out, bound = bounded(['report', '--json'], pcap, budgets, cost, 'xid flood')
    rep = json.loads(out)
    e, d = rep['engine'], rep['decode']
    check(e['ops'] == n, 'every call is an op: %d of %d' % (e['ops'], n))
    # at most xid_max are held: the rest were evicted, the held flushed at end
    check(e['evicted'] == n - e['unanswered_at_end'] and
          e['unanswered_at_end'] <= xid_max and e['xid_peak'] <= xid_max,
          'engine evictions %d, at end %d, peak %d (budget %d)' % (
              e['evicted'], e['unanswered_at_end'], e['xid_peak'], xid_max))
    check(d['xid_evictions'] >= n - dec_max,
          'decoder evictions %d >= %d' % (d['xid_evictions'], n - dec_max))
    check(rep['complete'] is False and rep['incomplete']['evictions'] >=
          e['evicted'] + d['xid_evictions'], 'report says incomplete (evictions)')
    text = subprocess.run([NFSCOPE, 'report', '-r', pcap] + budgets,
                          capture_output=True, text=True).stdout
    check('INCOMPLETE: %d entries evicted' % rep['incomplete']['evictions'] in text,
          'text report says INCOMPLETE with the evictions')
    big = ['--xid-max', str(32 * xid_max), '--dec-xid-max', str(32 * dec_max)]
    rss, _ = peak(['report', '--json', '-r', pcap] + big)
    check(rss > bound, 'control: 32x the xid budget must exceed the bound '
          '(%d KiB <= %d KiB: the test could not fail)' % (rss // KIB, bound // KIB),
          rss=True)


def answered_not_evicted():
    """Answered calls pushed out of a small decoder table lose nothing (they
    stay only for duplicate replies): no eviction, the report complete."""
    ops = os.path.join(WORK, 'answered.truth')
    n = 6000
    pcap = gen('answered', '--scenario', 'mixed', '--count', str(n), '--rate',
               '1000000', '--transport', 'udp', '--clients', '1', '--servers',
               '1', '--ops-truth', ops)
    truth = truth_lines(ops)
    check(len(truth) == n and all(o['answered'] for o in truth),
          'generator: %d answered calls' % n)
    out = subprocess.run([NFSCOPE, 'report', '--json', '-r', pcap,
                          '--dec-xid-max', '1024'], capture_output=True,
                         text=True).stdout
    rep = json.loads(out)
    check(rep['engine']['answered'] == n, 'every call answered: %d' %
          rep['engine']['answered'])
    check(rep['decode']['xid_evictions'] == 0 and rep['complete'] is True,
          'answered entries reused: evictions %d, complete %s' % (
              rep['decode']['xid_evictions'], rep['complete']))


def flood_flows():
    truth = os.path.join(WORK, 'flows.truth')
    pcap = gen('flows', '--transport', 'tcp', '--clients', '3000', '--servers',
               '1', '--mix', 'meta', '--count', '12000', '--acks', '0', '-t', truth)
    dirs = {(m['src'], m['sport'], m['dst'], m['dport'])
            for m in truth_lines(truth) if m.get('proto') == 'tcp'}
    flows_max = 256
    out, _ = bounded(['dump', '--json'], pcap, ['--flows-max', str(flows_max)],
                     flows_max * FLOW_ENTRY, 'flow flood')
    s = [json.loads(l)['summary'] for l in out.splitlines() if '"summary"' in l][0]
    check(len(dirs) > 20 * flows_max, 'generator: %d TCP directions' % len(dirs))
    check(s['flows_evicted'] >= len(dirs) - flows_max,
          'flows evicted %d >= %d directions - budget %d' % (
              s['flows_evicted'], len(dirs), flows_max))


def flood_frags():
    truth = os.path.join(WORK, 'frag.truth')
    pcap = gen('frag', '--transport', 'udp', '--clients', '2', '--servers', '1',
               '--mix', 'data', '--count', '3000', '--lost-frags', '1', '-t', truth)
    lost = sum(1 for m in truth_lines(truth) if m.get('lost'))
    mem = 256 * KIB
    out, bound = bounded(['dump', '--json'], pcap, ['--frag-mem', str(mem)], mem,
                         'fragment flood')
    s = [json.loads(l)['summary'] for l in out.splitlines() if '"summary"' in l][0]
    check(lost > 1000, 'generator: %d messages lost a fragment' % lost)
    check(s['ipfrag_incomplete'] >= lost and s['ipfrag_evicted'] > 0,
          'incomplete trains %d >= %d lost, evicted %d > 0' % (
              s['ipfrag_incomplete'], lost, s['ipfrag_evicted']))
    rss, _ = peak(['dump', '--json', '-r', pcap, '--frag-mem', str(32 * mem)])
    check(rss > bound, 'control: 32x the fragment budget must exceed the bound '
          '(%d KiB <= %d KiB)' % (rss // KIB, bound // KIB), rss=True)


def flood_ooo():
    """100 TCP directions (SYN seen), each 400 KB out of order behind a hole
    never filled and never acknowledged (under the 1 MiB per flow): 40 MB
    held without an overall cap.  --tcp-mem 4m bounds them all."""
    nflows, nseg, mss = 100, 280, 1460
    cl, sv = (10, 1, 0, 1), (10, 1, 0, 2)
    pcap = os.path.join(WORK, 'ooo.pcap')

    def frames():
        for k in range(nflows):
            yield tcp_frame(cl, 1000 + k, sv, 2049, 1000, 0x02, b'')
        for j in range(nseg):	# the first segment (seq 1001) is the hole
            for k in range(nflows):
                yield tcp_frame(cl, 1000 + k, sv, 2049,
                                1001 + (j + 1) * mss, 0x10, bytes(mss))
    write_pcap(pcap, frames(), usec_step=10)
    mem = 4 * 1024 * KIB
    held = nflows * nseg * mss
    out, bound = bounded(['dump', '--json'], pcap, ['--tcp-mem', str(mem)],
                         mem + nflows * FLOW_ENTRY, 'TCP out-of-order flood')
    s = [json.loads(l)['summary'] for l in out.splitlines() if '"summary"' in l][0]
    check(s['tcp_mem_evicted'] > 0 and s['tcp_gaps'] >= s['tcp_mem_evicted'],
          'holes declared lost for --tcp-mem are counted: %d (gaps %d)' % (
              s['tcp_mem_evicted'], s['tcp_gaps']))
    rss, _ = peak(['dump', '--json', '-r', pcap, '--tcp-mem', '1g'])
    check(rss > bound + held // 2, 'control: without the cap the %d KB held '
          'show (%d KiB <= %d KiB)' % (held // 1000, rss // KIB,
                                       (bound + held // 2) // KIB), rss=True)
    # the default: 8 MiB for all flows
    rss, _ = peak(['dump', '--json', '-r', pcap])
    print('TCP out-of-order flood: default budgets, peak RSS %d KiB' % (rss // KIB))


def flood_partial():
    """20,000 TCP directions (SYN seen) each holding a short partial record
    (200 bytes of a 2000-byte record): the README's per-flow cost, flow and
    record buffer, is what they take."""
    nflows = 20000
    cl, sv = (10, 2, 0, 1), (10, 2, 0, 2)
    pcap = os.path.join(WORK, 'partial.pcap')
    part = struct.pack('>I', 0x80000000 | 2000) + bytes(196)

    def frames():
        for k in range(nflows):
            a = (10, 2, k >> 8, k & 255)
            yield tcp_frame(a, 1000, sv, 2049, 1000, 0x02, b'')
            yield tcp_frame(a, 1000, sv, 2049, 1001, 0x18, part)
    write_pcap(pcap, frames(), usec_step=10)
    per = FLOW_ENTRY + PARTIAL_BUF
    # more directions than the default --flows-max (8192): room for all
    out, _ = bounded(['dump', '--json'], pcap, ['--flows-max', '32768'],
                     nflows * per,
                     'partial record flood (%d B a flow)' % per)
    s = [json.loads(l)['summary'] for l in out.splitlines() if '"summary"' in l][0]
    check(s['flows_evicted'] == 0 and s['tcp_mem_evicted'] == 0,
          'partial records: nothing evicted: %s' % s)


def main():
    os.makedirs(WORK, exist_ok=True)
    if not RSS:
        print('sanitizer build: peak RSS not checked, evictions are')
    flood_xid()
    answered_not_evicted()
    flood_flows()
    flood_frags()
    flood_ooo()
    flood_partial()
    for f in os.listdir(WORK):
        os.unlink(os.path.join(WORK, f))
    return tally.summary()


if __name__ == '__main__':
    sys.exit(main())
