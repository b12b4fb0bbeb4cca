#!/usr/bin/env python3
"""v41deleg.py [--wait S] SERVER DIR OUT create|hold|write FILE...: a small NFSv4.1 client
(RFC 8881's XDR, sockets only) that holds, or breaks, read delegations.

Both modes make one session on one TCP connection: EXCHANGE_ID,
CREATE_SESSION with a back channel on that connection
(CREATE_SESSION4_FLAG_CONN_BACK_CHAN, callback program 0x40000000,
AUTH_NONE), RECLAIM_COMPLETE; each file is reached by PUTROOTFH, LOOKUP
DIR, GETFH once, then PUTFH DIR, OPEN name, GETFH (as Linux opens).

hold: opens each FILE for read (share READ, deny NONE) and keeps it open,
noting the delegation the server granted; prints "held N" (N files with
a read delegation) and then serves the back channel: answers CB_NULL,
and CB_COMPOUND (CB_SEQUENCE, CB_RECALL) with NFS4_OK, then returns the
recalled delegation (SEQUENCE PUTFH DELEGRETURN) and closes the file.
It ends when every delegation has been recalled and returned, or after
--wait seconds (default 30), when it returns the delegations still held
(DELEGRETURN unasked).

create: creates each FILE (OPEN4_CREATE, UNCHECKED4), writes 96 bytes.

write: opens each FILE for write (share WRITE) in rounds: every file not
yet open is asked in turn, and one answered NFS4ERR_DELAY (the server is
recalling its delegation) is asked again in the next round, 100 ms later,
up to 300 rounds; once open: WRITE 8 bytes, CLOSE.

OUT is the client's own record (JSON): per file the delegation granted,
the CB_RECALL received (xid, time, the handle), the DELEGRETURN sent
(xid, time, status); the writer's DELAYs and grant time.  Times are
CLOCK_REALTIME in ns, the captures' clock.  This is the ground truth of
lab_v4_deleg.py; nothing here reads nfscope."""
import json
import os
import socket
import struct
import sys
import time

PROG_NFS, PROG_CB = 100003, 0x40000000
OP = {'DELEGRETURN': 8, 'CLOSE': 4, 'GETFH': 10, 'LOOKUP': 15, 'OPEN': 18,
      'PUTFH': 22, 'PUTROOTFH': 24, 'WRITE': 38, 'EXCHANGE_ID': 42,
      'CREATE_SESSION': 43, 'DESTROY_SESSION': 44, 'SEQUENCE': 53,
      'DESTROY_CLIENTID': 57, 'RECLAIM_COMPLETE': 58}
CB_RECALL, CB_SEQUENCE = 4, 11
NFS4_OK, NFS4ERR_DELAY = 0, 10008
SHARE_READ, SHARE_WRITE = 1, 2


class Enc:
    def __init__(self):
        self.b = bytearray()

    def u32(self, v):
        self.b += struct.pack('>I', v)
        return self

    def u64(self, v):
        self.b += struct.pack('>Q', v)
        return self

    def fixed(self, data):
        self.b += data + b'\0' * (-len(data) % 4)
        return self

    def opaque(self, data):
        return self.u32(len(data)).fixed(data)


class Dec:
    def __init__(self, b):
        self.b, self.i = b, 0

    def u32(self):
        v = struct.unpack_from('>I', self.b, self.i)[0]
        self.i += 4
        return v

    def u64(self):
        v = struct.unpack_from('>Q', self.b, self.i)[0]
        self.i += 8
        return v

    def fixed(self, n):
        v = self.b[self.i:self.i + n]
        self.i += n + (-n % 4)
        return v

    def opaque(self):
        return self.fixed(self.u32())


def channel_attrs(e, maxreq, maxresp, cached, ops, reqs):
    e.u32(0).u32(maxreq).u32(maxresp).u32(cached).u32(ops).u32(reqs).u32(0)


def skip_channel_attrs(d):
    for _ in range(6):
        d.u32()
    for _ in range(d.u32()):
        d.u32()


class Client:
    def __init__(self, server, name):
        self.sock = socket.create_connection((server, 2049), timeout=30)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.name = name.encode()
        self.xid = int.from_bytes(os.urandom(4), 'big') & 0x7fffffff
        self.buf = b''
        self.backlog = []           # calls on the back channel, not yet handled
        self.seq = 0
        self.sessionid = None
        self.dirfh = None

    # ------------------------------------------------------ transport --
    def send_record(self, body):
        self.sock.sendall(struct.pack('>I', 0x80000000 | len(body)) + body)

    def read_record(self):
        out = b''
        while True:
            while len(self.buf) < 4:
                self._fill()
            mark = struct.unpack_from('>I', self.buf)[0]
            n = mark & 0x7fffffff
            while len(self.buf) < 4 + n:
                self._fill()
            out += self.buf[4:4 + n]
            self.buf = self.buf[4 + n:]
            if mark & 0x80000000:
                return out

    def _fill(self):
        data = self.sock.recv(65536)
        if not data:
            raise EOFError('the server closed the connection')
        self.buf += data

    # ------------------------------------------------------ fore channel --
    def compound(self, ops, seq=True):
        """ops: [(opname, encoder(Enc))]; returns [(op, status, Dec)] of the
        reply's results (the decoder placed at each op's result body,
        parsed by the caller in order), the compound status, and the xid."""
        self.xid += 1
        xid = self.xid
        e = Enc().u32(xid).u32(0).u32(2).u32(PROG_NFS).u32(4).u32(1)
        cred = Enc().u32(0).opaque(b'lab').u32(0).u32(0).u32(0)
        e.u32(1).opaque(bytes(cred.b)).u32(0).u32(0)      # AUTH_SYS, AUTH_NONE verf
        e.opaque(b'').u32(1)                               # tag, minor version 1
        if seq and self.sessionid:
            self.seq += 1
            ops = [('SEQUENCE', lambda x: x.fixed(self.sessionid).u32(self.seq)
                    .u32(0).u32(0).u32(0))] + ops
        e.u32(len(ops))
        for name, enc in ops:
            e.u32(OP[name])
            enc(e)
        sent = time.time_ns()
        self.send_record(bytes(e.b))
        while True:
            msg = self.read_record()
            d = Dec(msg)
            rxid, mtype = d.u32(), d.u32()
            if mtype == 0:
                self.backlog.append((msg, time.time_ns()))
                continue
            if rxid != xid:
                raise RuntimeError('reply xid %#x, waiting for %#x' % (rxid, xid))
            if d.u32() != 0:
                raise RuntimeError('RPC call denied')
            d.u32()
            d.opaque()                      # verifier
            if d.u32() != 0:
                raise RuntimeError('RPC accept_stat not SUCCESS')
            status = d.u32()
            d.opaque()                      # tag
            d.u32()                         # results
            return status, Dec(msg[d.i:]), xid, sent

    # ------------------------------------------------------ session --
    def session(self):
        status, d, _, _ = self.compound([('EXCHANGE_ID', lambda e: e.fixed(os.urandom(8))
                                          .opaque(self.name).u32(0).u32(0).u32(0))],
                                        seq=False)
        if status != NFS4_OK:
            raise RuntimeError('EXCHANGE_ID: %d' % status)
        d.u32()
        d.u32()                             # EXCHANGE_ID, its status
        self.clientid = d.u64()
        seqid = d.u32()

        def cs(e):
            e.u64(self.clientid).u32(seqid).u32(2)          # CONN_BACK_CHAN
            channel_attrs(e, 1049620, 1049480, 3428, 8, 16)
            channel_attrs(e, 4096, 4096, 0, 2, 1)
            e.u32(PROG_CB).u32(1).u32(0)                     # AUTH_NONE
        status, d, _, _ = self.compound([('CREATE_SESSION', cs)], seq=False)
        if status != NFS4_OK:
            raise RuntimeError('CREATE_SESSION: %d' % status)
        d.u32()
        d.u32()
        self.sessionid = bytes(d.fixed(16))
        status, _, _, _ = self.compound([('RECLAIM_COMPLETE', lambda e: e.u32(0))])
        if status != NFS4_OK:
            raise RuntimeError('RECLAIM_COMPLETE: %d' % status)

    def close_session(self):
        self.compound([('DESTROY_SESSION', lambda e: e.fixed(self.sessionid))], seq=False)
        self.compound([('DESTROY_CLIENTID', lambda e: e.u64(self.clientid))], seq=False)

    def lookup_dir(self, dirname):
        """PUTROOTFH LOOKUP dir GETFH, once: the directory's handle."""
        if self.dirfh is None:
            status, d, _, _ = self.compound([
                ('PUTROOTFH', lambda e: None),
                ('LOOKUP', lambda e: e.opaque(dirname.encode())),
                ('GETFH', lambda e: None)])
            if status != NFS4_OK:
                raise RuntimeError('LOOKUP %s: %d' % (dirname, status))
            skip_sequence(d)
            for _ in range(4):              # PUTROOTFH, LOOKUP
                d.u32()
            d.u32()
            d.u32()                         # GETFH, its status
            self.dirfh = bytes(d.opaque())
        return self.dirfh

    def open(self, dirname, fname, access, create=False):
        """PUTFH dir OPEN name GETFH, as Linux opens a file: (status, open
        stateid, delegation type, delegation stateid, fh, xid).  create:
        OPEN4_CREATE UNCHECKED4, no attributes."""
        dirfh = self.lookup_dir(dirname)
        def op(e):
            e.u32(0).u32(access).u32(0).u64(self.clientid).opaque(self.name + b'-owner')
            if create:
                e.u32(1).u32(0).u32(0).u32(0)             # CREATE UNCHECKED4, fattr4 {}
            else:
                e.u32(0)                                   # NOCREATE
            e.u32(0).opaque(fname.encode())                # CLAIM_NULL
        status, d, xid, _ = self.compound([
            ('PUTFH', lambda e: e.opaque(dirfh)), ('OPEN', op), ('GETFH', lambda e: None)])
        if status != NFS4_OK:
            return status, None, None, None, None, xid
        skip_sequence(d)
        d.u32()
        d.u32()                             # PUTFH, its status
        d.u32()
        d.u32()                             # OPEN, its status
        stateid = bytes(d.fixed(16))
        d.u32()
        d.u64()
        d.u64()                             # change_info4
        d.u32()                             # rflags
        for _ in range(d.u32()):            # attrset
            d.u32()
        dtype = d.u32()
        dstate = None
        if dtype in (1, 2):
            dstate = bytes(d.fixed(16))
            d.u32()                         # recall
            if dtype == 2:
                d.u32()
                d.u64()                     # space limit
            d.u32()
            d.u32()
            d.u32()
            d.opaque()                      # nfsace4
        elif dtype == 3:
            if d.u32() in (1, 2):
                d.u32()
        d.u32()
        d.u32()                             # GETFH, its status
        fh = bytes(d.opaque())
        return status, stateid, dtype, dstate, fh, xid

    def putfh_op(self, fh, name, enc):
        return self.compound([('PUTFH', lambda e: e.opaque(fh)), (name, enc)])

    # ------------------------------------------------------ back channel --
    def serve_one(self, timeout):
        """Wait for one call on the back channel (or take one already
        read); answer it.  Returns (proc, {recall fields}) or None at
        timeout."""
        if not self.backlog:
            self.sock.settimeout(timeout)
            try:
                msg = self.read_record()
            except socket.timeout:
                return None
            finally:
                self.sock.settimeout(30)
            self.backlog.append((msg, time.time_ns()))
        msg, at = self.backlog.pop(0)
        d = Dec(msg)
        xid, mtype = d.u32(), d.u32()
        if mtype != 0:
            raise RuntimeError('a reply %#x nobody waits for' % xid)
        d.u32()
        prog, _, proc = d.u32(), d.u32(), d.u32()
        d.u32()
        d.opaque()                          # credential
        d.u32()
        d.opaque()                          # verifier
        head = Enc().u32(xid).u32(1).u32(0).u32(0).u32(0).u32(0)
        if prog != PROG_CB or proc == 0:
            self.send_record(bytes(head.b))
            return proc, {'xid': xid, 'at_ns': at}
        d.opaque()                          # tag
        d.u32()                             # minor version
        d.u32()                             # callback_ident
        res, info = Enc(), {'xid': xid, 'at_ns': at, 'ops': []}
        n = d.u32()
        for _ in range(n):
            op = d.u32()
            info['ops'].append(op)
            if op == CB_SEQUENCE:
                sid, seqid, slot, high = bytes(d.fixed(16)), d.u32(), d.u32(), d.u32()
                d.u32()
                for _ in range(d.u32()):    # referring call lists
                    d.fixed(16)
                    for _ in range(d.u32()):
                        d.u32()
                        d.u32()
                res.u32(op).u32(NFS4_OK).fixed(sid).u32(seqid).u32(slot).u32(high).u32(high)
            elif op == CB_RECALL:
                info['stateid'] = bytes(d.fixed(16))
                d.u32()
                info['fh'] = bytes(d.opaque())
                res.u32(op).u32(NFS4_OK)
            else:
                res.u32(op).u32(10004)      # NFS4ERR_NOTSUPP: stop here
                break
        status = 0 if len(info['ops']) == n else 10004
        body = Enc().u32(status).opaque(b'').u32(len(info['ops']))
        self.send_record(bytes(head.b) + bytes(body.b) + bytes(res.b))
        return proc, info


def skip_sequence(d):
    d.u32()
    if d.u32() == NFS4_OK:
        d.fixed(16)
        for _ in range(5):
            d.u32()


def hold(c, dirname, files, wait, rec):
    held = {}
    for f in files:
        status, stateid, dtype, dstate, fh, xid = c.open(dirname, f, SHARE_READ)
        rec['files'][f] = {'open_status': status, 'deleg_type': dtype, 'open_xid': xid,
                           'fh': fh.hex() if fh else None}
        if status == NFS4_OK and dtype == 1:
            held[fh] = (f, stateid, dstate)
        elif status == NFS4_OK:
            c.putfh_op(fh, 'CLOSE', lambda e, s=stateid: e.u32(0).fixed(s))
    print('held %d' % len(held), flush=True)
    deadline = time.time() + wait
    while held and time.time() < deadline:
        got = c.serve_one(max(0.1, deadline - time.time()))
        if got is None:
            break
        proc, info = got
        if proc == 0:
            rec['cb_null'] += 1
            continue
        rec['cb_compounds'] += 1
        if 'fh' not in info or info['fh'] not in held:
            rec['cb_other'].append(info['ops'])
            continue
        f, stateid, dstate = held.pop(info['fh'])
        r = rec['files'][f]
        r['recall'] = {'xid': info['xid'], 'at_ns': info['at_ns'],
                       'stateid_matches': info['stateid'] == dstate}
        status, _, xid, sent = c.putfh_op(info['fh'], 'DELEGRETURN',
                                          lambda e, s=dstate: e.fixed(s))
        r['delegreturn'] = {'xid': xid, 'sent_ns': sent, 'status': status}
        c.putfh_op(info['fh'], 'CLOSE', lambda e, s=stateid: e.u32(0).fixed(s))
    rec['not_recalled'] = sorted(f for f, _, _ in held.values())
    for fh, (f, stateid, dstate) in held.items():     # returned unasked
        status, _, xid, sent = c.putfh_op(fh, 'DELEGRETURN', lambda e, s=dstate: e.fixed(s))
        rec['files'][f]['delegreturn'] = {'xid': xid, 'sent_ns': sent, 'status': status,
                                          'unasked': True}
        c.putfh_op(fh, 'CLOSE', lambda e, s=stateid: e.u32(0).fixed(s))


def create(c, dirname, files, rec):
    for f in files:
        status, stateid, _, _, fh, _ = c.open(dirname, f, SHARE_WRITE, create=True)
        rec['files'][f] = {'create_status': status}
        if status != NFS4_OK:
            raise RuntimeError('create %s: %d' % (f, status))
        c.putfh_op(fh, 'WRITE', lambda e, s=stateid: e.fixed(s).u64(0).u32(2)
                   .opaque(b'delegate me\n' * 8))
        c.putfh_op(fh, 'CLOSE', lambda e, s=stateid: e.u32(0).fixed(s))


def write(c, dirname, files, rec):
    """Rounds: each file not yet open is asked in turn (so the server
    recalls all of them at once, and the refused OPENs of several files in
    one directory interleave); a file answered NFS4ERR_DELAY is asked
    again in the next round, 100 ms later."""
    pending = list(files)
    for f in files:
        rec['files'][f] = {'delays': 0, 'first_ns': None}
    for _ in range(300):
        for f in list(pending):
            r = rec['files'][f]
            r['first_ns'] = r['first_ns'] or time.time_ns()
            status, stateid, dtype, _, fh, _ = c.open(dirname, f, SHARE_WRITE)
            drain(c, rec)
            if status == NFS4ERR_DELAY:
                r['delays'] += 1
                continue
            pending.remove(f)
            r.update(open_status=status, granted_ns=time.time_ns(), deleg_type=dtype)
            if status != NFS4_OK:
                continue
            c.putfh_op(fh, 'WRITE', lambda e, s=stateid: e.fixed(s).u64(0).u32(2)
                       .opaque(b'written\n'))
            c.putfh_op(fh, 'CLOSE', lambda e, s=stateid: e.u32(0).fixed(s))
        if not pending:
            break
        time.sleep(0.1)
    for f in pending:
        rec['files'][f]['open_status'] = NFS4ERR_DELAY     # never granted
    drain(c, rec)


def drain(c, rec):
    """Answer the back channel's calls that came meanwhile (CB_NULL; no
    CB_COMPOUND expected: the writer holds no delegation)."""
    while c.backlog:
        proc, info = c.serve_one(0.1)
        if proc == 0:
            rec['cb_null'] += 1
        else:
            rec['cb_other'].append(info.get('ops'))


def main():
    args = sys.argv[1:]
    wait = 30.0
    if args[:1] == ['--wait']:
        wait, args = float(args[1]), args[2:]
    server, dirname, out, mode, files = args[0], args[1], args[2], args[3], args[4:]
    c = Client(server, 'nfscope-lab-%s-%d' % (mode, os.getpid()))
    rec = {'mode': mode, 'files': {}, 'cb_null': 0, 'cb_compounds': 0, 'cb_other': []}
    c.session()
    if mode == 'hold':
        hold(c, dirname, files, wait, rec)
    elif mode == 'create':
        create(c, dirname, files, rec)
    else:
        write(c, dirname, files, rec)
    c.close_session()
    with open(out, 'w') as f:
        json.dump(rec, f, indent=1)
    return 0


if __name__ == '__main__':
    sys.exit(main())
