#!/usr/bin/env python3
"""demo_png.py NFSCOPE OUT.png - doc/report.md's picture (doc/report-html.png):
report --html of the bundled demo, run from the source tree's root so the
page names pcaps/lab-demo.pcap, rendered by headless Chromium (render.py)
1200 px wide, cut 24 px below its last ink and scaled to 3/4 (900 px wide,
each pixel the mean of the 2 x 2 it covers).  Reads the screenshot through
ImageMagick's `convert IN ppm:-`; writes the PNG itself (zlib).  Not a
test: run it by hand when the demo's page changes.
"""
import os
import struct
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import render  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
MARGIN = 24


def ppm(path):
    """(width, height, RGB bytes) of a PNG."""
    raw = subprocess.run(['convert', path, 'ppm:-'], capture_output=True,
                         check=True).stdout
    magic, w, h, _, px = raw.split(maxsplit=4)
    assert magic == b'P6'
    return int(w), int(h), px


def shrink(w, h, px):
    """Cut below the last ink (and MARGIN), scale to 3/4: (w, h, rows)."""
    stride, white = w * 3, b'\xff' * (w * 3)
    last = max(y for y in range(h) if px[y * stride:(y + 1) * stride] != white)
    h = min(h, last + 1 + MARGIN)
    w2, h2, out = w * 3 // 4, h * 3 // 4, bytearray()
    for y2 in range(h2):
        y0 = y2 * 4 // 3
        rows = (px[y0 * stride:(y0 + 1) * stride],
                px[min(y0 + 1, h - 1) * stride:(min(y0 + 1, h - 1) + 1) * stride])
        out.append(0)                   # PNG filter: none
        for x2 in range(w2):
            x0 = x2 * 4 // 3
            x1 = min(x0 + 1, w - 1)
            for c in range(3):
                out.append((rows[0][x0 * 3 + c] + rows[0][x1 * 3 + c] +
                            rows[1][x0 * 3 + c] + rows[1][x1 * 3 + c]) // 4)
    return w2, h2, bytes(out)


def png(path, w, h, rows):
    def chunk(kind, data):
        return (struct.pack('>I', len(data)) + kind + data +
                struct.pack('>I', zlib.crc32(kind + data)))
    with open(path, 'wb') as f:
        f.write(b'\x89PNG\r\n\x1a\n' +
                chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0)) +
                chunk(b'IDAT', zlib.compress(rows, 9)) + chunk(b'IEND', b''))


def main():
    nfscope, out = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    with tempfile.TemporaryDirectory(prefix='nfscope-demo-png-') as tmp:
        page, shot = os.path.join(tmp, 'demo.html'), os.path.join(tmp, 'demo.png')
        subprocess.run([nfscope, 'report', '-r', 'pcaps/lab-demo.pcap', '--html', page],
                       cwd=ROOT, check=True)
        ok, _, console = render.render(page, shot, width=1200, height=5000)
        if not ok or console:
            sys.exit('chromium: %s' % (console[:3] or 'no page rendered'))
        png(out, *shrink(*ppm(shot)))


if __name__ == '__main__':
    main()
