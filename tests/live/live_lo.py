#!/usr/bin/env python3
"""Live capture on the loopback interface: `nfscope dump -i lo` sees RPC
calls that this script sends over UDP to 127.0.0.1, and stops cleanly on
SIGINT with its summary.

The calls are the UDP NFS calls of an nfsgen capture (their payloads are
sent as they are), so the ground truth is the generator's record of them.
Exits 77 (skipped) without the privilege to capture.

usage: live_lo.py NFSGEN NFSCOPE WORKDIR
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

PORT = 20490


def udp_calls(pcap, truth):
    """(payload, truth-record) of each unfragmented UDP call to port 2049."""
    want = {}
    for line in open(truth):
        m = json.loads(line)
        if m.get('type') == 'call' and m.get('proto') == 'udp' and \
           m.get('dport') == 2049 and 'ipfrag' not in m.get('flags', []):
            want[m['frame']] = m
    out = []
    with open(pcap, 'rb') as f:
        hdr = f.read(24)
        magic = struct.unpack('<I', hdr[:4])[0]
        assert magic in (0xa1b2c3d4, 0xa1b23c4d), 'not a little-endian pcap'
        assert struct.unpack('<I', hdr[20:24])[0] == 1, 'not Ethernet'
        frame = 0
        while True:
            rec = f.read(16)
            if len(rec) < 16:
                break
            incl = struct.unpack('<I', rec[8:12])[0]
            data = f.read(incl)
            frame += 1
            if frame not in want or data[12:14] != b'\x08\x00':
                continue
            ihl = (data[14] & 15) * 4
            udp = 14 + ihl
            ulen = struct.unpack('>H', data[udp + 4:udp + 6])[0]
            out.append((data[udp + 8:udp + ulen], want[frame]))
    return out


def main():
    nfsgen, nfscope, work = sys.argv[1:4]
    if os.geteuid() != 0:
        print('SKIP: live capture needs root (CAP_NET_RAW)')
        return 77
    os.makedirs(work, exist_ok=True)
    pcap, truth = os.path.join(work, 'live.pcap'), os.path.join(work, 'live.truth')
    subprocess.run([nfsgen, '--transport', 'udp', '--ip', '4', '--mix', 'meta',
                    '--count', '60', '--seed', '21', '-o', pcap, '-t', truth], check=True)
    calls = udp_calls(pcap, truth)
    assert len(calls) >= 40, 'too few calls in the generated capture: %d' % len(calls)
    p = subprocess.Popen([nfscope, 'dump', '--json', '-i', 'lo', '-f',
                          'udp dst port %d' % PORT], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    lines, buf = [], b''

    def read_for(seconds):
        nonlocal buf
        end = time.time() + seconds
        while time.time() < end:
            r, _, _ = select.select([p.stdout], [], [], max(0, end - time.time()))
            if not r:
                break
            chunk = os.read(p.stdout.fileno(), 65536)
            if not chunk:
                break
            buf += chunk
            while b'\n' in buf:
                line, buf = buf.split(b'\n', 1)
                lines.append(json.loads(line))

    first_xid = calls[0][1]['xid']
    deadline = time.time() + 20
    while not any(m.get('xid') == first_xid for m in lines):
        if time.time() > deadline or p.poll() is not None:
            p.kill()
            print('nfscope never saw the first call:', p.stderr.read().decode())
            return 1
        s.sendto(calls[0][0], ('127.0.0.1', PORT))
        read_for(0.2)
    for payload, _ in calls[1:]:
        s.sendto(payload, ('127.0.0.1', PORT))
        time.sleep(0.002)
    want = {c[1]['xid'] for c in calls}
    deadline = time.time() + 10
    while time.time() < deadline and not want <= {m.get('xid') for m in lines}:
        read_for(0.2)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=10)
    buf += out
    for line in buf.split(b'\n'):
        if line.strip():
            lines.append(json.loads(line))
    bad = 0
    if p.returncode != 0:
        print('exit status %d after SIGINT: %s' % (p.returncode, err.decode()))
        bad += 1
    summary = [m['summary'] for m in lines if 'summary' in m]
    if len(summary) != 1 or 'ps_drop' not in summary[0]:
        print('no summary with capture drops after SIGINT')
        bad += 1
    seen = {}
    for m in lines:
        if 'xid' in m:
            seen.setdefault(m['xid'], m)
    for payload, t in calls:
        m = seen.get(t['xid'])
        if not m:
            print('call not captured: xid %d' % t['xid'])
            bad += 1
            continue
        for k in ('type', 'prog', 'vers', 'proc', 'len', 'args'):
            if m.get(k) != t.get(k):
                print('xid %d %s: want %r, got %r' % (t['xid'], k, t.get(k), m.get(k)))
                bad += 1
        if m.get('src') != '127.0.0.1' or m.get('dport') != PORT:
            print('xid %d: wrong flow %s -> %s' % (t['xid'], m.get('src'), m.get('dport')))
            bad += 1
    print('%d calls sent, %d distinct seen live, summary %s' % (
        len(calls), len(seen), summary[0] if summary else None))
    print('%d passed, %d failed' % (0 if bad else 1, 1 if bad else 0))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
