#!/usr/bin/env python3
"""Damaged and hostile compressed captures (issue 32), a test per defect:

- xz_forged_dictionary: a 1 GiB dictionary forged in a small xz file is
  refused under the decoder memory limit, the message naming
  --decompress-mem; raised, the same file is read whole.
- zstd_long30: `zstd --long=30` input (a 1 GiB window) likewise: a clear
  message, not "Input/output error"; read whole with --decompress-mem 2g.
- damage_keeps_decoded_bytes: xz with trailing garbage gives every packet
  (as `xz -dc` does); a stream damaged in its middle (gzip, zstd, xz,
  bzip2) gives every whole packet of what the reference decoder delivers
  before the damage, and the cut at exactly the end of the last one.
- compressed_on_pipe: each kind on stdin and through a FIFO is found by its
  first bytes and read as from a file.

Ground truth: the capture's own records counted here, the tools' own
decoders (xz -dc, zstd -dc) and Python's zlib and bz2 fed in small pieces.

usage: zdamage.py NFSCOPE PCAP WORKDIR
"""
import bz2
import gzip
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import threading
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
import testlib  # noqa: E402
import tally  # noqa: E402
from tally import check  # noqa: E402
from pcaprec import whole_records  # noqa: E402

NFSCOPE, PCAP, WORK = [os.path.abspath(a) for a in sys.argv[1:4]]


def w(name):
    return os.path.join(WORK, name)


def run(*args, stdin=None):
    return testlib.run([NFSCOPE, *args], text=False, cwd=WORK, stdin=stdin)


def report(*args, stdin=None):
    p = run('report', '--json', *args, stdin=stdin)
    try:
        return json.loads(p.stdout), p
    except ValueError:
        return None, p


def pack(tool, raw, *opts):
    return subprocess.run([tool, '-q', '-c'] + list(opts), input=raw,
                          check=True, capture_output=True).stdout


def compress(kind, raw):
    return gzip.compress(raw, 1) if kind == 'gzip' else pack(kind, raw, '-1')


def ops(rep):
    return rep and rep.get('operations')


def have(*tools):
    return all(shutil.which(t) for t in tools)


def xz_forged_dictionary(data, plain):
    """The LZMA2 dictionary byte of the first block header set to 1 GiB,
    the header's CRC32 made right again."""
    z = bytearray(pack('xz', data, '-1'))
    size = (z[12] + 1) * 4
    hdr = z[12:12 + size]
    i = hdr.find(b'\x21\x01', 2)
    check(i > 0, 'xz block header: LZMA2 filter found')
    hdr[i + 2] = 36                         # (2 << 29): 1 GiB
    hdr[-4:] = struct.pack('<I', zlib.crc32(bytes(hdr[:-4])))
    z[12:12 + size] = hdr
    open(w('forged.xz'), 'wb').write(z)
    p = run('report', '-r', 'forged.xz')
    err = p.stderr.decode(errors='replace')
    check(p.returncode not in (0, 3) and '--decompress-mem' in err and
          'MiB' in err and len(p.stderr) < 400,
          'xz_forged_dictionary: refused with --decompress-mem named: '
          'exit %d %r' % (p.returncode, err[:300]))
    rep, p = report('--decompress-mem', '2g', '-r', 'forged.xz')
    check(p.returncode == 0 and ops(rep) == ops(plain),
          'xz_forged_dictionary: read whole with --decompress-mem 2g: '
          'exit %d %s' % (p.returncode, p.stderr[:200]))


def zstd_long30(data, plain):
    # through stdin the size is unknown: the frame keeps its 1 GiB window
    open(w('long30.zst'), 'wb').write(pack('zstd', data, '-1', '--long=30'))
    p = run('report', '-r', 'long30.zst')
    err = p.stderr.decode(errors='replace')
    check(p.returncode not in (0, 3) and '--decompress-mem' in err and
          'Input/output error' not in err,
          'zstd_long30: a clear message: exit %d %r' % (p.returncode, err))
    rep, p = report('--decompress-mem', '2g', '-r', 'long30.zst')
    check(p.returncode == 0 and ops(rep) == ops(plain),
          'zstd_long30: read whole with --decompress-mem 2g: exit %d %s' %
          (p.returncode, p.stderr[:200]))


def chunked(dec, data, step=97):
    """What a Python decoder gives before it fails, fed in small pieces."""
    out = []
    try:
        for i in range(0, len(data), step):
            out.append(dec.decompress(data[i:i + step]))
    except (OSError, EOFError, zlib.error):
        pass
    return b''.join(out)


def reference(kind, damaged):
    if kind == 'gzip':
        return chunked(zlib.decompressobj(31), damaged)
    if kind == 'bzip2':
        return chunked(bz2.BZ2Decompressor(), damaged)
    return subprocess.run([kind, '-dc'], input=damaged,
                          capture_output=True).stdout


def damage_keeps_decoded_bytes(data, plain):
    total = whole_records(data)
    z = pack('xz', data, '-1') + b'one line of trailing garbage\n'
    open(w('garbage.xz'), 'wb').write(z)
    rep, p = report('-r', 'garbage.xz')
    e = rep and rep['incomplete']['read_error'] or {}
    check(p.returncode == 3 and ops(rep) == ops(plain) and
          e.get('packets') == total[0] and e.get('offset') == total[1],
          'damage_keeps_decoded_bytes: xz + garbage: every packet (want '
          '%s, got %s, exit %d)' % (total, e, p.returncode))
    # two streams (pigz, pzstd, xz -T, pbzip2 write several), the second
    # one's header damaged: every byte of the first is delivered, and the
    # cut is exactly its end (the old reader lost what the decoder call
    # that found the damage had made)
    half = whole_records(data[:len(data) // 2])
    for kind in ('gzip', 'zstd', 'xz', 'bzip2'):
        first = compress(kind, data[:half[1]])
        second = bytearray(compress(kind, data[half[1]:]))
        second[:8] = b'GARBAGE!'
        open(w('two.' + kind), 'wb').write(first + second)
        rep, p = report('-r', 'two.' + kind)
        e = rep and rep['incomplete']['read_error'] or {}
        check(p.returncode == 3 and
              (e.get('packets'), e.get('offset')) == half and
              ('%s: ' % kind) in e.get('reason', '') and
              len(first) <= found_at(e) <= len(first) + 16,
              'damage_keeps_decoded_bytes: %s, second stream damaged: '
              'every byte of the first (want %s, got %s, exit %d)' %
              (kind, half, e, p.returncode))
    # damage inside a stream: every whole packet of what the reference
    # decoder delivers before it (zstd checks a frame only at its end and
    # its tool holds back its last output: at least what it gives)
    for kind in ('gzip', 'zstd', 'xz', 'bzip2'):
        z = bytearray(compress(kind, data))
        mid = len(z) * 2 // 3
        for i in range(mid, mid + 64):
            z[i] ^= 0x55
        open(w('bad.' + kind), 'wb').write(z)
        want = whole_records(reference(kind, bytes(z)))
        rep, p = report('-r', 'bad.' + kind)
        e = rep and rep['incomplete']['read_error'] or {}
        got = (e.get('packets'), e.get('offset'))
        check(p.returncode == 3 and want[0] > total[0] // 3 and
              (got == want or (kind == 'zstd' and got[0] >= want[0])),
              'damage_keeps_decoded_bytes: damaged %s: every whole packet '
              'decoded before the damage (want %s, got %s, exit %d)' %
              (kind, want, e, p.returncode))


def found_at(e):
    """The compressed byte a read error's reason names (the decoder stops
    a few bytes into what it cannot read), -1."""
    m = re.search(r'found at compressed byte (\d+)', e.get('reason', ''))
    return int(m.group(1)) if m else -1


def feed(path, raw):
    with open(path, 'wb') as f:
        f.write(raw)


def compressed_on_pipe(data, plain):
    for kind in ('plain', 'gzip', 'zstd', 'xz', 'bzip2'):
        z = data if kind == 'plain' else compress(kind, data)
        open(w('in.' + kind), 'wb').write(z)
        with open(w('in.' + kind), 'rb') as f:
            p = subprocess.Popen(['cat'], stdin=f, stdout=subprocess.PIPE)
            rep, q = report('-r', '-', stdin=p.stdout)
            p.wait()
        check(q.returncode == 0 and ops(rep) == ops(plain),
              'compressed_on_pipe: %s on stdin: exit %d %s' %
              (kind, q.returncode, q.stderr[:200]))
        fifo = w('fifo.' + kind)
        if os.path.exists(fifo):
            os.unlink(fifo)
        os.mkfifo(fifo)
        t = threading.Thread(target=feed, args=(fifo, z))
        t.start()
        rep, q = report('-r', fifo)
        t.join()
        check(q.returncode == 0 and ops(rep) == ops(plain),
              'compressed_on_pipe: %s through a FIFO: exit %d %s' %
              (kind, q.returncode, q.stderr[:200]))


def main():
    if not have('xz', 'zstd', 'bzip2'):
        print('SKIP: xz, zstd and bzip2 tools needed')
        return 77
    os.makedirs(WORK, exist_ok=True)
    data = open(PCAP, 'rb').read()
    plain, p = report('-r', PCAP)
    if not check(p.returncode == 0 and plain, 'the plain capture'):
        return tally.summary('zdamage')
    xz_forged_dictionary(data, plain)
    zstd_long30(data, plain)
    damage_keeps_decoded_bytes(data, plain)
    compressed_on_pipe(data, plain)
    return tally.summary('zdamage')


if __name__ == '__main__':
    sys.exit(main())
