"""pcaprec.py - records of a little-endian classic pcap file, counted by
the Python tests themselves (ground truth not computed by nfscope), and
rewritten to make a fault the generator does not (a stalled call, an RST).
Imported like tally.py (tests/lib/)."""
import struct


def whole_records(data):
    """(packets, offset after the last whole record) of pcap bytes."""
    off, n = 24, 0
    while off + 16 <= len(data):
        incl = struct.unpack('<I', data[off + 8:off + 12])[0]
        if off + 16 + incl > len(data):
            break
        off += 16 + incl
        n += 1
    return n, off


def read_pcap(path):
    d = open(path, 'rb').read()
    hdr, off, pk = d[:24], 24, []
    while off + 16 <= len(d):
        sec, frac, incl, orig = struct.unpack('<IIII', d[off:off + 16])
        pk.append([sec * 10**9 + frac, d[off + 16:off + 16 + incl], orig])
        off += 16 + incl
    return hdr, pk


def write_pcap(path, hdr, pk):
    with open(path, 'wb') as f:
        f.write(hdr)
        for ns, data, orig in pk:
            f.write(struct.pack('<IIII', ns // 10**9, ns % 10**9, len(data), orig))
            f.write(data)


def tcp_parts(frame):
    """(src, dst, payload length, flags) of an IPv4/Ethernet TCP frame, or
    None."""
    ip = frame[14:]
    if len(ip) < 40 or frame[12:14] != b'\x08\x00' or ip[9] != 6:
        return None
    ihl = (ip[0] & 15) * 4
    tcp = ip[ihl:]
    n = struct.unpack('>H', ip[2:4])[0] - ihl - (tcp[12] >> 4) * 4
    return ip[12:16], ip[16:20], n, tcp[13]


def data_runs(pk, client_prefix, least):
    """Indexes into pk of each run of least or more data segments in a row
    from the client (a call sent in pieces), closed by another frame."""
    pre = bytes(int(x) for x in client_prefix.strip('.').split('.'))
    runs, run = [], []
    for i, p in enumerate(pk):
        t = tcp_parts(p[1])
        if t is not None and t[0].startswith(pre) and t[2] > 0:
            run.append(i)
            continue
        if len(run) >= least:
            runs.append(run)
        run = []
    return runs


def stall_calls(pcap, out, client_prefix, hold_ns, full=False):
    """A client with Nagle on behind a link that holds pure ACKs: the last
    segment of each call sent in several segments leaves hold_ns after
    the others (and everything after it later by as much).  full: the
    wait comes before a full-size segment instead (a call of three
    segments or more paused by the receiver's window or by the sender's
    application, which Nagle never holds: no stall).  Returns the number
    of calls so held."""
    hdr, pk = read_pcap(pcap)
    pre = bytes(int(x) for x in client_prefix.strip('.').split('.'))
    shift, held, run = 0, 0, []
    for i, p in enumerate(pk):
        t = tcp_parts(p[1])
        data_c2s = t is not None and t[0].startswith(pre) and t[2] > 0
        if data_c2s:
            run.append(i)
        if (not data_c2s or i == len(pk) - 1) and run:
            if len(run) >= (3 if full else 2):
                at = run[1] if full else run[-1]
                shift += hold_ns
                held += 1
                for j in range(at, len(pk)):
                    pk[j][0] += hold_ns
            run = []
    write_pcap(out, hdr, pk)
    return held


def rst_frame(frame):
    """An RST+ACK in the direction of TCP frame frame (IPv4/Ethernet), at
    the sequence number after its payload."""
    ip = frame[14:]
    ihl = (ip[0] & 15) * 4
    tcp = ip[ihl:]
    thl = (tcp[12] >> 4) * 4
    n = struct.unpack('>H', ip[2:4])[0] - ihl - thl
    seq = (struct.unpack('>I', tcp[4:8])[0] + n) & 0xffffffff
    iph = bytearray(ip[:ihl])
    iph[2:4] = struct.pack('>H', ihl + 20)
    th = bytearray(tcp[:20])
    th[4:8] = struct.pack('>I', seq)
    th[12] = 5 << 4
    th[13] = 0x14                       # RST, ACK
    f = frame[:14] + bytes(iph) + bytes(th)
    return f


def with_rst(pcap, out, client_prefix, busy):
    """The client's connection closed by an RST from the client: after
    the last frame (busy False: nothing outstanding, as libnfs closes), or
    right after its first call of 3 segments or more, its reply not yet
    sent (busy True: a connection cut in use).  Returns the RST's time."""
    hdr, pk = read_pcap(pcap)
    pre = bytes(int(x) for x in client_prefix.strip('.').split('.'))
    ours = [i for i, p in enumerate(pk)
            if (lambda t: t is not None and t[0].startswith(pre))(tcp_parts(p[1]))]
    at = ours[-1]
    if busy:
        at = next(iter(data_runs(pk, client_prefix, 3)), [at])[-1]
    rst = rst_frame(pk[at][1])
    pos = at + 1 if busy else len(pk)
    ts = pk[pos - 1][0] + 1000
    pk.insert(pos, [ts, rst, len(rst)])
    write_pcap(out, hdr, pk)
    return ts


def delay_from(pcap, out, server_prefix, delay_ns):
    """A link that delays the server's frames delay_ns, seen at the client:
    every IPv4 frame (Ethernet) from an address starting with
    server_prefix later by delay_ns, and so the client's pure ACKs (no
    payload, no SYN), which answer them; the client's calls keep their
    time.  The file is sorted by time again."""
    hdr, pk = read_pcap(pcap)
    if struct.unpack('<I', hdr[:4])[0] != 0xa1b23c4d:
        raise ValueError('%s: not a nanosecond pcap' % pcap)
    pre = bytes(int(x) for x in server_prefix.strip('.').split('.'))
    for p in pk:
        ip = p[1][14:]
        if len(ip) < 40 or p[1][12:14] != b'\x08\x00':
            continue
        ihl = (ip[0] & 15) * 4
        tcp = ip[ihl:]
        pure = (ip[9] == 6 and len(tcp) >= 20 and
                struct.unpack('>H', ip[2:4])[0] == ihl + (tcp[12] >> 4) * 4 and
                not tcp[13] & 0x02)
        if ip[12:12 + len(pre)] == pre or pure:
            p[0] += delay_ns
    pk.sort(key=lambda p: p[0])
    write_pcap(out, hdr, pk)
    return out


def miss_segments(pcap, out, client_prefix, every, refill=False):
    """The middle segment of every every-th call the client sends in three
    segments or more taken out, as a loaded capture host misses it (the
    server still acknowledges it); refill: moved after the next segment
    instead, as a sender fills a hole the network made.  Returns (holes,
    bytes) made."""
    hdr, pk = read_pcap(pcap)
    take = [r[1] for r in data_runs(pk, client_prefix, 3)[::every]]
    nbytes = sum(tcp_parts(pk[i][1])[2] for i in take)
    for i in reversed(take):
        p = pk.pop(i)
        if refill:
            p[0] = pk[i][0] + 1
            pk.insert(i + 1, p)
    write_pcap(out, hdr, pk)
    return len(take), nbytes
