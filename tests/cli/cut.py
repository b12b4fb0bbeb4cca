#!/usr/bin/env python3
"""cut.py NFSCOPE NFSGEN SRCDIR WORKDIR - captures cut short or damaged.

A capture cut at every byte offset within its last packets (classic pcap:
the bundled lab-demo.pcap (its first 1500 packets) and a
generator capture over TCP; pcapng: a
public capture written as pcapng here, and the public pcapng capture) must
give the report of the same capture truncated cleanly to the packets that
were whole, with the warning first, `read_error` naming the packet count
and the file offset where the damage begins, `complete: false` and exit
status 3.  A damaged record (pcap) or block (pcapng) in the middle: the
same, for the packets before it.  dump prints every message of the clean
prefix then the reason; record stores the ops of the clean prefix and
closes the run in state 'cut' with the reason and offset.

Ground truth: the packet boundaries come from the record headers (pcap) or
block headers (pcapng), read here in Python; the clean prefix is written
here too.  Neither uses nfscope's reader.
"""
import concurrent.futures
import json
import os
import sqlite3
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
import tally  # noqa: E402
import testlib  # noqa: E402
from tally import check  # noqa: E402

NFSCOPE, NFSGEN, SRC, WORK = sys.argv[1:5]
# the public captures it cuts are bundled in pcaps/golden (pcaps/MANIFEST)
PUBLIC = os.path.join(SRC, 'pcaps', 'golden')
EXIT_CUT = 3
# CUT_STEP=N: every N-th offset only (a quick run on a loaded machine);
# by default every offset in the full tier (NFSCOPE_TESTS=full, as CI
# runs it), every 7th in the quick tier
STEP = int(os.environ.get('CUT_STEP') or
           (1 if os.environ.get('NFSCOPE_TESTS') == 'full' else 7))


def run(*args):
    return testlib.run([NFSCOPE, *args], errors='replace', timeout=None)


def packets(data, bounds=None):
    """[(start, end)] of each packet record (pcap) or packet block (pcapng)
    that lies whole in data, and the format; the end of every whole record
    or block is added to the set bounds."""
    magic = data[:4]
    out = []
    bounds = set() if bounds is None else bounds
    if magic == b'\x0a\x0d\x0d\x0a':
        bo = '<' if data[8:12] == b'\x4d\x3c\x2b\x1a' else '>'
        off = 0
        while off + 12 <= len(data):
            btype, blen = struct.unpack(bo + 'II', data[off:off + 8])
            if blen < 12 or off + blen > len(data):
                break
            if btype in (6, 3, 2):		# EPB, SPB, obsolete PB
                out.append((off, off + blen))
            off += blen
            bounds.add(off)
        return out, 'pcapng'
    bo = '<' if magic in (b'\xd4\xc3\xb2\xa1', b'\x4d\x3c\xb2\xa1') else '>'
    off = 24
    while off + 16 <= len(data):
        caplen = struct.unpack(bo + 'I', data[off + 8:off + 12])[0]
        if off + 16 + caplen > len(data):
            break
        out.append((off, off + 16 + caplen))
        off += 16 + caplen
        bounds.add(off)
    return out, 'pcap'


def to_pcapng(pcap):
    """The records of a little-endian microsecond pcap as pcapng: SHB,
    IDB, one EPB each, and an ISB at the end (a block after the last
    packet, so a cut there loses no packet)."""
    linktype, = struct.unpack('<I', pcap[20:24])
    snap, = struct.unpack('<I', pcap[16:20])

    def block(btype, body):
        body += b'\0' * (-len(body) % 4)
        n = 12 + len(body)
        return struct.pack('<II', btype, n) + body + struct.pack('<I', n)

    out = block(0x0a0d0d0a, struct.pack('<IHHq', 0x1a2b3c4d, 1, 0, -1))
    out += block(1, struct.pack('<HHI', linktype, 0, snap))
    off = 24
    while off + 16 <= len(pcap):
        sec, usec, caplen, wire = struct.unpack('<IIII', pcap[off:off + 16])
        ts = sec * 1000000 + usec
        out += block(6, struct.pack('<IIIII', 0, ts >> 32, ts & 0xffffffff,
                                    caplen, wire) +
                     pcap[off + 16:off + 16 + caplen])
        off += 16 + caplen
    out += block(5, struct.pack('<III', 0, 0, 0))
    return out


def comparable(rep):
    """A report's JSON without what names the file or its completeness."""
    rep = dict(rep)
    for k in ('source', 'complete', 'incomplete'):
        rep.pop(k, None)
    if rep.get('verdict'):	# issue 30: the verdict says complete or not
        v = dict(rep['verdict'])
        for k in ('healthy', 'complete'):
            v.pop(k, None)
        v['lines'] = [x for x in v.get('lines', ())
                      if x['key'] not in ('verdict', 'capture')]
        rep['verdict'] = v
    return rep


def report(path):
    p = run('report', '--json', '-r', path)
    try:
        return p.returncode, json.loads(p.stdout), p.stderr
    except ValueError:
        return p.returncode, None, p.stderr


def write(name, data):
    path = os.path.join(WORK, name)
    with open(path, 'wb') as f:
        f.write(data)
    return path


def cut_everywhere(name, data, last, step=1):
    """Cut data at every offset (every step-th, and every one of the
    first and last 32 bytes of a packet) within its last `last` packets."""
    bounds = set()
    recs, fmt = packets(data, bounds)
    check(len(recs) >= last, '%s: %d packets' % (name, len(recs)))
    lo = recs[-last][0]
    clean = {}
    for n in range(len(recs) - last, len(recs) + 1):
        end = recs[n - 1][1] if n else recs[0][0]
        clean[n] = report(write('%s.clean%d' % (name, n), data[:end]))
        check(clean[n][0] == 0 and clean[n][1] is not None,
              '%s: clean prefix of %d packets: exit %d %s' %
              (name, n, clean[n][0], clean[n][2][-200:]))

    def one(off):
        whole = sum(1 for r in recs if r[1] <= off)
        path = write('%s.cut%d' % (name, off), data[:off])
        rc, rep, err = report(path)
        os.unlink(path)
        return off, whole, rc, rep, err

    with concurrent.futures.ThreadPoolExecutor(2) as ex:
        offs = [o for o in range(lo, len(data))
                if (o - lo) % (step * STEP) == 0 or
                (STEP == 1 and any(a <= o < a + 32 or b - 32 <= o < b
                                   for a, b in recs[-last:]))]
        results = list(ex.map(one, offs))
    bad = 0
    for off, whole, rc, rep, err in results:
        at_end = off in bounds
        want_off = recs[whole - 1][1] if whole else recs[0][0]
        if at_end:	# a cut at a record or block boundary: a whole file
            ok = rc == 0 and rep is not None and rep['complete']
        else:
            e = rep and rep['incomplete'].get('read_error')
            ok = (rc == EXIT_CUT and rep is not None and not rep['complete']
                  and e and e['packets'] == whole and
                  e['offset'] == want_off and e['reason'] and
                  'INPUT CUT' in err)
        ok = ok and comparable(rep) == comparable(clean[whole][1])
        if not ok:
            bad += 1
            if bad <= 5:
                check(False, '%s cut at %d (%d whole packets, damage at %d): '
                      'exit %d, read_error %s, %s' %
                      (name, off, whole, want_off, rc,
                       rep and rep['incomplete'].get('read_error'), err[-200:]))
    check(bad == 0, '%s: %d of %d cuts differ from the clean prefix' %
          (name, bad, len(results)))
    print('%s (%s): %d cuts within the last %d packets, %d wrong' %
          (name, fmt, len(results), last, bad))
    return recs, clean


def text_first(path):
    """The text report's warning is in its first lines (--wide: the
    header on one line)."""
    p = run('report', '--wide', '-r', path)
    lines = p.stdout.splitlines()
    check(p.returncode == EXIT_CUT and len(lines) > 3 and
          lines[2].startswith('INCOMPLETE: input cut: reading stopped after '
                              'packet'),
          'text report of %s: exit %d, first lines %s' %
          (path, p.returncode, lines[:3]))


def dump_and_record(name, data, recs, n):
    """Cut in the middle of packet n+1: dump prints the clean prefix's
    messages, then the reason; record stores the clean prefix's ops."""
    cut = write(name + '.mid', data[:recs[n][0] + 7])
    clean = write(name + '.midclean', data[:recs[n][0]])
    d_cut, d_clean = run('dump', '--wide', '-r', cut), run('dump', '-r', clean)
    body = [l for l in d_cut.stdout.splitlines() if not l.startswith('#')]
    want = [l for l in d_clean.stdout.splitlines() if not l.startswith('#')]
    last = d_cut.stdout.splitlines()[-1] if d_cut.stdout else ''
    check(d_cut.returncode == EXIT_CUT and body == want and len(want) > 0 and
          last.startswith('# INPUT CUT: reading stopped after packet %d' % n),
          '%s: dump of a cut file: exit %d, %d messages (clean %d), last %r'
          % (name, d_cut.returncode, len(body), len(want), last))
    j = run('dump', '--json', '-r', cut).stdout.splitlines()
    s = json.loads(j[-1])['summary'] if j else {}
    check(s.get('read_error', {}).get('packets') == n,
          '%s: dump --json summary read_error %s' % (name, s.get('read_error')))
    db = os.path.join(WORK, name + '.db')
    for f in (db, db + '-wal', db + '-shm'):
        if os.path.exists(f):
            os.unlink(f)
    r = run('record', '-r', cut, '-w', db, '--quiet')
    con = sqlite3.connect(db)
    row = con.execute('SELECT state, packets, ops_stored, read_error, '
                      'read_error_offset FROM runs').fetchall()
    nops = con.execute('SELECT count(*) FROM ops').fetchone()[0]
    con.close()
    _, rep, _ = report(clean)
    check(r.returncode == EXIT_CUT and len(row) == 1 and row[0][0] == 'cut'
          and row[0][1] == n and row[0][2] == nops == rep['totals']['ops']
          and row[0][3] and row[0][4] == recs[n][0],
          '%s: record of a cut file: exit %d, run %s, %d ops stored, clean '
          'prefix has %d; %s' % (name, r.returncode, row, nops,
                                 rep['totals']['ops'], r.stderr[-200:]))
    rc, stored, err = (lambda p: (p.returncode, p.stdout, p.stderr))(
        run('report', '--json', db))
    stored = json.loads(stored) if rc == 0 else None
    check(stored is not None and not stored['complete'] and
          stored['incomplete']['read_error']['packets'] == n and
          stored['totals'] == rep['totals'],
          '%s: report of the cut run: %s %s' %
          (name, stored and stored['incomplete'], err[-200:]))


def damaged(name, data, recs, n, fmt):
    """A damaged record or block in the middle, before packet n+1."""
    b = bytearray(data)
    start = recs[n][0]
    if fmt == 'pcap':	# caplen far past any snapshot length
        b[start + 8:start + 12] = struct.pack('<I', 0x7ffffff0)
    else:		# a block length below the minimum
        b[start + 4:start + 8] = struct.pack('<I', 4)
    path = write(name + '.damaged', bytes(b))
    rc, rep, err = report(path)
    _, want, _ = report(write(name + '.dclean', data[:start]))
    e = rep and rep['incomplete']['read_error']
    check(rc == EXIT_CUT and e and e['packets'] == n and
          e['offset'] == start and comparable(rep) == comparable(want),
          '%s: damaged %s at %d: exit %d, %s %s' %
          (name, 'record' if fmt == 'pcap' else 'block', start, rc, e,
           err[-200:]))


def main():
    os.makedirs(WORK, exist_ok=True)
    # lab-demo's first 1500 packets (each of the ~1,000 runs reads it all)
    lab = open(os.path.join(SRC, 'pcaps', 'lab-demo.pcap'), 'rb').read()
    lab = lab[:packets(lab)[0][1499][1]]
    gen = os.path.join(WORK, 'gen.pcap')
    subprocess.run([NFSGEN, '--transport', 'tcp', '--count', '30', '--seed',
                    '3', '-o', gen], check=True, capture_output=True)
    gen = open(gen, 'rb').read()
    base = open(os.path.join(PUBLIC, 'zeek_zeek__testing_btest_Traces_nfs_'
                             'nfs_base.pcap'), 'rb').read()
    ng = to_pcapng(base)
    pub_ng = open(os.path.join(PUBLIC, 'the-tcpdump-group_tcpdump__tests_'
                               'nfs-seg-fault-1.pcapng'), 'rb').read()
    caps = [('lab-demo', lab, 3), ('gen-tcp', gen, 2), ('zeek-ng', ng, 3),
            ('tcpdump-ng', pub_ng, 1)]
    for name, data, last in caps:
        # the public pcapng's one packet is 7.6 KB: every 61st byte there
        recs, _ = cut_everywhere(name, data, last, 61 if last == 1 else 1)
    for name, data, _ in caps[:3]:
        recs, fmt = packets(data)
        n = len(recs) * 2 // 3
        dump_and_record(name, data, recs, n)
        damaged(name, data, recs, n, fmt)
    text_first(os.path.join(WORK, 'lab-demo.mid'))
    sys.exit(tally.summary())


main()
