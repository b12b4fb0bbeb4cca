#!/usr/bin/env python3
"""nfs4gen.py OUT.pcap TRUTH.json SCENARIO - NFSv4.1 traffic with known
faults, for the NFSv4 findings' tests (tests/analyze/gen_nfs4.py).

Writes Ethernet/IPv4/TCP frames (a handshake per connection, each RPC
record cut into 1448-byte segments) of NFSv4.1 COMPOUNDs encoded here from
RFC 5662's XDR, independent of nfscope's decoder, and a JSON record of
what was put in: per kind of trouble the count of events and the clients'
waits (ns), the session's fore channel, the sizes used.

Scenarios (one client 10.0.4.1 and server 10.0.4.2 unless said):
  healthy        a session (maxreq/maxresp 69632), GETATTR maxread/
                 maxwrite 64k, 20 READs and 20 WRITEs of 64k, no error
  session_small  GETATTR says 1M, the session's fore channel 17408 (room
                 for 16k): READs and WRITEs of 16k
  errors         healthy plus READs answered NFS4ERR_DELAY (retried),
                 an OPEN answered GRACE until the grace ends, a lost
                 session (BADSESSION, then CREATE_SESSION), calls answered
                 SEQ_MISORDERED, a CREATE_SESSION answered STALE_CLIENTID
  recall         a READ delegation recalled (CB_RECALL on the back channel)
                 while a second client 10.0.4.3 waits to open the file
                 (NFS4ERR_DELAY), the holder's DELEGRETURN after 30 ms
  locks          10.0.4.3's LOCK/LOCKT denied (NFS4ERR_DENIED) while
                 10.0.4.1 holds the lock, granted after LOCKU
  replay         calls resent on the same slot and sequence id under a
                 new XID on a new connection
"""
import json
import struct
import sys

MS = 1000000
NFS, CB = 100003, 0x40000000
OK, DENIED, DELAY, GRACE = 0, 10010, 10008, 10013
STALE_CLIENTID, BADSESSION, SEQ_MISORDERED = 10022, 10052, 10063
OP = dict(ACCESS=3, CLOSE=4, COMMIT=5, DELEGRETURN=8, GETATTR=9, GETFH=10,
          LOCK=12, LOCKT=13, LOCKU=14, LOOKUP=15, OPEN=18, PUTFH=22, PUTROOTFH=24,
          READ=25, REMOVE=28, WRITE=38, EXCHANGE_ID=42, CREATE_SESSION=43,
          SEQUENCE=53, CB_SEQUENCE=11, CB_RECALL=4)


# ------------------------------------------------------------------ XDR --
def u32(v):
    return struct.pack('>I', v & 0xffffffff)


def u64(v):
    return struct.pack('>Q', v)


def opaque(b):
    return u32(len(b)) + b + b'\0' * (-len(b) % 4)


def fixed(b):
    return b + b'\0' * (-len(b) % 4)


STATEID = u32(1) + b'S' * 12


def chan(maxreq, maxresp):
    return (u32(0) + u32(maxreq) + u32(maxresp) + u32(4096) + u32(8) +
            u32(16) + u32(0))


# op args: (opcode, bytes); op results: (opcode, status, bytes after status)
def a_sequence(sess, seq, slot=0):
    return OP['SEQUENCE'], sess + u32(seq) + u32(slot) + u32(15) + u32(0)


def r_sequence(sess, seq, slot=0):
    return (OP['SEQUENCE'], OK, sess + u32(seq) + u32(slot) + u32(15) +
            u32(15) + u32(0))


def a_putfh(fh):
    return OP['PUTFH'], opaque(fh)


def a_getattr_max():
    return OP['GETATTR'], u32(1) + u32((1 << 30) | (1 << 31))


def r_getattr_max(maxread, maxwrite):
    vals = u64(maxread) + u64(maxwrite)
    return OP['GETATTR'], OK, u32(1) + u32((1 << 30) | (1 << 31)) + opaque(vals)


def a_read(off, count):
    return OP['READ'], STATEID + u64(off) + u32(count)


def r_read(count):
    return OP['READ'], OK, u32(0) + opaque(b'r' * count)


def a_write(off, count):
    return OP['WRITE'], STATEID + u64(off) + u32(0) + opaque(b'w' * count)


def r_write(count):
    return OP['WRITE'], OK, u32(count) + u32(0) + b'VERIFIER'


def a_open(name, clientid, seq=0):
    return (OP['OPEN'], u32(seq) + u32(1) + u32(0) + u64(clientid) +
            opaque(b'owner') + u32(0) + u32(0) + opaque(name))


def r_open(deleg):
    d = u32(0)
    if deleg:   # OPEN_DELEGATE_READ: stateid, recall, nfsace4
        d = u32(1) + STATEID + u32(0) + u32(0) + u32(0) + u32(0) + opaque(b'EVERYONE@')
    return (OP['OPEN'], OK, STATEID + u32(1) + u64(1) + u64(2) + u32(0) +
            u32(0) + d)


def a_lock(locktype, clientid):
    return (OP['LOCK'], u32(locktype) + u32(0) + u64(0) + u64(100) + u32(1) +
            u32(0) + STATEID + u32(0) + u64(clientid) + opaque(b'lockowner'))


def a_lockt(clientid):
    return (OP['LOCKT'], u32(2) + u64(0) + u64(100) + u64(clientid) +
            opaque(b'lockowner'))


def r_denied(op):
    return (op, DENIED, u64(0) + u64(100) + u32(2) + u64(7) +
            opaque(b'holder'))


def a_locku():
    return OP['LOCKU'], u32(2) + u32(0) + STATEID + u64(0) + u64(100)


# ------------------------------------------------------------------ RPC --
def cred(machine=b'client'):
    body = u32(0) + opaque(machine) + u32(0) + u32(0) + u32(0)
    return u32(1) + opaque(body) + u32(0) + u32(0)


def compound_call(xid, ops, prog=NFS, ident=None):
    vers = 4 if prog == NFS else 1
    body = opaque(b'') + u32(1)
    if ident is not None:
        body += u32(ident)
    body += u32(len(ops)) + b''.join(u32(o) + a for o, a in ops)
    return u32(xid) + u32(0) + u32(2) + u32(prog) + u32(vers) + u32(1) + cred() + body


def compound_reply(xid, res):
    status = OK
    for _, st, _ in res:
        if st != OK:
            status = st
    body = u32(status) + opaque(b'') + u32(len(res))
    for o, st, rest in res:
        body += u32(o) + u32(st) + (rest if st == OK or st == DENIED else b'')
    return u32(xid) + u32(1) + u32(0) + u32(0) + u32(0) + u32(0) + body


# ------------------------------------------------------------- framing --
class Pcap:
    def __init__(self):
        self.frames = []

    def frame(self, ts, src, dst, sport, dport, seq, ack, flags, payload=b''):
        tcp = struct.pack('>HHIIBBHHH', sport, dport, seq & 0xffffffff,
                          ack & 0xffffffff, 5 << 4, flags, 65535, 0, 0)
        ipl = 20 + len(tcp) + len(payload)
        ip = struct.pack('>BBHHHBBH4s4s', 0x45, 0, ipl, 0, 0x4000, 64, 6, 0,
                         bytes(src), bytes(dst))
        eth = b'\x02\0\0\0\0\x02' + b'\x02\0\0\0\0\x01' + b'\x08\x00'
        self.frames.append((ts, eth + ip + tcp + payload))

    def write(self, path):
        with open(path, 'wb') as f:
            f.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
            for ts, b in sorted(self.frames, key=lambda x: x[0]):
                f.write(struct.pack('<IIII', ts // 10**9, ts % 10**9 // 1000,
                                    len(b), len(b)))
                f.write(b)


class Conn:
    """One TCP connection: client (ip, port) to server (ip, 2049)."""

    def __init__(self, pc, ts, cip, sip, cport):
        self.pc, self.c, self.s, self.cp = pc, cip, sip, cport
        self.cseq, self.sseq = 1000, 50000
        pc.frame(ts, cip, sip, cport, 2049, self.cseq - 1, 0, 0x02)
        pc.frame(ts + 100000, sip, cip, 2049, cport, self.sseq - 1, self.cseq, 0x12)
        pc.frame(ts + 150000, cip, sip, cport, 2049, self.cseq, self.sseq, 0x10)

    def send(self, ts, from_client, msg):
        rec = u32(0x80000000 | len(msg)) + msg
        for k in range(0, len(rec), 1448):
            seg = rec[k:k + 1448]
            if from_client:
                self.pc.frame(ts, self.c, self.s, self.cp, 2049, self.cseq,
                              self.sseq, 0x18, seg)
                self.cseq += len(seg)
            else:
                self.pc.frame(ts, self.s, self.c, 2049, self.cp, self.sseq,
                              self.cseq, 0x18, seg)
                self.sseq += len(seg)
            ts += 1000
        return ts - 1000        # the last segment's: the message's time


# ------------------------------------------------------------ the peers --
class Client:
    def __init__(self, gen, ip, port, xid0):
        self.g, self.ip = gen, ip
        self.conn = Conn(gen.pc, gen.t, ip, gen.sip, port)
        gen.t += MS
        self.xid, self.seq, self.sess, self.clientid = xid0, 0, b'\0' * 16, 0

    def rpc(self, ops, res, srv_ns=500000, gap=2 * MS):
        """One COMPOUND: call at now, reply srv_ns later; returns the
        reply's time."""
        g = self.g
        self.xid += 1
        t = g.t
        c = self.conn.send(t, True, compound_call(self.xid, ops))
        r = self.conn.send(t + srv_ns, False, compound_reply(self.xid, res))
        g.op(self.ip, ops, res, c, r)
        g.t += srv_ns + gap
        return t + srv_ns

    def seq_ops(self, *ops):
        self.seq += 1
        return [a_sequence(self.sess, self.seq)] + list(ops)

    def seq_res(self, *res):
        return [r_sequence(self.sess, self.seq)] + list(res)

    def exchange_id(self):
        self.clientid = 0x1122334400000000 + self.ip[3]
        args = (b'VERIFIER' + opaque(b'client-%d' % self.ip[3]) + u32(0) +
                u32(0) + u32(0))
        res = (u64(self.clientid) + u32(1) + u32(0) + u32(0) + u64(0) +
               opaque(b'server') + opaque(b'scope') + u32(0))
        self.rpc([(OP['EXCHANGE_ID'], args)], [(OP['EXCHANGE_ID'], OK, res)])

    def create_session(self, maxreq, maxresp, status=OK):
        n = self.g.sessions = self.g.sessions + 1
        sess = struct.pack('>IIII', 0x5e55, self.ip[3], n, 0)
        args = (u64(self.clientid) + u32(1) + u32(0) + chan(1049620, 1049480) +
                chan(4096, 4096) + u32(CB) + u32(1) + u32(0))
        res = sess + u32(1) + u32(0) + chan(maxreq, maxresp) + chan(4096, 4096)
        self.rpc([(OP['CREATE_SESSION'], args)],
                 [(OP['CREATE_SESSION'], status, res)])
        if status == OK:
            self.sess, self.seq = sess, 0

    def root(self):
        self.rpc(self.seq_ops((OP['PUTROOTFH'], b''), (OP['GETFH'], b'')),
                 self.seq_res((OP['PUTROOTFH'], OK, b''),
                              (OP['GETFH'], OK, opaque(self.g.rootfh))))

    def getattr_max(self, maxread, maxwrite):
        self.rpc(self.seq_ops(a_putfh(self.g.rootfh), a_getattr_max()),
                 self.seq_res((OP['PUTFH'], OK, b''),
                              r_getattr_max(maxread, maxwrite)))

    def open(self, name, fh, status=OK, deleg=False):
        ops = self.seq_ops(a_putfh(self.g.rootfh), a_open(name, self.clientid),
                           (OP['GETFH'], b''))
        res = [(OP['PUTFH'], OK, b''), r_open(deleg) if status == OK else
               (OP['OPEN'], status, b'')]
        if status == OK:
            res.append((OP['GETFH'], OK, opaque(fh)))
        return self.rpc(ops, self.seq_res(*res))

    def open_libnfs(self, name, fh):
        """libnfs 4.0's open: PUTFH GETATTR ACCESS OPEN name GETFH (its
        main op the ACCESS); the record's paths learn fh = /name."""
        ops = self.seq_ops(a_putfh(self.g.rootfh), a_getattr_max(),
                           (OP['ACCESS'], u32(0x3f)), a_open(name, self.clientid),
                           (OP['GETFH'], b''))
        res = self.seq_res((OP['PUTFH'], OK, b''), r_getattr_max(65536, 65536),
                           (OP['ACCESS'], OK, u32(0x3f) + u32(0x3f)), r_open(False),
                           (OP['GETFH'], OK, opaque(fh)))
        self.g.truth.setdefault('paths', {})[fh.hex()] = '/' + name.decode()
        return self.rpc(ops, res)

    def remove_then_lookup(self, gone, name, fh):
        """REMOVE gone, then LOOKUP name GETFH in one COMPOUND (main op the
        REMOVE, its name its own): fh is /name, never /gone."""
        change = u32(1) + u64(1) + u64(2)
        ops = self.seq_ops(a_putfh(self.g.rootfh), (OP['REMOVE'], opaque(gone)),
                           (OP['LOOKUP'], opaque(name)), (OP['GETFH'], b''))
        res = self.seq_res((OP['PUTFH'], OK, b''), (OP['REMOVE'], OK, change),
                           (OP['LOOKUP'], OK, b''), (OP['GETFH'], OK, opaque(fh)))
        self.g.truth.setdefault('not_paths', {})[fh.hex()] = '/' + gone.decode()
        return self.rpc(ops, res)

    def read(self, fh, off, count, status=OK):
        res = r_read(count) if status == OK else (OP['READ'], status, b'')
        return self.rpc(self.seq_ops(a_putfh(fh), a_read(off, count)),
                        self.seq_res((OP['PUTFH'], OK, b''), res))

    def write(self, fh, off, count):
        self.rpc(self.seq_ops(a_putfh(fh), a_write(off, count)),
                 self.seq_res((OP['PUTFH'], OK, b''), r_write(count)))

    def lock(self, fh, status=OK, test=False):
        a = a_lockt(self.clientid) if test else a_lock(2, self.clientid)
        op = a[0]
        r = (op, OK, STATEID if not test else b'') if status == OK else r_denied(op)
        return self.rpc(self.seq_ops(a_putfh(fh), a),
                        self.seq_res((OP['PUTFH'], OK, b''), r))

    def locku(self, fh):
        self.rpc(self.seq_ops(a_putfh(fh), a_locku()),
                 self.seq_res((OP['PUTFH'], OK, b''), (OP['LOCKU'], OK, STATEID)))

    def delegreturn(self, fh):
        self.rpc(self.seq_ops(a_putfh(fh), (OP['DELEGRETURN'], STATEID)),
                 self.seq_res((OP['PUTFH'], OK, b''), (OP['DELEGRETURN'], OK, b'')))

    def seq_error(self, fh, status):
        """A READ whose SEQUENCE fails (the COMPOUND stops there)."""
        self.xid += 1
        # a misordered call's sequence id is not the slot's next one
        self.wrong = getattr(self, 'wrong', 4) + 1
        seq = self.seq + (self.wrong if status == SEQ_MISORDERED else 1)
        ops = [a_sequence(self.sess, seq), a_putfh(fh), a_read(0, 4096)]
        g = self.g
        res = [(OP['SEQUENCE'], status, b'')]
        self.conn.send(g.t, True, compound_call(self.xid, ops))
        self.conn.send(g.t + 300000, False, compound_reply(self.xid, res))
        g.op(self.ip, ops, res, g.t, g.t + 300000)
        g.t += 2 * MS
        if status != SEQ_MISORDERED:
            self.seq = seq

    def recall(self, fh, ident=1):
        """The server's CB_RECALL on this client's connection."""
        g = self.g
        g.cbxid += 1
        ops = [(OP['CB_SEQUENCE'], self.sess + u32(1) + u32(0) + u32(0) +
                u32(0) + u32(0)), (OP['CB_RECALL'], STATEID + u32(0) + opaque(fh))]
        self.conn.send(g.t, False, compound_call(g.cbxid, ops, CB, ident))
        res = [(OP['CB_SEQUENCE'], OK, self.sess + u32(1) + u32(0) + u32(0) +
                u32(0)), (OP['CB_RECALL'], OK, b'')]
        self.conn.send(g.t + 200000, True, compound_reply(g.cbxid, res))
        t = g.t
        g.t += MS
        return t


class Gen:
    def __init__(self):
        self.pc = Pcap()
        self.t = 1700000000 * 10**9
        self.sip = [10, 0, 4, 2]
        self.rootfh = b'ROOT' + b'\0' * 12
        self.sessions = 0
        self.cbxid = 0x70000000
        self.truth = {'kinds': {}, 'waits_ns': {}, 'ops': []}

    def op(self, ip, ops, res, call_ns, reply_ns):
        """The record of a COMPOUND: its main op as nfsiostat names it
        (the first op that is not SEQUENCE, PUTFH, PUTROOTFH, GETFH or
        GETATTR; else GETATTR; else the last), its status, its times."""
        names = {v: k for k, v in OP.items() if not k.startswith('CB_')}
        setup = {'SEQUENCE', 'PUTFH', 'PUTROOTFH', 'GETFH', 'GETATTR'}
        ns = [names[o] for o, _ in ops]
        main = next((n for n in ns if n not in setup),
                    'GETATTR' if 'GETATTR' in ns else ns[-1])
        status = next((st for _, st, _ in res if st != OK), OK)
        self.truth['ops'].append({'client': '.'.join(map(str, ip)),
                                  'op': main, 'status': status,
                                  'first_call_ns': call_ns,
                                  'reply_ns': reply_ns})

    def count(self, kind, n=1, wait=0):
        self.truth['kinds'][kind] = self.truth['kinds'].get(kind, 0) + n
        self.truth['waits_ns'][kind] = self.truth['waits_ns'].get(kind, 0) + wait

    def setup(self, c, maxreq=69632, maxresp=69632, maxread=65536,
              maxwrite=65536):
        c.exchange_id()
        c.create_session(maxreq, maxresp)
        c.root()
        c.getattr_max(maxread, maxwrite)
        self.truth['session'] = [maxreq, maxresp]
        self.truth['getattr'] = [maxread, maxwrite]


FH1 = b'FILE1' + b'\0' * 11
FH2 = b'FILE2' + b'\0' * 11


def io(g, c, size, n=20):
    for k in range(n):
        c.read(FH1, k * size, size)
    for k in range(n):
        c.write(FH1, k * size, size)
    g.truth['io'] = {'size': size, 'reads': n, 'writes': n}


def healthy(g):
    c = Client(g, [10, 0, 4, 1], 801, 0x1000)
    g.setup(c)
    c.open(b'file1', FH1)
    io(g, c, 65536)


def session_small(g):
    c = Client(g, [10, 0, 4, 1], 801, 0x1000)
    g.setup(c, 17408, 17408, 1048576, 1048576)
    c.open(b'file1', FH1)
    io(g, c, 16384, 30)


def server_small(g):
    """The other way of session_small: GETATTR says 16k, the session's
    fore channel (69632) leaves more: the server's maximum is the limit."""
    c = Client(g, [10, 0, 4, 1], 801, 0x1000)
    g.setup(c, 69632, 69632, 16384, 16384)
    c.open(b'file1', FH1)
    io(g, c, 16384, 30)


def paths(g):
    """Files opened as libnfs opens them (the name in the OPEN after the
    main op, ACCESS), one looked up after a REMOVE in one COMPOUND; READs
    and WRITEs of each by handle (truth: paths, not_paths)."""
    c = Client(g, [10, 0, 4, 1], 801, 0x1000)
    g.setup(c)
    c.open_libnfs(b'file1', FH1)
    c.remove_then_lookup(b'old', b'file2', FH2)
    for fh in (FH1, FH2):
        c.read(fh, 0, 4096)
        c.write(fh, 0, 4096)


def errors(g):
    c = Client(g, [10, 0, 4, 1], 801, 0x1000)
    g.setup(c)
    c.open(b'file1', FH1)
    io(g, c, 65536, 5)
    for k in range(6):         # DELAY, then the same READ 100 ms later
        t0 = g.t
        c.read(FH1, k * 4096, 4096, DELAY)
        g.t = t0 + 100 * MS
        g.count('nfs4_delay', 1, c.read(FH1, k * 4096, 4096) - t0)
    t0 = g.t                   # an OPEN refused in grace, 3 times
    for k in range(3):
        g.t = t0 + k * 1000 * MS
        c.open(b'file2', FH2, GRACE)
    g.t = t0 + 3000 * MS
    g.count('nfs4_grace', 3, c.open(b'file2', FH2) - t0)
    t0 = g.t                   # the session lost, a new one made
    c.seq_error(FH1, BADSESSION)
    g.t += 5 * MS
    t1 = g.t
    c.create_session(69632, 69632)
    g.count('session_lost', 1, t1 + 500000 - t0)
    for k in range(2):
        c.seq_error(FH1, SEQ_MISORDERED)
    g.count('seq_misordered', 2)
    t0 = g.t
    c.create_session(69632, 69632, STALE_CLIENTID)   # the client id lost
    c.exchange_id()
    t1 = g.t
    c.create_session(69632, 69632)
    g.count('stale_clientid', 1, t1 + 500000 - t0)
    io(g, c, 65536, 5)


def two_clients(g):
    """10.0.4.1 set up as healthy, 10.0.4.3 with a session of its own."""
    a = Client(g, [10, 0, 4, 1], 801, 0x1000)
    b = Client(g, [10, 0, 4, 3], 802, 0x5000)
    g.setup(a)
    b.exchange_id()
    b.create_session(69632, 69632)
    return a, b


def recall(g):
    a, b = two_clients(g)
    for k in range(6):
        a.open(b'file1', FH1, deleg=True)
        a.read(FH1, 0, 4096)
        t0 = g.t
        b.open(b'file1', FH1, DELAY)   # the conflicting open waits
        tr = a.recall(FH1)
        g.t = tr + 30 * MS
        a.delegreturn(FH1)
        g.count('deleg_recall', 1, 30 * MS)
        g.truth['returns'] = g.truth.get('returns', 0) + 1
        g.t = t0 + 100 * MS
        g.count('nfs4_delay', 1, b.open(b'file1', FH1) - t0)
        g.t += 50 * MS
    g.truth['delay_client'] = '10.0.4.3'


def locks(g):
    a, b = two_clients(g)
    a.open(b'file1', FH1)
    b.open(b'file1', FH1)
    a.lock(FH1)
    t0 = g.t
    b.lock(FH1, DENIED, test=True)
    for k in range(8):
        g.t = t0 + (k + 1) * 200 * MS
        b.lock(FH1, DENIED)
    a.locku(FH1)
    g.t = t0 + 2000 * MS
    g.count('lock_contention', 9, b.lock(FH1) - t0)
    g.truth['lock_client'] = '10.0.4.3'


def replay(g):
    c = Client(g, [10, 0, 4, 1], 801, 0x1000)
    g.setup(c)
    c.open(b'file1', FH1)
    io(g, c, 65536, 3)
    for k in range(12):
        # a READ whose reply never comes on this connection ...
        c.xid += 1
        c.seq += 1
        ops = [a_sequence(c.sess, c.seq), a_putfh(FH1), a_read(k * 4096, 4096)]
        c.conn.send(g.t, True, compound_call(c.xid, ops))
        g.t += 5 * MS
        # ... resent on a new connection, same slot and sequence id
        c.conn = Conn(g.pc, g.t, c.ip, g.sip, 900 + k)
        g.t += MS
        c.xid += 1
        c.conn.send(g.t, True, compound_call(c.xid, ops))
        c.conn.send(g.t + 300000, False, compound_reply(
            c.xid, [r_sequence(c.sess, c.seq), (OP['PUTFH'], OK, b''),
                    r_read(4096)]))
        g.t += 2 * MS
    g.count('session_replay', 12)


def main():
    out, truth, name = sys.argv[1:4]
    g = Gen()
    {'healthy': healthy, 'session_small': session_small, 'server_small': server_small,
     'paths': paths,
     'errors': errors,
     'recall': recall, 'locks': locks, 'replay': replay}[name](g)
    g.pc.write(out)
    with open(truth, 'w') as f:
        json.dump(g.truth, f, indent=1)


if __name__ == '__main__':
    main()
