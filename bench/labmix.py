#!/usr/bin/env python3
"""labmix.py - make the lab's real mix for the benchmarks (issue 18): one
tests/lab lab (nfs-ganesha in a namespace, a veth link: tapfwd would be the
bottleneck), six labclients at once against it, each its own workload
(issue 34: at least as large and as mixed as the 2.06 M frame, 838k
operation mix the issue measured):

  1 GETATTR storm over TCP         (getattr:S, a tight loop)
  2 GETATTR storm over UDP         (getattr:S)
  3 LOOKUP storm over TCP          (lookup:S, one name again and again)
  4 small-file churn over TCP      (mixed: CREATE, WRITE, COMMIT, READ,
                                    LOOKUP, READDIRPLUS, REMOVE, ...)
  5 32 KiB bulk READ/WRITE, TCP    (pipe:8 MiB: WRITEs then READs of a
                                    new file, 2 in flight; a second's
                                    pause between files)
  6 rewrite + COMMIT loop, TCP     (rewrite: 4 KiB WRITE + COMMIT)

tcpdump takes whole frames (-s 1600) at the client end (OUT) and, beside it, a
-s 256 twin (OUT with -256 before .pcap).  The clients stop once the
client's interface has seen PACKETS frames (default 2,200,000) or after
MAX_S seconds (default 300).  Needs root.  Not deterministic (real
peers on a shared machine): the capture is made once and cached by
captures.sh.

usage: labmix.py --labclient BIN --out PCAP [--packets N] [--max-seconds S]
Exit 0 made, 1 failed, 77 no privilege.
"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'tests', 'lab'))
import labnet  # noqa: E402

M = 1048576
# Whole frames: the link's MTU is 1500 and its offloads are off (labnet),
# so no frame is longer than 1514 bytes.  -s 0 (262144) would make
# libpcap's ring blocks 256 KiB frames each: at this rate on a loaded
# machine tcpdump then dropped 7% of the frames even with -B 256 MiB.
WHOLE = 1600
# (name, proto, rsize/wsize, phases): each lasts longer than the run
# (labclient takes at most 16 phases; two clients of one
# workload would make the same file names in the one export)
CLIENTS = [
    ('getattr-tcp', 'tcp', 32768, ['getattr:3600']),
    ('getattr-udp', 'udp', 8192, ['getattr:3600']),
    ('lookup-tcp', 'tcp', 32768, ['lookup:3600']),
    ('churn', 'tcp', 32768, ['mixed:1000000']),
    # --depth 2; 8 MiB files with a pause between them (the last one long)
    ('bulk', 'tcp', 32768, ['pipe:8388608', 'sleep:1'] * 7 + ['pipe:8388608', 'sleep:3600']),
    ('rewrite', 'tcp', 4096, ['rewrite:100000000']),
]


def iface_packets(ns):
    """Frames received plus sent on the lab interface in namespace ns."""
    out = labnet.sh('cat', '/sys/class/net/%s/statistics/rx_packets' % labnet.IFACE,
                    '/sys/class/net/%s/statistics/tx_packets' % labnet.IFACE, ns=ns)
    return sum(int(x) for x in out.split())


def tcpdump(lab, snaplen, path):
    """labnet's tcpdump with a 256 MiB buffer (whole frames at 40 MB/s on a
    loaded machine overran 16 MiB), and neither --immediate-mode nor -U
    (a wake-up and a write(2) per frame: it dropped a fifth of the frames);
    the ring's blocks are handed over after at most a second, so the
    captures are stopped 1.5 s after the clients."""
    return lab.start('tcpdump', [
        'tcpdump', '-i', labnet.IFACE, '-s', snaplen, '-B', 262144, '-n',
        '--time-stamp-precision=nano', '-w', path],
        ns=lab.cns, stdout=subprocess.DEVNULL, stderr=open(path + '.log', 'w'))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--labclient', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--packets', type=int, default=2200000)
    ap.add_argument('--max-seconds', type=float, default=300)
    a = ap.parse_args()
    try:
        labnet.need_privilege()
    except labnet.Skip as e:
        print('labmix: skipped: %s' % e)
        return 77
    out = os.path.abspath(a.out)
    twin = out[:-5] + '-256.pcap' if out.endswith('.pcap') else out + '-256'
    work = tempfile.mkdtemp(prefix='nfscope-labmix.')
    # tcpdump writes into memory (/dev/shm when there is one): writing
    # 40 MB/s to a busy disk made it drop a quarter of the frames
    spool = tempfile.mkdtemp(prefix='nfscope-labmix.',
                             dir='/dev/shm' if os.path.isdir('/dev/shm') else None)
    parts = {f: os.path.join(spool, os.path.basename(f)) for f in (out, twin)}
    try:
        tools = {'labclient': os.path.abspath(a.labclient)}
        with labnet.Lab(os.path.join(work, 'lab'), tools, link='veth', caps=(M, M)) as lab:
            before = lab._packet_sockets(lab.cns)
            caps = [tcpdump(lab, WHOLE, parts[out]), tcpdump(lab, 256, parts[twin])]
            lab._wait_sockets(lab.cns, before + 2, caps)
            time.sleep(0.3)   # tcpdump's ring and filter follow its socket
            clients = []
            for i, (name, proto, size, phases) in enumerate(CLIENTS):
                cmd = ['ip', 'netns', 'exec', lab.cns, tools['labclient'],
                       '--server', labnet.SERVER_IP, '--export', lab.export, '--proto', proto,
                       '--timeo', '300', '--rsize', str(size), '--wsize', str(size),
                       '--seed', str(i + 1), '--depth', '2', '--out', os.path.join(work, name + '.json')]
                clients.append(lab.start(name, cmd + phases, stdout=subprocess.DEVNULL,
                                         stderr=open(os.path.join(work, name + '.log'), 'w')))
            t0, start = time.time(), iface_packets(lab.cns)
            while time.time() - t0 < a.max_seconds:
                n = iface_packets(lab.cns) - start
                if n >= a.packets:
                    break
                dead = [cl[0] for cl, c in zip(CLIENTS, clients) if c.poll() is not None]
                if dead:
                    raise RuntimeError('labclient %s exited early: see %s' % (dead, work))
                time.sleep(0.2)
            for c in clients:
                c.send_signal(signal.SIGTERM)
                c.wait()
            time.sleep(1.5)   # the last ring blocks reach both captures
            for c in caps:
                c.send_signal(signal.SIGINT)
                c.wait()
            secs = time.time() - t0
        for f in (out, twin):
            log = open(parts[f] + '.log').read()
            if not re.search(r'^0 packets dropped by kernel', log, re.M):
                raise RuntimeError('tcpdump dropped frames: %s' % log)
        for f in (out, twin):
            shutil.move(parts[f], f + '.part')
            os.rename(f + '.part', f)
    finally:
        subprocess.run(['rm', '-rf', work, spool])
    print('labmix: %d frames in %.1f s: %s, %s' % (n, secs, out, twin))
    return 0


if __name__ == '__main__':
    sys.exit(main())
