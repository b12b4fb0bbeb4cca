#!/usr/bin/env python3
"""Independent reassembly check of an nfsgen capture (no tshark needed).

usage: check_streams.py CAPTURE.pcap TRUTH.json

Parses the nanosecond pcap (Ethernet/802.1Q/QinQ/SLL/SLL2/raw), IPv4 with
fragment reassembly, IPv6 with fragment headers, UDP and TCP (segments put
in sequence order, so reordering is undone), splits TCP streams at RPC
record marks (joining record fragments), and checks that every message the
truth does not mark lost/truncated/after_gap is found with the same
(src, sport, dst, dport, proto, xid, type byte, len).
"""
import collections
import json
import socket
import struct
import sys


def packets(path):
    with open(path, 'rb') as f:
        hdr = f.read(24)
        magic, _, _, _, _, snap, lt = struct.unpack('<IHHiIII', hdr)
        assert magic == 0xa1b23c4d, 'not a nanosecond pcap'
        n = 0
        while True:
            rh = f.read(16)
            if len(rh) < 16:
                return
            _, _, cap, ln = struct.unpack('<IIII', rh)
            n += 1
            yield n, lt, f.read(cap), cap == ln


def l3(lt, d):
    if lt == 101:
        return (0x800 if d[0] >> 4 == 4 else 0x86dd), d
    if lt == 113:
        return struct.unpack('>H', d[14:16])[0], d[16:]
    if lt == 276:
        return struct.unpack('>H', d[0:2])[0], d[20:]
    et, off = struct.unpack('>H', d[12:14])[0], 14
    while et in (0x8100, 0x88a8):
        et, off = struct.unpack('>H', d[off + 2:off + 4])[0], off + 4
    return et, d[off:]


def main():
    pcap, truth = sys.argv[1], sys.argv[2]
    frags = {}
    segs = collections.defaultdict(dict)     # flow -> seq -> bytes
    found = collections.Counter()
    for n, lt, d, full in packets(pcap):
        if not full:
            continue
        et, p = l3(lt, d)
        if et == 0x800:
            ihl = (p[0] & 15) * 4
            tot, ident, fo, proto = struct.unpack('>H', p[2:4])[0], p[4:6], \
                struct.unpack('>H', p[6:8])[0], p[9]
            src, dst = socket.inet_ntop(socket.AF_INET, p[12:16]), socket.inet_ntop(socket.AF_INET, p[16:20])
            pay = p[ihl:tot]
            off, more = (fo & 0x1fff) * 8, bool(fo & 0x2000)
            key = (src, dst, ident)
        else:
            proto, src, dst = p[6], socket.inet_ntop(socket.AF_INET6, p[8:24]), socket.inet_ntop(socket.AF_INET6, p[24:40])
            pay = p[40:40 + struct.unpack('>H', p[4:6])[0]]
            off, more, key = 0, False, None
            if proto == 44:
                proto, fo, ident = pay[0], struct.unpack('>H', pay[2:4])[0], pay[4:8]
                off, more, key = fo & ~7, bool(fo & 1), (src, dst, ident)
                pay = pay[8:]
        if key and (off or more):
            fr = frags.setdefault(key, {})
            fr[off] = (pay, more)
            tot_len = None
            for o, (b, m) in fr.items():
                if not m:
                    tot_len = o + len(b)
            if tot_len is None:
                continue
            buf, pos = b'', 0
            while pos in fr:
                buf += fr[pos][0]
                pos += len(fr[pos][0])
            if pos != tot_len:
                continue
            del frags[key]
            pay = buf
        if proto == 17:
            sp, dp = struct.unpack('>HH', pay[0:4])
            m = pay[8:]
            if len(m) >= 8:
                found[(src, sp, dst, dp, 'udp', struct.unpack('>I', m[0:4])[0],
                       struct.unpack('>I', m[4:8])[0], len(m))] += 1
        elif proto == 6:
            sp, dp, seq = struct.unpack('>HHI', pay[0:8])
            doff = (pay[12] >> 4) * 4
            if pay[13] & 0x02:
                segs[(src, sp, dst, dp)]['isn'] = seq + 1
            elif len(pay) > doff:
                segs[(src, sp, dst, dp)][seq] = pay[doff:]
    for fl, sd in segs.items():
        isn = sd.pop('isn', None)
        if isn is None:
            continue
        stream, pos = bytearray(), isn
        while pos in sd:
            b = sd.pop(pos)
            stream += b
            pos = (pos + len(b)) & 0xffffffff
        # records (a lost segment ends the walk: later data is not checked)
        i, rec = 0, bytearray()
        while i + 4 <= len(stream):
            mark = struct.unpack('>I', stream[i:i + 4])[0]
            ln = mark & 0x7fffffff
            if i + 4 + ln > len(stream):
                break
            rec += stream[i + 4:i + 4 + ln]
            i += 4 + ln
            if mark & 0x80000000:
                if len(rec) >= 8:
                    found[fl + ('tcp', struct.unpack('>I', rec[0:4])[0],
                                struct.unpack('>I', rec[4:8])[0], len(rec))] += 1
                rec = bytearray()
    want = collections.Counter()
    with open(truth) as f:
        for line in f:
            o = json.loads(line)
            if 'summary' in o or o.get('lost') or o.get('truncated') or o.get('after_gap'):
                continue
            want[(o['src'], o['sport'], o['dst'], o['dport'], o['proto'], o['xid'],
                  0 if o['type'] == 'call' else 1, o['len'])] += 1
    missing = want - found
    if missing:
        for k in list(missing)[:10]:
            print('not in capture:', k)
        print('FAIL: %d of %d messages not found' % (sum(missing.values()), sum(want.values())))
        return 1
    print('ok: %d messages found by independent reassembly' % sum(want.values()))
    return 0


if __name__ == '__main__':
    sys.exit(main())
