#!/usr/bin/env python3
"""Reliability reproducers (issue 17) that need no privilege:

  op       --op with an unknown procedure name: exit 2, the valid names
  write    dump and report (text, JSON, CSV) into /dev/full: a message and
           a non-zero status; with SIGPIPE ignored, `dump | head -1` stops
           reading (the writer feeding its stdin sees the pipe close long
           before the end) and ends quietly
  store    two `record`s creating the same new database (12 tries): both
           runs stored, the file whole, nothing else left; a lock held
           by another process for 12 s: record waits, says so, completes;
           schema_version 4294967298 refused; and as root: a directory
           the -Z user cannot write, a read-only tmpfs, a full tmpfs: the
           real reason, nothing left behind
  lock     a TCP connection (SYN seen) whose first call is invalid (17
           AUTH_SYS gids), then 100 valid calls and 101 replies: the 100
           are decoded and the one hidden record is counted, by report
           -r and by record + report DB
  hostile  names and export paths with ESC sequences, newlines and CRs
           (a capture written byte by byte here): no control byte in any
           output, each string escaped the one way (\\xNN; JSON \\u00NN)

Ground truth: the bytes this script writes, the procedure names of the
RFCs (listed here), the capture's packet count (generator).

usage: rel.py NFSCOPE NFSGEN SAMPLE_PCAP WORKDIR
"""
import json
import os
import shutil
import signal
import sqlite3
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
import testlib  # noqa: E402
import tally  # noqa: E402
from tally import check  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pcapw import tcp_frame, udp_frame, write_pcap  # noqa: E402

NFSCOPE, NFSGEN, SAMPLE, WORK = sys.argv[1:5]
os.makedirs(WORK, exist_ok=True)


def run(*args, **kw):
    return testlib.run([NFSCOPE, *args], text=False, timeout=None, **kw)


# ------------------------------------------------------------------ op --

def test_op():
    p = run('report', '-r', SAMPLE, '--op', 'GETATTRR')
    err = p.stderr.decode()
    check(p.returncode == 2, '--op GETATTRR: exit %d (want 2)' % p.returncode)
    check(p.stdout == b'', '--op GETATTRR: nothing on stdout')
    for name in ('GETATTR', 'READDIRPLUS', 'COMMIT', 'MNT', 'GETPORT',
                 'LOCK', 'WRITECACHE'):
        check(' ' + name in err, '--op error lists %s: %s' % (name, err))
    for arg in ('getattr', 'READ', 'Mnt'):
        p = run('report', '-r', SAMPLE, '--op', arg)
        check(p.returncode == 0, '--op %s: exit %d %s' % (arg, p.returncode,
                                                         p.stderr))
    # the sample has GETATTR calls: the filter still finds them
    p = run('report', '-r', SAMPLE, '--op', 'getattr', '--json')
    ops = json.loads(p.stdout)['procedures']
    check([o['procedure'] for o in ops] == ['NFSv3 GETATTR'],
          '--op getattr keeps the GETATTR row: %s' % ops)


# --------------------------------------------------------------- write --

def test_write_errors(big):
    for args in (['dump'], ['dump', '--json'], ['report'],
                 ['report', '--json'], ['report', '--csv', 'ops']):
        with open('/dev/full', 'wb') as full:
            p = subprocess.run([NFSCOPE] + args + ['-r', SAMPLE],
                               stdout=full, stderr=subprocess.PIPE)
        err = p.stderr.decode()
        check(p.returncode != 0 and 'No space left' in err,
              '%s > /dev/full: exit %d, stderr %r' % (' '.join(args),
                                                      p.returncode, err))
    # SIGPIPE ignored (inherited), the reader reads one line then goes:
    # nfscope must stop reading its input; stdin is fed by a thread that
    # counts what it could write before the pipe closed
    size = os.path.getsize(big)
    fed = [0]

    def feed(w):
        with open(big, 'rb') as f:
            while True:
                b = f.read(65536)
                if not b:
                    break
                try:
                    os.write(w, b)
                except BrokenPipeError:
                    break
                fed[0] += len(b)
        os.close(w)

    r, w = os.pipe()
    p = subprocess.Popen([NFSCOPE, 'dump', '-r', '-'], stdin=r,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         preexec_fn=lambda: signal.signal(signal.SIGPIPE,
                                                          signal.SIG_IGN))
    os.close(r)
    t = threading.Thread(target=feed, args=(w,))
    t.start()
    line = p.stdout.readline()
    p.stdout.close()		# the reader goes away after one line
    err = p.stderr.read().decode()
    rc = p.wait()
    t.join()
    check(line.count(b' call xid ') == 1, 'dump | head -1: %r' % line)
    check(fed[0] < size // 2, 'dump with SIGPIPE ignored stops reading: '
          '%d of %d bytes fed' % (fed[0], size))
    check(err == '', 'dump | head -1 is quiet: %r' % err)
    check(rc == 141, 'dump | head -1: exit %d (141: ended by the pipe)' % rc)


# ------------------------------------------------------------- hostile --

EXPORT = b'/exp\x1b[31mRED\x1b[0m\nINCOMPLETE: fake\r'
NAME = b'f\x1b]0;pwned\x07\x1b[2J\n\\x'
MACHINE = b'host\x1b[5m\n'


def xdr_u32(v):
    return struct.pack('>I', v)


def xdr_opaque(b):
    return xdr_u32(len(b)) + b + b'\0' * (-len(b) % 4)


def rpc_call(xid, prog, vers, proc, body):
    cred = (xdr_u32(0) + xdr_opaque(MACHINE) + xdr_u32(0) + xdr_u32(0) +
            xdr_u32(0))
    return (xdr_u32(xid) + xdr_u32(0) + xdr_u32(2) + xdr_u32(prog) +
            xdr_u32(vers) + xdr_u32(proc) + xdr_u32(1) + xdr_opaque(cred) +
            xdr_u32(0) + xdr_u32(0) + body)


def rpc_reply(xid, body):
    return (xdr_u32(xid) + xdr_u32(1) + xdr_u32(0) + xdr_u32(0) +
            xdr_u32(0) + xdr_u32(0) + body)


def hostile_pcap(path):
    cl, sv = (10, 0, 0, 1), (10, 0, 0, 2)
    root, obj = b'R' * 32, b'O' * 32
    fattr = b''.join(xdr_u32(v) for v in [1, 0o644, 1, 0, 0] + [0] * 16)
    msgs = [
        # MOUNT v3 MNT EXPORT -> root handle
        (True, 20048, rpc_call(1, 100005, 3, 1, xdr_opaque(EXPORT))),
        (False, 20048, rpc_reply(1, xdr_u32(0) + xdr_opaque(root) +
                                 xdr_u32(1) + xdr_u32(1))),
        # NFSv3 LOOKUP (root, NAME) -> obj
        (True, 2049, rpc_call(2, 100003, 3, 3, xdr_opaque(root) +
                              xdr_opaque(NAME))),
        (False, 2049, rpc_reply(2, xdr_u32(0) + xdr_opaque(obj) +
                                xdr_u32(0) + xdr_u32(0))),
    ]
    for k in range(6):	# GETATTR of the file: a file row
        msgs.append((True, 2049, rpc_call(3 + k, 100003, 3, 1,
                                          xdr_opaque(obj))))
        msgs.append((False, 2049, rpc_reply(3 + k, xdr_u32(0) + fattr)))
    frames = []
    for call, port, m in msgs:
        if call:
            frames.append(udp_frame(cl, 800, sv, port, m))
        else:
            frames.append(udp_frame(sv, port, cl, 800, m))
    write_pcap(path, frames)


def esc(b):
    """The one escaping (ui/esc.h): \\xNN below 0x20, from 0x7f, backslash."""
    return ''.join('\\x%02x' % c if c < 0x20 or c >= 0x7f or c == 0x5c
                   else chr(c) for c in b)


def test_hostile():
    pcap = os.path.join(WORK, 'hostile.pcap')
    hostile_pcap(pcap)
    outs = {}
    for args in (['dump'], ['dump', '--json'], ['report'],
                 ['report', '--by', 'export'], ['report', '--by', 'file'],
                 ['report', '--wide', '--by', 'file'],
                 ['report', '--json', '--by', 'file'],
                 ['report', '--csv', 'ops', '--by', 'export'],
                 ['report', '--csv', 'ops', '--by', 'file'],
                 ['report', '--csv', 'findings']):
        p = run(*args, '-r', pcap)
        what = ' '.join(args)
        outs[what] = p.stdout
        check(p.returncode == 0, '%s: exit %d %s' % (what, p.returncode,
                                                   p.stderr))
        ctl = [c for c in p.stdout if (c < 0x20 and c != 0x0a) or c == 0x7f]
        check(not ctl, '%s: control bytes in the output: %r' % (what, ctl))
        check(not any(l.startswith(b'INCOMPLETE: fake')
                      for l in p.stdout.split(b'\n')),
              '%s: a wire string starts a line of its own' % what)
    check(esc(EXPORT) in outs['dump'].decode(), 'dump: export escaped')
    check(esc(NAME).replace('"', '\\x22') in outs['dump'].decode(),
          'dump: name escaped')
    check(esc(EXPORT) in outs['report --by export'].decode(),
          'report --by export: the export escaped: %s'
          % outs['report --by export'].decode())
    check(esc(NAME) in outs['report --wide --by file'].decode(),
          'report --wide --by file: the path escaped')
    check(esc(EXPORT) in outs['report --csv ops --by export'].decode(),
          'csv --by export: the export escaped')
    check(esc(NAME) in outs['report --csv ops --by file'].decode(),
          'csv --by file: the path escaped')
    js = json.loads(outs['report --json --by file'])
    keys = [o.get('key', '') for o in js['files']]
    check(any(NAME.decode() in k for k in keys),
          'JSON keeps the name (JSON-escaped, decoded back equal): %s' % keys)
    rows = outs['report --csv ops --by file'].decode().rstrip('\n').split('\n')
    check(len(rows) >= 2 and all(r.count(',') >= 10 for r in rows),
          'csv: every row whole on one line: %s' % rows)


# ---------------------------------------------------------------- lock --

def lock_pcap(path, ncalls=100):
    cl, sv = (10, 0, 0, 1), (10, 0, 0, 2)
    fh = b'H' * 32
    fattr = b''.join(xdr_u32(v) for v in [1, 0o644, 1, 0, 0] + [0] * 16)
    SYN, ACK, PSH = 0x02, 0x10, 0x08
    frames = [tcp_frame(cl, 900, sv, 2049, 1000, SYN, b''),
              tcp_frame(sv, 2049, cl, 900, 5000, SYN | ACK, b'')]
    cseq, sseq = 1001, 5001
    for k in range(ncalls + 1):
        xid = 0x100 + k
        if k == 0:	# AUTH_SYS with 17 gids: RFC 5531 allows 16
            cred = (xdr_u32(0) + xdr_opaque(b'c') + xdr_u32(0) + xdr_u32(0) +
                    xdr_u32(17) + b''.join(xdr_u32(g) for g in range(17)))
            call = (xdr_u32(xid) + xdr_u32(0) + xdr_u32(2) +
                    xdr_u32(100003) + xdr_u32(3) + xdr_u32(1) + xdr_u32(1) +
                    xdr_opaque(cred) + xdr_u32(0) + xdr_u32(0) +
                    xdr_opaque(fh))
        else:
            call = rpc_call(xid, 100003, 3, 1, xdr_opaque(fh))
        rec = xdr_u32(0x80000000 | len(call)) + call
        frames.append(tcp_frame(cl, 900, sv, 2049, cseq, ACK | PSH, rec))
        cseq += len(rec)
        rep = rpc_reply(xid, xdr_u32(0) + fattr)
        rec = xdr_u32(0x80000000 | len(rep)) + rep
        frames.append(tcp_frame(sv, 2049, cl, 900, sseq, ACK | PSH, rec))
        sseq += len(rec)
    write_pcap(path, frames)


def test_lock():
    pcap = os.path.join(WORK, 'lock.pcap')
    lock_pcap(pcap)
    p = run('dump', '--json', '-r', pcap)
    lines = [json.loads(l) for l in p.stdout.decode().splitlines()]
    summ = [l['summary'] for l in lines if 'summary' in l][0]
    calls = [l for l in lines if l.get('type', l.get('msg_type')) == 'call'
             or l.get('call') is True]
    check(summ['calls'] == 100, 'direction lock: %d of the 100 valid calls '
          'decoded (summary %s)' % (summ['calls'], summ))
    check(summ['orphan_replies'] == 1, 'direction lock: orphan replies %d '
          '(want 1: the hidden call\'s)' % summ['orphan_replies'])
    check(summ.get('tcp_rejected') == 1, 'direction lock: the hidden record '
          'counted: %s' % summ.get('tcp_rejected'))
    p = run('dump', '--wide', '-r', pcap)
    last = p.stdout.decode().splitlines()[-1]
    check(' 1 not decodable' in last, 'dump summary: %s' % last)
    p = run('report', '--json', '-r', pcap)
    js = json.loads(p.stdout)
    check(js['capture'].get('tcp_rejected') == 1,
          'report JSON capture.tcp_rejected: %s' % js['capture'])
    check(js['totals'].get('ops', js['totals'].get('answered')) is not None,
          'report JSON totals')
    # stored by record (runs.tcp_rejected, schema 4): report DB the same
    db = os.path.join(WORK, 'lock.db')
    p = run('record', '-r', pcap, '-w', db, '--force', '--quiet')
    check(p.returncode == 0, 'record lock.pcap: %s' % p.stderr)
    p = run('report', '--json', db)
    check(p.returncode == 0 and
          json.loads(p.stdout)['capture'].get('tcp_rejected') == 1,
          'report DB JSON capture.tcp_rejected: %s' % p.stdout[-300:])


# --------------------------------------------------------------- store --

def runs_of(db):
    con = sqlite3.connect(db)
    try:
        return (con.execute("PRAGMA integrity_check").fetchone()[0],
                con.execute("SELECT state FROM runs ORDER BY id").fetchall())
    finally:
        con.close()


def test_concurrent_create():
    d = os.path.join(WORK, 'race')
    bad = 0
    for t in range(12):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        db = os.path.join(d, 'new.db')
        ps = [subprocess.Popen([NFSCOPE, 'record', '-r', SAMPLE, '-w', db,
                                '--quiet'], stderr=subprocess.PIPE)
              for _ in range(2)]
        res = [(p.wait(), p.stderr.read().decode()) for p in ps]
        ok = all(rc == 0 for rc, _ in res) and os.path.exists(db)
        if ok:
            ic, st = runs_of(db)
            ok = ic == 'ok' and st == [('complete',), ('complete',)]
        left = sorted(f for f in os.listdir(d) if '.new-' in f)
        if not check(ok and not left, 'try %d: two creators: %s, file %s, '
                     'left %s' % (t, res, os.path.exists(db), left)):
            bad += 1
    print('concurrent creation: %d of 12 tries bad' % bad)


def test_lock_wait():
    db = os.path.join(WORK, 'locked.db')
    for f in (db, db + '-wal', db + '-shm'):
        if os.path.exists(f):
            os.unlink(f)
    p = run('record', '-r', SAMPLE, '-w', db, '--quiet')
    check(p.returncode == 0, 'record locked.db: %s' % p.stderr)
    con = sqlite3.connect(db, isolation_level=None)
    con.execute('BEGIN EXCLUSIVE')
    p = subprocess.Popen([NFSCOPE, 'record', '-r', SAMPLE, '-w', db,
                          '--quiet'], stderr=subprocess.PIPE)
    # held until record says it waits (after 10 s of waiting): at any
    # load, not a fixed 12 s that a late start may not fill
    time.sleep(12)
    err = p.stderr.readline().decode()
    con.execute('COMMIT')
    con.close()
    err += p.stderr.read().decode()
    rc = p.wait()
    check(rc == 0 and 'lock' in err, 'lock held 12 s: exit %d, %r' % (rc, err))
    ic, st = runs_of(db)
    check(st == [('complete',), ('complete',)], 'lock held 12 s: runs %s' % st)


def test_schema_version():
    db = os.path.join(WORK, 'version.db')
    for f in (db, db + '-wal', db + '-shm'):
        if os.path.exists(f):
            os.unlink(f)
    run('record', '-r', SAMPLE, '-w', db, '--quiet')
    con = sqlite3.connect(db)
    con.execute('UPDATE schema_version SET version = 4294967298')
    con.commit()
    con.close()
    for args in (['record', '-r', SAMPLE, '-w', db], ['report', db]):
        p = run(*args)
        check(p.returncode == 1 and b'4294967298' in p.stderr,
              '%s on schema_version 4294967298: exit %d %r'
              % (args[0], p.returncode, p.stderr))
    ic, st = runs_of(db)
    check(st == [('complete',)], 'schema_version 4294967298: not appended '
          'to: %s' % st)


def mount_tmpfs(d, opts):
    os.makedirs(d, exist_ok=True)
    return subprocess.run(['mount', '-t', 'tmpfs', '-o', opts, 'tmpfs', d],
                          capture_output=True).returncode == 0


def expect_no_create(d, why, extra=()):
    db = os.path.join(d, 'x.db')
    before = sorted(os.listdir(d))
    p = run('record', '-r', SAMPLE, '-w', db, *extra)
    err = p.stderr.decode()
    check(p.returncode == 1 and why in err,
          '%s: exit %d %r (want %r)' % (d, p.returncode, err, why))
    check(sorted(os.listdir(d)) == before, '%s: left %s' % (
        d, sorted(set(os.listdir(d)) - set(before))))


def test_create_errors():
    if os.geteuid() != 0:
        d = os.path.join(WORK, 'ro-dir')
        os.makedirs(d, exist_ok=True)
        os.chmod(d, 0o555)
        expect_no_create(d, 'Permission denied')
        print('not root: read-only and full tmpfs checks skipped')
        return
    d = os.path.join(WORK, 'nobody-dir')
    os.makedirs(d, exist_ok=True)
    os.chmod(d, 0o755)
    os.chmod(WORK, 0o755)
    expect_no_create(d, 'Permission denied', ['-Z', 'nobody'])
    ro = os.path.join(WORK, 'ro-mnt')
    if mount_tmpfs(ro, 'ro,size=1m'):
        try:
            expect_no_create(ro, 'Read-only file system')
        finally:
            subprocess.run(['umount', ro])
    else:
        print('mount failed: read-only tmpfs check skipped')
    full = os.path.join(WORK, 'full-mnt')
    if mount_tmpfs(full, 'size=64k'):
        try:
            with open(os.path.join(full, 'filler'), 'wb') as f:
                try:
                    f.write(b'x' * 60 * 1024)
                except OSError:
                    pass
            expect_no_create(full, 'No space left')
        finally:
            subprocess.run(['umount', full])
    else:
        print('mount failed: full tmpfs check skipped')


def main():
    test_op()
    big = os.path.join(WORK, 'big.pcap')
    subprocess.run([NFSGEN, '-o', big, '--seed', '5', '--transport', 'udp',
                    '--count', '150000', '--mix', 'meta'], check=True, capture_output=True)
    test_write_errors(big)
    os.unlink(big)
    test_hostile()
    test_lock()
    test_schema_version()
    test_create_errors()
    test_concurrent_create()
    test_lock_wait()
    return tally.summary('rel')


if __name__ == '__main__':
    sys.exit(main())
