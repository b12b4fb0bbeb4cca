#!/usr/bin/env python3
"""The HTML report's charts (ui/report/svg.c) from fixed inputs (svg_page.c):
the page is well-formed XML; every point, cell, bar, mark and span carries
its input numbers (data-*) and a title saying them; axis ticks fall on
round values inside the range; text from the wire cannot become markup.

usage: svg_check.py SVG_PAGE WORKDIR
"""
import math
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
import tally  # noqa: E402
from tally import check  # noqa: E402

S = '{http://www.w3.org/2000/svg}'
PAGE, WORK = sys.argv[1], sys.argv[2]
os.makedirs(WORK, exist_ok=True)
out = os.path.join(WORK, 'svg.html')
check(subprocess.run([PAGE, out]).returncode == 0, 'svg_page wrote the page')
text = open(out, encoding='utf-8').read()
root = ET.fromstring(text)          # well-formed, or this raises
svgs = {s.get('id'): s for s in root.iter(S + 'svg')}
check(sorted(svgs) == ['bars', 'heat', 'lines', 'timeline'], 'four charts')


def title(e):
    t = e.find(S + 'title')
    return t.text if t is not None else ''


# lines: one circle per point that is a number, with its values
pts = [(c.get('data-series'), float(c.get('data-x')), float(c.get('data-y')),
        title(c)) for c in svgs['lines'].iter(S + 'circle')]
want = [('NFSv3 READ', x, y) for x, y in zip(range(6), [10, 12.5, 11, None, 30, 28.25])
        if y is not None]
got = [(s, x, y) for s, x, y, _ in pts if s == 'NFSv3 READ']
check(got == want, 'READ points %s' % got)
check(any(t == 'NFSv3 READ at 2026-11-30 10:19:59.000: 28.25 ops/s'
          for *_, t in pts), 'a point title: %s' % [t for *_, t in pts][:2])
# the NaN breaks the READ line in two polylines (plus one for the other)
check(len(list(svgs['lines'].iter(S + 'polyline'))) == 3, 'NaN breaks a line')
# text from the wire: no element made of it, control bytes as \xNN
check(not list(root.iter('script')) and not list(root.iter(S + 'script'))
      and '<script>' not in text, 'markup from the wire stays text')
check('&lt;script&gt;alert(1)&lt;/script&gt; &quot;q&quot; \\x1b[31m' in text,
      'the hostile label escaped')
check('\x1b' not in text, 'no control byte in the page')
# ticks: a time axis of 5 s on whole seconds, labels the time of day
lab = [t.text for t in svgs['lines'].iter(S + 'text')]
check('10:19:54' in lab and '10:19:59' in lab, 'time ticks %s' % lab[:8])
check(all(v in lab for v in ('0', '5', '10', '15', '20', '25', '30', '35')),
      'y ticks every 5 ops/s')
# heat map: the four cells that hold operations, their counts
cells = sorted((float(r.get('data-x')), float(r.get('data-y')),
                int(r.get('data-count'))) for r in svgs['heat'].iter(S + 'rect')
               if r.get('data-count'))
check(cells == [(0, 0.01, 5), (0, 1, 1), (10, 0.01, 100), (10, 0.1, 7)],
      'heat cells %s' % cells)
hl = [t.text for t in svgs['heat'].iter(S + 'text')]
check(all(v in hl for v in ('0.01', '0.1', '1', '10')), 'log ticks %s' % hl)
bl = [t.text for t in svgs['bars'].iter(S + 'text')]
check(all(v in bl for v in ('512', '2k', '8k', '32k', '128k', '512k', '2M')), 'byte ticks %s' % bl)
# bars and marks
bars = [(r.get('data-label'), float(r.get('data-at')), float(r.get('data-value')))
        for r in svgs['bars'].iter(S + 'rect') if r.get('data-label')]
check(bars == [('READ 32768', 32768, 900), ('READ 4096', 4096, 12)], 'bars %s' % bars)
marks = [(float(l.get('data-mark')), title(l))
         for l in svgs['bars'].iter(S + 'line') if l.get('data-mark')]
check(marks == [(1048576, 'rtmax 1M'), (65536, 'rtpref 64k')], 'marks %s' % marks)
# timeline spans
spans = [(float(r.get('data-from')), float(r.get('data-to')), title(r))
         for r in svgs['timeline'].iter(S + 'rect') if r.get('data-from')]
check(spans[0][:2] == (1, 4) and spans[0][2].startswith('GETATTR storm, ')
      and spans[0][2].endswith('900 calls/s & more') and
      spans[1][:2] == (0, 20), 'spans %s' % spans)
# every coordinate is inside its chart
for s in svgs.values():
    w, h = float(s.get('width')), float(s.get('height'))
    for e in s.iter():
        for a in ('x', 'cx', 'x1', 'x2'):
            if e.get(a) is not None:
                check(-0.01 <= float(e.get(a)) <= w, 'x inside: %s' % e.get(a))
        for a in ('y', 'cy', 'y1', 'y2'):
            if e.get(a) is not None:
                check(-0.01 <= float(e.get(a)) <= h, 'y inside: %s' % e.get(a))
sys.exit(tally.summary('svg'))
