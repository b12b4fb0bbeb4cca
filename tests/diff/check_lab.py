#!/usr/bin/env python3
"""`nfscope diff` on the bundled lab captures (issue 20, README's
example): one workload under two configurations, checked against what
the lab configured and the lab client's own record
(pcaps/diff-lab.truth.json, no nfscope figure in it).

  diff-8k.pcap -> diff-32k.pcap:  the export capped at 8k, then at 32k:
      the READ/WRITE sizes really used (the client's record) and the
      verdict's "32k READs (was 8k)"
  diff-udp.pcap -> diff-tcp.pcap: the same workload over UDP, then TCP:
      the verdict's "TCP (was UDP)"
and every procedure's calls on both sides equal the client's count.

usage: check_lab.py NFSCOPE PCAPS_DIR
"""
import json
import os
import subprocess
import sys


def main():
    nfscope, pcaps = sys.argv[1:3]
    truth = json.load(open(os.path.join(pcaps, 'diff-lab.truth.json')))
    fails, n = [], 0
    for a, b, words in (('diff-8k.pcap', 'diff-32k.pcap',
                         ['32k READs (was 8k)', '32k WRITEs (was 8k)']),
                        ('diff-udp.pcap', 'diff-tcp.pcap',
                         ['after: TCP (was UDP)'])):
        r = subprocess.run([nfscope, 'diff', '--json', os.path.join(pcaps, a),
                            os.path.join(pcaps, b)], capture_output=True,
                           text=True)
        if r.returncode != 0:
            sys.exit('diff %s %s: exit %d: %s' % (a, b, r.returncode, r.stderr))
        d = json.loads(r.stdout)
        ta, tb = truth['captures'][a], truth['captures'][b]
        procs = {p['procedure']: p for p in d['procedures']}
        for side, t in (('a', ta), ('b', tb)):
            for name, calls in t['procedures'].items():
                n += 1
                got = procs.get(name, {}).get(side, {}).get('calls')
                if got != calls:
                    fails.append('%s %s calls: nfscope %r, lab %r' %
                                 (t['scenario'], name, got, calls))
            for op in ('read', 'write'):
                sizes = {int(k): v for k, v in t[op + '_sizes'].items()}
                want = max(sorted(sizes), key=lambda s: sizes[s])
                n += 1
                if d[op + '_sizes']['dominant_' + side] != want:
                    fails.append('%s %s size: nfscope %r, lab %r' %
                                 (t['scenario'], op,
                                  d[op + '_sizes']['dominant_' + side], want))
            # the transport the lab ran is the one diff reports
            n += 1
            udp = d[side]['udp_msgs'] > d[side]['tcp_msgs']
            if udp != (t['proto'] == 'udp'):
                fails.append('%s transport: nfscope udp=%r, lab %s' %
                             (t['scenario'], udp, t['proto']))
        # the caps the lab set are the sizes used (cap8k: 8192, cap32k: 32768)
        n += 1
        if ta['caps'][0] != tb['caps'][0] and \
                (d['read_sizes']['dominant_a'], d['read_sizes']['dominant_b']) \
                != (ta['caps'][0], tb['caps'][0]):
            fails.append('READ sizes are not the caps %r, %r' %
                         (ta['caps'][0], tb['caps'][0]))
        for w in words:
            n += 1
            if w not in d['verdict']:
                fails.append('%s -> %s: verdict %r lacks %r' %
                             (a, b, d['verdict'], w))
    for f in fails:
        print('FAIL', f)
    print('%d checks, %d failed' % (n, len(fails)))
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
