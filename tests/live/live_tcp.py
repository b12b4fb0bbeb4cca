#!/usr/bin/env python3
"""Live capture of real TCP connections on a host: with the default snapshot
length and buffer, `nfscope report -i lo` sees every operation that reading
the same traffic from a file shows.

An nfsgen capture of pipelined 32 KiB READs and WRITEs over TCP is played
over real TCP connections to 127.0.0.1:2049 inside a network namespace of
its own (the kernel segments the byte streams as it likes: on lo with TSO,
segments of up to 64 KiB, as GRO gives on a real NIC).  The reference is
`nfscope report -r` of the generator's capture (its MTU-sized segments).
With -s 512 the records that begin past byte 512 of a coalesced segment
are hidden: fewer operations (checked too, with the start-up note that
says so).  Exits 77 (skipped) without root or network namespaces.

usage: live_tcp.py NFSGEN NFSCOPE WORKDIR
"""
import json
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import time

NS = 'nfscope-live-tcp-%d' % os.getpid()


def frames(path):
    with open(path, 'rb') as f:
        f.read(24)
        while True:
            rec = f.read(16)
            if len(rec) < 16:
                return
            incl = struct.unpack('<I', rec[8:12])[0]
            yield f.read(incl)


def play(path, pace):
    """Send each captured TCP payload on a real connection, in capture
    order, from the side that sent it; every receiver is drained."""
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(('127.0.0.1', 2049))
    srv.listen(1024)
    conns, socks = {}, []
    sent, t0 = 0, time.time()

    def drain(wait):
        r, _, _ = select.select(socks, [], [], wait)
        for x in r:
            try:
                x.recv(1 << 20)
            except BlockingIOError:
                pass
    for d in frames(path):
        if len(d) < 34 or d[12:14] != b'\x08\x00' or d[23] != 6:
            continue
        tcp = 14 + (d[14] & 15) * 4
        end = 14 + struct.unpack('>H', d[16:18])[0]
        pay = d[tcp + (d[tcp + 12] >> 4) * 4:end]
        if not pay:
            continue
        sp, dp = struct.unpack('>HH', d[tcp:tcp + 4])
        key, side = ((d[26:30], sp), 0) if dp == 2049 else ((d[30:34], dp), 1)
        if key not in conns:
            c = socket.create_connection(('127.0.0.1', 2049))
            s, _ = srv.accept()
            c.setblocking(False)
            s.setblocking(False)
            conns[key] = (c, s)
            socks.extend((c, s))
        view = memoryview(pay)
        while view:
            try:
                view = view[conns[key][side].send(view):]
            except BlockingIOError:
                pass
            drain(0)
        # pace frames apart on average: a sleep may last much longer
        # than asked (timer slack), so sleep only when ahead
        sent += 1
        ahead = t0 + sent * pace - time.time()
        if ahead > 0:
            time.sleep(ahead)
    end = time.time() + 1.0
    while time.time() < end:
        drain(0.05)
    for x in socks + [srv]:
        x.close()


def live(nfscope, pcap, args, pace):
    """report --json of the traffic played live in the namespace."""
    p = subprocess.Popen(['ip', 'netns', 'exec', NS, nfscope, 'report', '--json',
                          '-i', 'lo'] + args, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    time.sleep(1.5)
    t0 = time.time()
    try:
        subprocess.run(['ip', 'netns', 'exec', NS, sys.executable, __file__, '--play',
                        pcap, str(pace)], check=True, timeout=240)
    finally:
        time.sleep(1.0)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
    print('played %s in %.1f s' % (' '.join(args) or 'defaults', time.time() - t0),
          flush=True)
    return p.returncode, json.loads(out), err.decode()


def main():
    if len(sys.argv) > 1 and sys.argv[1] == '--play':
        play(sys.argv[2], float(sys.argv[3]))
        return 0
    nfsgen, nfscope, work = sys.argv[1:4]
    if os.geteuid() != 0:
        print('SKIP: live capture needs root (CAP_NET_RAW)')
        return 77
    if subprocess.run(['ip', 'netns', 'add', NS], stderr=subprocess.DEVNULL).returncode:
        print('SKIP: cannot create a network namespace')
        return 77
    bad = 0
    try:
        subprocess.run(['ip', 'netns', 'exec', NS, 'ip', 'link', 'set', 'lo', 'up'],
                       check=True)
        os.makedirs(work, exist_ok=True)
        pcap = os.path.join(work, 'tcp.pcap')
        subprocess.run([nfsgen, '--transport', 'tcp', '--ip', '4', '--mix', 'data',
                        '--multi-record', '--size', '32768', '--count', '150',
                        '--seed', '31', '-o', pcap], check=True, stderr=subprocess.DEVNULL)
        ref = json.loads(subprocess.run([nfscope, 'report', '--json', '-r', pcap],
                                        check=True, stdout=subprocess.PIPE).stdout)
        want = ref['totals']
        for pace in (0.0005, 0.002):     # slower once if the kernel dropped
            rc, rep, err = live(nfscope, pcap, [], pace)
            if rep['capture']['ps_drop'] == 0:
                break
        got = rep['totals']
        print('default: %s (file: %s), ps_drop %d' % (got, want, rep['capture']['ps_drop']),
              flush=True)
        if rc != 0 or rep['capture']['ps_drop'] or \
           (got['ops'], got['answered']) != (want['ops'], want['answered']):
            print('FAILED: defaults lose operations: %s vs %s; %s' % (got, want, err))
            bad += 1
        if 'note: -s' in err:
            print('FAILED: note about the snaplen with the default: %s' % err)
            bad += 1
        rc, rep, err = live(nfscope, pcap, ['-s', '512'], 0.0005)
        got = rep['totals']
        print('-s 512: %s, ps_drop %d' % (got, rep['capture']['ps_drop']))
        if got['answered'] >= want['answered'] or 'note: -s 512' not in err:
            print('FAILED: -s 512 should hide records in coalesced segments and say so: '
                  '%s; %s' % (got, err))
            bad += 1
    finally:
        subprocess.run(['ip', 'netns', 'del', NS])
    print('%d passed, %d failed' % (2 - bad, bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
