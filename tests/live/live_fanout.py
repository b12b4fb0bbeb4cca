#!/usr/bin/env python3
"""--fanout (issue 34): two `record -i --fanout G` workers of one
PACKET_FANOUT group on the receiving end of a veth pair in a network
namespace, a generator capture replayed onto the other end (UDP and TCP,
IPv4 and IPv6, 32 KiB READs in IP fragments, retransmissions, eight
clients and three servers):

  - each worker gets a share of the packets, and together every frame
    sent (ps_recv summed = the capture's frames);
  - no worker sees a reply whose call went to the other (the sharding
    is by host pair: 0 orphan replies in each);
  - `report A.db B.db` of the two databases counts the operations the
    generator's record lists.

Needs root, network namespaces and tcpreplay (exits 77 = skipped
without them).

usage: live_fanout.py NFSGEN NFSCOPE WORKDIR
"""
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
import testlib  # noqa: E402

NS = 'nffan-%d' % os.getpid()
GROUP = str(os.getpid() % 65535 + 1)


def sh(*args, **kw):
    return subprocess.run(['ip', 'netns', 'exec', NS] + list(args),
                          check=True, **kw)


def sockets():
    """Packet sockets open in the namespace."""
    out = sh('cat', '/proc/net/packet', capture_output=True, text=True).stdout
    return len(out.splitlines()) - 1


def run_workers(nfscope, pcap, work, pps):
    """Two workers record while pcap is replayed at pps; their databases."""
    dbs = [os.path.join(work, 'w%d.db' % k) for k in (1, 2)]
    procs = []
    for db in dbs:
        for suffix in ('', '-wal', '-shm'):
            if os.path.exists(db + suffix):
                os.remove(db + suffix)
        procs.append(subprocess.Popen(
            ['ip', 'netns', 'exec', NS, nfscope, 'record', '-i', 'fan1',
             '--fanout', GROUP, '-w', db, '--ops', 'all', '--quiet'],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))
    try:
        end = time.time() + 15
        while sockets() < 2 and time.time() < end:
            time.sleep(0.05)
        time.sleep(1.0)
        sh('tcpreplay', '-q', '-i', 'fan0', '--pps', str(pps), pcap,
           capture_output=True)
        time.sleep(1.0)
        for p in procs:
            p.send_signal(signal.SIGINT)
        errs = [p.communicate(timeout=60)[1] for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    return dbs, [p.returncode for p in procs], errs


def counts(db):
    """(ps_recv, drops) of the database's run."""
    r = sqlite3.connect(db).execute(
        'SELECT ps_recv, ps_drop + ps_ifdrop FROM runs ORDER BY id DESC LIMIT 1'
    ).fetchone()
    return r[0], r[1]


def main():
    nfsgen, nfscope, work = sys.argv[1:4]
    why = testlib.live_netns(NS)
    if why:
        print('SKIP: ' + why)
        return 77
    errs = []
    try:
        # no frame of the kernel's own (IPv6 neighbour discovery): every
        # frame the workers get is one of the capture's
        for k in ('all', 'default'):
            sh('sysctl', '-qw', 'net.ipv6.conf.%s.disable_ipv6=1' % k)
        sh('ip', 'link', 'add', 'fan0', 'type', 'veth', 'peer', 'name', 'fan1')
        for dev in ('lo', 'fan0', 'fan1'):
            # the generator's IPv6 fragments are 1522-byte frames
            sh('ip', 'link', 'set', dev, 'mtu', '9000', 'up')
        os.makedirs(work, exist_ok=True)
        pcap = os.path.join(work, 'mix.pcap')
        truth = os.path.join(work, 'mix.ops')
        subprocess.run([nfsgen, '--mix', 'all', '--size', '32768',
                        '--transport', 'mix', '--ip', 'mix', '--clients', '8',
                        '--servers', '3', '--retrans', '0.1', '--count', '400',
                        '--seed', '7', '-o', pcap, '--ops-truth', truth],
                       check=True, capture_output=True)
        want_ops = sum(1 for _ in open(truth))
        frames = int(json.loads(subprocess.run(
            [nfscope, 'report', '-r', pcap, '--json'], check=True,
            capture_output=True, text=True).stdout)['capture']['packets'])
        for pps in (2000, 500, 100):    # slower if the kernel dropped
            dbs, rcs, werrs = run_workers(nfscope, pcap, work, pps)
            got = [counts(db) if rc == 0 else (0, 0)
                   for db, rc in zip(dbs, rcs)]
            if all(rc == 0 for rc in rcs) and not any(d for _, d in got):
                break
            print('drops or a failed worker at %d/s (%s, %s): again slower'
                  % (pps, rcs, got))
        if any(rcs):
            errs.append('workers exited %s: %s' % (rcs, werrs))
        recv = [r for r, _ in got]
        print('frames %d, workers received %s' % (frames, recv))
        if sum(recv) != frames or min(recv) == 0:
            errs.append('ps_recv %s: not a share each of the %d frames'
                        % (recv, frames))
        for db in dbs:
            orphans = sqlite3.connect(db).execute(
                'SELECT dec_orphan_replies FROM runs ORDER BY id DESC LIMIT 1'
            ).fetchone()[0]
            if orphans:
                errs.append('%s: %d replies without their call' %
                            (os.path.basename(db), orphans))
        merged = json.loads(subprocess.run(
            [nfscope, 'report'] + dbs + ['--json'], check=True,
            capture_output=True, text=True).stdout)
        print('merged report: %d operations, the generator %d' %
              (merged['totals']['ops'], want_ops))
        if merged['totals']['ops'] != want_ops:
            errs.append('merged report: %d operations, the generator made %d'
                        % (merged['totals']['ops'], want_ops))
        # not part of a group: refused with a clear message
        p = subprocess.run([nfscope, 'report', '-r', pcap, '--fanout', '0'],
                           capture_output=True, text=True)
        if p.returncode == 0 or 'bad --fanout' not in p.stderr:
            errs.append('--fanout 0: exit %d: %s' % (p.returncode, p.stderr))
    finally:
        subprocess.run(['ip', 'netns', 'del', NS])
    for e in errs:
        print('FAIL', e)
    print('%d errors' % len(errs))
    return 1 if errs else 0


if __name__ == '__main__':
    sys.exit(main())
