#!/usr/bin/env python3
"""seed_nfs4.py OUTDIR PCAP...: fuzz_nfs4 seeds from real captures.

Takes the NFSv4 COMPOUND / CB_COMPOUND messages that sit whole in one TCP
segment (tshark -T fields -e tcp.payload), strips the record mark and the
RPC header, and writes one seed per distinct (call/reply, op list) with
fuzz_nfs4's selector byte in front (bit 0 reply, bit 1 callback).  Used
once to make tests/fuzz/corpus/fuzz_nfs4 (with 250 inputs of a 4-minute
libFuzzer run from these seeds, -merge=1); kept to say where they came from."""
import hashlib
import os
import struct
import subprocess
import sys

out = sys.argv[1]
calls = {}  # (xid) -> cb


def u32(b, o):
    return struct.unpack('>I', b[o:o + 4])[0], o + 4


def opaque_auth(b, o):
    _, o = u32(b, o)
    n, o = u32(b, o)
    return o + ((n + 3) & ~3)


seen = set()
for pcap in sys.argv[2:]:
    rows = subprocess.run(['tshark', '-r', pcap, '-Y', 'tcp.len > 28',
                           '-T', 'fields', '-e', 'tcp.payload'],
                          capture_output=True, text=True).stdout.split()
    for h in rows:
        b = bytes.fromhex(h.replace(':', ''))
        if len(b) < 32:
            continue
        mark = struct.unpack('>I', b[:4])[0]
        if mark & 0x7fffffff != len(b) - 4:
            continue
        m = b[4:]
        xid, o = u32(m, 0)
        typ, o = u32(m, o)
        try:
            if typ == 0:
                _, o = u32(m, o)
                prog, o = u32(m, o)
                vers, o = u32(m, o)
                proc, o = u32(m, o)
                if proc != 1 or not ((prog == 100003 and vers == 4) or
                                     (prog == 0x40000000 and vers == 1)):
                    continue
                cb = prog != 100003
                calls[xid] = cb
                o = opaque_auth(m, o)
                o = opaque_auth(m, o)
                sel = 2 if cb else 0
            else:
                if xid not in calls:
                    continue
                cb = calls[xid]
                st, o = u32(m, o)
                if st != 0:
                    continue
                o = opaque_auth(m, o)
                acc, o = u32(m, o)
                if acc != 0:
                    continue
                sel = 3 if cb else 1
        except struct.error:
            continue
        body = m[o:]
        key = (sel, min(len(body), 4096) // 48)
        if key in seen:
            continue
        seen.add(key)
        data = bytes([sel]) + body
        name = hashlib.sha1(data).hexdigest()
        open(os.path.join(out, name), 'wb').write(data)
print(len(seen), 'seeds')
