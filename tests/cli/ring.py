#!/usr/bin/env python3
"""Rotated and compressed captures (issue 19): a ring written by tcpdump
-C itself, read with several -r, a quoted glob and in shuffled order, gives
the report of the whole capture (TCP flows and pending calls cross the
file boundaries); gzip-compressed files and rings; zstd, xz and bzip2
files as their tools write them (whole, concatenated streams, cut,
damaged); a cut or damaged file
in the middle of a ring stops there as a single cut file does (exit 3,
the file named, the later files counted, record's run 'cut'); files that
overlap in time (two mirror ports: the capture split by client) are merged
by timestamp into the report of the whole capture, a frame found in two
files is taken once, and a cut file among merged ones stops the reading
after the packets that came before its cut.

Ground truth: the generator's per-operation record, the whole capture
(the ring's files are tcpdump's split of it), and the packets and offsets
this script counts itself in the pcap (and the gunzipped) bytes.

usage: ring.py NFSCOPE NFSGEN WORKDIR
"""
import bz2
import gzip
import json
import os
import shutil
import sqlite3
import struct
import subprocess
import sys
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
import testlib  # noqa: E402
import tally  # noqa: E402
from tally import check  # noqa: E402
from pcaprec import whole_records  # noqa: E402

NFSCOPE, NFSGEN, WORK = [os.path.abspath(a) for a in sys.argv[1:4]]


def run(*args):
    return testlib.run([NFSCOPE, *args], cwd=WORK)


def report(*args):
    p = run('report', '--json', *args)
    return (json.loads(p.stdout) if p.stdout else None), p


def w(name):
    return os.path.join(WORK, name)


def setup():
    subprocess.run([NFSGEN, '-o', w('gen.pcap'), '--count', '3000', '--mix',
                    'all', '--transport', 'tcp', '--seed', '5',
                    '--ops-truth', w('truth.ndjson')], check=True,
                   capture_output=True)
    # tcpdump writes microseconds: the whole capture as its ring has it
    subprocess.run(['tcpdump', '-r', w('gen.pcap'), '-w', w('whole.pcap')],
                   check=True, capture_output=True)
    os.makedirs(w('ring'))
    subprocess.run(['tcpdump', '-r', w('whole.pcap'), '-w', w('ring/cap'),
                    '-C', '2', '-Z', 'root'], check=True, capture_output=True)
    files = sorted(os.listdir(w('ring')))
    return ['ring/' + f for f in files]


def same(a, b, what):
    diff = [k for k in a if k != 'source' and a[k] != b.get(k)]
    check(not diff, '%s: differs from the whole capture in %s' % (what, diff))


def test_ring(ring, whole):
    with open(w('truth.ndjson')) as f:
        nops = sum(1 for l in f if l.strip())
    check(whole['totals']['ops'] == nops,
          'whole capture: %d ops, generator %d' % (whole['totals']['ops'], nops))
    check(len(ring) >= 5, 'tcpdump -C 2 wrote %d files' % len(ring))
    order = ring[2:] + ring[:2]          # shuffled: time order is found
    for args, what in ((['-r', 'ring/cap*'], 'a quoted glob'),
                       (sum([['-r', f] for f in order], []), 'shuffled -r'),
                       (sum([['-r', f] for f in ring], []), '-r in order')):
        rep, p = report(*args)
        check(p.returncode == 0 and rep is not None, '%s: %d %s' %
              (what, p.returncode, p.stderr[:300]))
        if rep:
            same(whole, rep, what)
            check(rep['source'].endswith('(%d files)' % len(ring)),
                  '%s: source %r' % (what, rep['source']))
    d1 = run('dump', '-r', 'whole.pcap')
    d2 = run('dump', '-r', 'ring/cap*')
    check(d1.stdout == d2.stdout and d2.returncode == 0,
          'dump of the ring = dump of the whole capture')
    db = w('ring.db')
    p = run('record', '-q', '-w', db, '-r', 'ring/cap*')
    row = sqlite3.connect(db).execute(
        'SELECT state, packets, (SELECT count(*) FROM ops) FROM runs'
    ).fetchone()
    check(p.returncode == 0 and row[0] == 'complete' and row[2] == nops,
          'record of the ring: %s %s' % (row, p.stderr[:200]))


def test_gzip(ring, whole):
    for src, dst in (('whole.pcap', 'whole.pcap.gz'),
                     (ring[1], 'r1.gz'), (ring[3], 'r3.gz')):
        with open(w(src), 'rb') as f, gzip.open(w(dst), 'wb') as g:
            g.write(f.read())
    rep, p = report('-r', 'whole.pcap.gz')
    check(rep is not None and p.returncode == 0, 'gz: %s' % p.stderr[:200])
    if rep:
        same(whole, rep, 'whole.pcap.gz')
    # a ring with some files compressed (tcpdump -z gzip does that)
    mixed = [ring[0], 'r1.gz', ring[2], 'r3.gz'] + ring[4:]
    rep, p = report(*sum([['-r', f] for f in mixed], []))
    check(rep is not None and p.returncode == 0, 'mixed ring: %s' % p.stderr)
    if rep:
        same(whole, rep, 'a ring with gzipped files')
    # pcapng, gzipped
    subprocess.run(['editcap', '-F', 'pcapng', w('whole.pcap'),
                    w('whole.pcapng')], check=True, capture_output=True)
    with open(w('whole.pcapng'), 'rb') as f, \
            gzip.open(w('whole.pcapng.gz'), 'wb') as g:
        g.write(f.read())
    rep, p = report('-r', 'whole.pcapng.gz')
    check(rep is not None and p.returncode == 0, 'pcapng.gz: %s' % p.stderr)
    if rep:
        same(whole, rep, 'whole.pcapng.gz')
    # cut in the middle of the compressed stream: the whole records of
    # what zlib still decompresses, their offset in the uncompressed data
    raw = open(w('whole.pcap.gz'), 'rb').read()
    with open(w('cut.gz'), 'wb') as f:
        f.write(raw[:len(raw) // 2])
    n, off = whole_records(zlib.decompressobj(31).decompress(raw[:len(raw) // 2]))
    p = run('dump', '--wide', '-r', 'cut.gz')
    last = p.stdout.splitlines()[-1] if p.stdout else ''
    check(p.returncode == 3 and last.startswith(
        '# INPUT CUT: reading stopped after packet %d at byte %d: ' % (n, off))
          and 'gzip: offsets in the uncompressed data' in last,
          'cut.gz: exit %d, %r (want %d packets, byte %d)' %
          (p.returncode, last, n, off))
    # damaged compressed data: stops with exit 3 (what zlib gave before
    # is read), never a crash
    bad = bytearray(raw)
    for i in range(len(bad) // 2, len(bad) // 2 + 64):
        bad[i] ^= 0x55
    open(w('bad.gz'), 'wb').write(bad)
    p = run('report', '-r', 'bad.gz')
    check(p.returncode == 3 and 'INCOMPLETE: input cut' in p.stdout,
          'damaged gz: exit %d %s' % (p.returncode, p.stderr[:200]))


def decompress_cut(tool, path):
    """What the reference decoder gives from a cut file: zstd's own tool
    (it stops with an error after writing what it could); bzip2's tool
    holds back its last output on an error, Python's bz2 module (libbz2)
    does not."""
    if tool == 'bzip2':
        return bz2.BZ2Decompressor().decompress(open(path, 'rb').read())
    return subprocess.run([tool, '-dc', path], capture_output=True).stdout


def test_compressed(whole):
    """zstd, xz and bzip2 as their own tools write them: whole, as
    concatenated streams (pzstd, xz -T, pbzip2), cut and damaged."""
    data = open(w('whole.pcap'), 'rb').read()
    half = len(data) // 2
    for tool, ext in (('zstd', 'zst'), ('xz', 'xz'), ('bzip2', 'bz2')):
        def pack(raw):
            return subprocess.run([tool, '-1', '-c'], input=raw, check=True,
                                  capture_output=True).stdout
        z = pack(data)
        open(w('whole.pcap.' + ext), 'wb').write(z)
        rep, p = report('-r', 'whole.pcap.' + ext)
        check(rep is not None and p.returncode == 0,
              '%s: %s' % (ext, p.stderr[:200]))
        if rep:
            same(whole, rep, 'whole.pcap.' + ext)
        open(w('two.' + ext), 'wb').write(pack(data[:half]) + pack(data[half:]))
        rep, p = report('-r', 'two.' + ext)
        check(rep is not None and p.returncode == 0,
              'two %s streams: %s' % (ext, p.stderr[:200]))
        if rep:
            same(whole, rep, 'two concatenated %s streams' % ext)
        open(w('cut.' + ext), 'wb').write(z[:len(z) // 2])
        n, off = whole_records(decompress_cut(tool, w('cut.' + ext)))
        p = run('dump', '--wide', '-r', 'cut.' + ext)
        last = p.stdout.splitlines()[-1] if p.stdout else ''
        check(p.returncode == 3 and last.startswith(
            '# INPUT CUT: reading stopped after packet %d at byte %d: ' % (n, off))
              and '(%s: offsets in the uncompressed data)' % tool in last,
              'cut.%s: exit %d, %r (want %d packets, byte %d)' %
              (ext, p.returncode, last, n, off))
        bad = bytearray(z)
        for i in range(len(bad) // 2, len(bad) // 2 + 64):
            bad[i] ^= 0x55
        open(w('bad.' + ext), 'wb').write(bad)
        p = run('report', '-r', 'bad.' + ext)
        check(p.returncode == 3 and 'INCOMPLETE: input cut' in p.stdout,
              'damaged %s: exit %d %s' % (ext, p.returncode, p.stderr[:200]))


def test_cut_in_ring(ring):
    data = open(w(ring[2]), 'rb').read()
    cut = data[:len(data) // 2]
    open(w('ring/cut2'), 'wb').write(cut)
    n_cut, off = whole_records(cut)
    before = sum(whole_records(open(w(f), 'rb').read())[0] for f in ring[:2])
    files = ring[:2] + ['ring/cut2'] + ring[3:]
    later = len(ring) - 3
    args = sum([['-r', f] for f in files], [])
    want = ('reading stopped after packet %d at byte %d: ring/cut2: '
            'truncated dump file' % (before + n_cut, off))
    p = run('report', '--wide', *args)
    lines = p.stdout.splitlines()
    check(p.returncode == 3 and len(lines) > 2 and
          lines[2].startswith('INCOMPLETE: input cut: ' + want) and
          lines[2].endswith('; %d later files not read' % later),
          'report, a ring cut in its third file: exit %d, %r' %
          (p.returncode, lines[2] if len(lines) > 2 else p.stderr))
    j, p = report(*args)
    e = j['incomplete']['read_error'] if j else {}
    check(p.returncode == 3 and e.get('packets') == before + n_cut and
          e.get('offset') == off, 'report --json read_error %s' % e)
    p = run('dump', '--wide', *args)
    check(p.returncode == 3 and
          p.stdout.splitlines()[-1].startswith('# INPUT CUT: ' + want),
          'dump of the cut ring: %d' % p.returncode)
    db = w('cut.db')
    p = run('record', '-q', '-w', db, *args)
    row = sqlite3.connect(db).execute(
        'SELECT state, packets, read_error_offset, read_error FROM runs'
    ).fetchone()
    check(p.returncode == 3 and row[0] == 'cut' and row[1] == before + n_cut
          and row[2] == off and row[3].startswith('ring/cut2: truncated'),
          'record of the cut ring: exit %d, %s' % (p.returncode, row))
    # a file that is not a capture in the middle: the same, named
    open(w('ring/junk'), 'wb').write(b'not a capture at all\n' * 10)
    p = run('report', '-r', ring[0], '-r', 'ring/junk', '-r', ring[1])
    check(p.returncode == 3 and 'ring/junk' in p.stdout and
          'INCOMPLETE: input cut' in p.stdout,
          'a junk file in a ring: exit %d %s' % (p.returncode, p.stderr))


def records(data):
    """[(time in us, record bytes)] of a little-endian microsecond pcap."""
    out, off = [], 24
    while off + 16 <= len(data):
        sec, usec, incl = struct.unpack('<III', data[off:off + 12])
        if off + 16 + incl > len(data):
            break
        out.append((sec * 1000000 + usec, data[off:off + 16 + incl]))
        off += 16 + incl
    return out


def client_of(rec):
    """The client address (10.0.0.K) of an Ethernet/IPv4 frame, else None."""
    frame = rec[16:]
    if len(frame) < 34 or frame[12:14] != b'\x08\x00':
        return None
    src, dst = frame[26:30], frame[30:34]
    return src if src[:3] == bytes([10, 0, 0]) else dst


def test_overlap(ring, whole):
    """Two mirror ports: the whole capture split by client into two files
    that overlap in time all along; merged by timestamp, they give the
    whole capture's report, in any order, compressed or not."""
    data = open(w('whole.pcap'), 'rb').read()
    recs = records(data)
    clients = sorted({client_of(r) for _, r in recs} - {None})
    check(len(clients) >= 2, 'the generator used %d clients' % len(clients))
    half = set(clients[:len(clients) // 2])
    a = [x for x in recs if client_of(x[1]) in half]
    b = [x for x in recs if client_of(x[1]) not in half]
    check(a and b and a[-1][0] > b[0][0] and b[-1][0] > a[0][0],
          'the two ports overlap in time')
    for name, part in (('port-a.pcap', a), ('port-b.pcap', b)):
        open(w(name), 'wb').write(data[:24] + b''.join(r for _, r in part))
    with open(w('port-b.pcap'), 'rb') as f, gzip.open(w('port-b.pcap.gz'),
                                                     'wb') as g:
        g.write(f.read())
    for args, what in ((['-r', 'port-a.pcap', '-r', 'port-b.pcap'],
                        'two ports merged'),
                       (['-r', 'port-b.pcap', '-r', 'port-a.pcap'],
                        'two ports, given the other way round'),
                       (['-r', 'port-a.pcap', '-r', 'port-b.pcap.gz'],
                        'two ports, one gzipped')):
        rep, p = report(*args)
        check(p.returncode == 0 and rep is not None, '%s: exit %d %s' %
              (what, p.returncode, p.stderr[:300]))
        if rep:
            same(whole, rep, what)
        check('2 files overlapping in time were merged by timestamp\n'
              in p.stderr and 'taken once' not in p.stderr,
              '%s: the notice %r' % (what, p.stderr[:300]))
    d1 = run('dump', '-r', 'whole.pcap')
    d2 = run('dump', '-r', 'port-b.pcap', '-r', 'port-a.pcap')
    check(d1.stdout == d2.stdout and d2.returncode == 0,
          'dump of the two ports = dump of the whole capture')
    # a file of the ring given again with the whole capture: its frames
    # (the same times and bytes) are taken once
    n1 = whole_records(open(w(ring[1]), 'rb').read())[0]
    rep, p = report('-r', 'whole.pcap', '-r', ring[1])
    check(p.returncode == 0 and rep is not None, 'whole + a ring file')
    if rep:
        same(whole, rep, 'whole + a ring file')
    check('; %d frames found in two of them (the same time and bytes) '
          'taken once' % n1 in p.stderr, 'duplicates: want %d, %r' %
          (n1, p.stderr[:300]))
    # a cut in one of the merged files: the packets before it, merged
    cut_b = b[:len(b) // 2]
    open(w('port-bcut.pcap'), 'wb').write(
        data[:24] + b''.join(r for _, r in cut_b) + b[len(b) // 2][1][:30])
    t_last = cut_b[-1][0]
    a_first = a[0][0] <= b[0][0]         # a sorts first: it wins ties
    n_a = sum(1 for t, _ in a if t < t_last or (a_first and t == t_last))
    j, p = report('-r', 'port-a.pcap', '-r', 'port-bcut.pcap')
    e = j['incomplete']['read_error'] if j else {}
    off = 24 + sum(len(r) for _, r in cut_b)
    check(p.returncode == 3 and e.get('packets') == n_a + len(cut_b) and
          e.get('offset') == off and e.get('reason', '').startswith(
              'port-bcut.pcap: truncated dump file'),
          'a cut among merged files: exit %d, %s (want %d packets, byte %d)'
          % (p.returncode, e, n_a + len(cut_b), off))
    p = run('report', '-r', 'no-such-*.pcap')
    check(p.returncode == 2 and 'no file matches' in p.stderr,
          'a glob matching nothing: %d %s' % (p.returncode, p.stderr))


if __name__ == '__main__':
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    ring = setup()
    whole, p = report('-r', 'whole.pcap')
    check(whole is not None and p.returncode == 0, 'whole capture')
    test_ring(ring, whole)
    test_gzip(ring, whole)
    test_compressed(whole)
    test_cut_in_ring(ring)
    test_overlap(ring, whole)
    sys.exit(tally.summary('ring'))
