"""pcapw.py - Ethernet/IPv4 UDP and TCP frames and classic pcap files
written byte by byte, for tests whose capture must hold exactly what the
test says (hostile strings, invalid first records, floods of held TCP
data).  Frame k of write_pcap is stamped 1000 + k/10 s (10 frames per
second), or at the times given."""
import struct


def csum(b):
    if len(b) % 2:
        b += b'\0'
    s = sum(struct.unpack('>%dH' % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def udp_frame(src, sport, dst, dport, payload):
    udp = struct.pack('>HHHH', sport, dport, 8 + len(payload), 0) + payload
    ip = struct.pack('>BBHHHBBH4s4s', 0x45, 0, 20 + len(udp), 1, 0, 64, 17,
                     0, bytes(src), bytes(dst))
    ip = ip[:10] + struct.pack('>H', csum(ip)) + ip[12:]
    return b'\x02\0\0\0\0\x02' + b'\x02\0\0\0\0\x01' + b'\x08\x00' + ip + udp


def tcp_frame(src, sport, dst, dport, seq, flags, payload):
    tcp = struct.pack('>HHIIBBHHH', sport, dport, seq, 0, 5 << 4, flags,
                      65535, 0, 0) + payload
    ip = struct.pack('>BBHHHBBH4s4s', 0x45, 0, 20 + len(tcp), 1, 0, 64, 6,
                     0, bytes(src), bytes(dst))
    ip = ip[:10] + struct.pack('>H', csum(ip)) + ip[12:]
    return b'\x02\0\0\0\0\x02' + b'\x02\0\0\0\0\x01' + b'\x08\x00' + ip + tcp


def write_pcap(path, frames, usec_step=None):
    """frames: a list or an iterable; usec_step: frame k at 1000 s + k *
    usec_step us instead of 10 frames a second."""
    with open(path, 'wb') as f:
        f.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for k, fr in enumerate(frames):
            if usec_step is None:
                sec, us = 1000 + k // 10, (k % 10) * 1000
            else:
                sec, us = 1000 + k * usec_step // 10**6, k * usec_step % 10**6
            f.write(struct.pack('<IIII', sec, us, len(fr), len(fr)))
            f.write(fr)


