#!/usr/bin/env python3
"""report --html in a real browser: headless Chromium renders the page of
a capture to a PNG and to its DOM (render.py); no console message, a PNG
that shows something, no script and nothing fetched; the numbers every
chart and the table carry (data-* attributes, <title>s) equal report
--json --interval 1 of the same capture, the INCOMPLETE lines equal the
text report's; and against ground truth nfscope did not compute: the
generator's per-operation record (calls and retransmissions per second
and procedure) or the lab's record (calls per procedure, sizes, caps).

usage: html_check.py NFSCOPE WORKDIR NAME CAPTURE [--ops-truth F]
                     [--lab-truth F] [--png OUT.png]
                     [--interval S --json-interval S2] [--cut BYTES]
                     [--causes-end client|server]
--cut: the capture's first BYTES only (an input cut short: exit 3, the
INCOMPLETE lines first); with it the page is read as written, without
the browser (one browser run per capture kind is enough).
--interval: the page's (more than 600 intervals are merged k at a time:
S2 = k x S is what the page must show).
--causes-end: the ops truth names each retransmitted op's scripted cause
(nfsgen's vantage scenario) as seen from that end: the retransmitted
operations by cause per interval must be those (tests/lib/rx_rules.py's rule
table, not taken from nfscope).
Exit 77 (skipped) only when chromium is missing.
"""
import argparse
import collections
import json
import math
import os
import struct
import subprocess
import sys
import zlib
from html.parser import HTMLParser

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'lib'))
sys.path.insert(0, HERE)
import render  # noqa: E402
import tally  # noqa: E402
from rx_rules import RULES, WORDS  # noqa: E402
from tally import check  # noqa: E402

# the causes' words on the page (the legend) and their JSON keys
CAUSE_KEY = {w: k for k, w in WORDS.items()}

VOID = {'meta', 'br', 'link', 'img', 'hr', 'input', 'col', 'area', 'base',
        'wbr', 'source', 'embed', 'param', 'track'}


class Dom(HTMLParser):
    """Every element: tag, attributes, its own text, the ids of the
    <svg> and the attributes of the <figure> around it."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.els = [], []

    def handle_starttag(self, tag, attrs):
        e = {'tag': tag, 'a': dict(attrs), 'text': '', 'kids': []}
        up = self.stack[-1] if self.stack else None
        e['svg'] = e['a'].get('id') if tag == 'svg' else (up['svg'] if up else None)
        e['fig'] = e['a'] if tag == 'figure' else (up['fig'] if up else None)
        if up:
            up['kids'].append(e)
        self.els.append(e)
        if tag not in VOID:
            self.stack.append(e)

    def handle_endtag(self, tag):
        while self.stack:
            if self.stack.pop()['tag'] == tag:
                break

    def handle_data(self, data):
        if self.stack:
            self.stack[-1]['text'] += data


def title(e):
    return ''.join(k['text'] for k in e['kids'] if k['tag'] == 'title')


def png_pixels(path, rows=700):
    """(width, height, compressed bytes, distinct colours and share of
    non-white pixels in the top rows: decoding in Python is slow)."""
    data = open(path, 'rb').read()
    check(data[:8] == b'\x89PNG\r\n\x1a\n', 'a PNG')
    pos, idat, w = 8, b'', 0
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
        elif kind == b'IDAT':
            idat += body
        pos += 12 + n
    bpp = {2: 3, 6: 4}[ctype]
    raw, stride = zlib.decompress(idat), w * bpp
    prev, colours, ink = bytearray(stride), set(), 0
    for y in range(min(h, rows)):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        if y % 4 == 0:
            for x in range(0, stride, bpp * 2):
                px = bytes(line[x:x + 3])
                colours.add(px)
                ink += px != b'\xff\xff\xff'
        prev = line
    return w, h, len(idat), len(colours), ink / max(1, (min(h, rows) // 4) * (w // 2))


def close(a, b, tol=0.0006):
    return abs(a - b) <= tol + 1e-9 * abs(b)


def secs(t):
    s, ns = t.split('.')
    return int(s) * 10**9 + int(ns)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('nfscope')
    ap.add_argument('work')
    ap.add_argument('name')
    ap.add_argument('capture')
    ap.add_argument('--ops-truth')
    ap.add_argument('--lab-truth')
    ap.add_argument('--png')
    ap.add_argument('--interval')
    ap.add_argument('--json-interval', default='1')
    ap.add_argument('--cut', type=int)
    ap.add_argument('--causes-end', choices=('client', 'server'))
    o = ap.parse_args()
    if not o.cut and not render.available():
        print('SKIP: no chromium (apt-get install chromium)')
        return 77
    os.makedirs(o.work, exist_ok=True)
    want_rc = 0
    if o.cut:
        cut = os.path.join(o.work, o.name + '.pcap')
        with open(o.capture, 'rb') as f, open(cut, 'wb') as g:
            g.write(f.read(o.cut))
        o.capture, want_rc = cut, 3
    page = os.path.join(o.work, o.name + '.html')
    png = o.png or os.path.join(o.work, o.name + '.png')
    r = subprocess.run([o.nfscope, 'report', '-r', o.capture, '--html', page] +
                       (['--interval', o.interval] if o.interval else []))
    check(r.returncode == want_rc, 'report --html exit %d' % r.returncode)
    r = subprocess.run([o.nfscope, 'report', '-r', o.capture, '--json', '--interval',
                        o.json_interval], capture_output=True, text=True)
    check(r.returncode == want_rc, 'report --json exit %d' % r.returncode)
    j = json.loads(r.stdout)
    text = subprocess.run([o.nfscope, 'report', '--wide', '-r', o.capture],
                          capture_output=True, text=True).stdout
    if o.cut:
        dom_text = open(page, encoding='utf-8').read()
        check(text.splitlines()[2].startswith('INCOMPLETE: input cut: '),
              'the text report says the input was cut')
    else:
        ok, dom_text, console = render.render(page, png)
        check(ok, 'chromium rendered the page')
        check(console == [], 'no console message: %s' % console[:3])
        w, h, size, ncol, ink = png_pixels(png)
        check(w >= 1000 and h >= 2000 and size > 100000 and ncol >= 8 and 0.01 < ink < 0.9,
              'the PNG shows something: %dx%d, %d bytes, %d colours, %.3f ink at the top'
              % (w, h, size, ncol, ink))
    d = Dom()
    d.feed(dom_text)
    els = d.els
    byid = {e['a']['id']: e for e in els if 'id' in e['a']}
    # self-contained, no script: nothing to fetch, nothing to run
    check(not [e for e in els if e['tag'] in ('script', 'iframe', 'object', 'img', 'link')],
          'no script, frame, image or link element')
    check(not [(e['tag'], k) for e in els for k in e['a'] if k.startswith('on')],
          'no on* attribute')
    check(not [v for e in els for k, v in e['a'].items()
               if k in ('src', 'href') or 'url(' in v], 'nothing fetched')
    # order (issue 30: the answer first): the verdict, the findings, health,
    # then over time, heat, sizes, retransmits, table
    order = [e['a']['id'] for e in els if e['tag'] == 'section']
    check(order == ['verdict', 'findings-section', 'health', 'over-time', 'latency-heat',
                    'sizes', 'retransmits', 'procedures'], 'sections in order: %s' % order)
    # the INCOMPLETE lines are the text report's, word for word
    want = []
    for line in text.splitlines()[2:]:
        if line.startswith('== '):
            break
        if line:
            want.append(line)
    got = byid['incomplete']['text'].strip('\n').splitlines() if 'incomplete' in byid else []
    check(got == want, 'INCOMPLETE lines: %s vs %s' % (got[:2], want[:2]))
    check(j['complete'] == (want == []), 'INCOMPLETE lines as JSON\'s complete says')
    check(('class="ok"' in dom_text) == j['complete'], 'complete said as JSON says')

    w_ns = round(float(o.json_interval) * 1e9)
    widths = {int(e['a']['data-width-ns']) for e in els if e['tag'] == 'figure'
              and 'data-width-ns' in e['a']}
    check(widths == {w_ns}, 'the page\'s intervals %s, JSON\'s %d' % (widths, w_ns))
    procs = {p['procedure']: p for p in j['procedures']}
    series = collections.defaultdict(dict)      # name -> start_ns -> cell
    for c in j['interval_procedures']:
        series[c['procedure']][secs(c['start'])] = c
    ivls = {secs(v['start']): v for v in j['intervals']}

    def points(svg):
        out = collections.defaultdict(list)
        for e in els:
            if e['svg'] == svg and e['tag'] == 'circle':
                t0 = int(e['fig']['data-t0-ns'])
                start = t0 + round(float(e['a']['data-x']) * 1e9)
                out[e['a']['data-series']].append((start, float(e['a']['data-y']), title(e)))
        return out

    # operations per second and p50/p99 per procedure and interval
    rate = points('ops-rate')
    check(len(rate) == min(10, len(procs)), 'procedures drawn %d' % len(rate))
    top = sorted(procs.values(), key=lambda p: -p['calls'])[:10]
    check(sorted(rate) == sorted(p['procedure'] for p in top), 'the busiest procedures drawn')
    bad = [(n, s, y) for n, pts in rate.items() for s, y, _ in pts
           if not close(y, series[n][s]['ops_per_s'] if s in series[n] else 0)]
    check(not bad, 'ops/s equal JSON: %s' % bad[:3])
    check(all(round(sum(y for _, y, _ in rate[n]) * w_ns / 1e9) == procs[n]['calls']
              for n in rate),
          'ops/s add up to the procedure calls')
    for key, svg in (('p50', 'lat-p50'), ('p99', 'lat-p99')):
        pts = points(svg)
        bad = [(n, s, y) for n, ps in pts.items() for s, y, _ in ps
               if not close(y, series[n][s]['latency_ms'][key])]
        want_n = sum(1 for n in rate for c in series[n].values() if c['latency_ms']['count'])
        check(not bad and sum(map(len, pts.values())) == want_n,
              '%s equal JSON: %s, %d points of %d' % (key, bad[:3], sum(map(len, pts.values())), want_n))
    some = next(iter(rate.values()))[0][2]
    check(' at ' in some and 'ops/s' in some, 'a point says what it is: %s' % some)
    # heat map: each column's answered operations
    col = collections.Counter()
    for e in els:
        if e['svg'] == 'heat' and e['tag'] == 'rect' and 'data-count' in e['a']:
            t0 = int(e['fig']['data-t0-ns'])
            col[t0 + round(float(e['a']['data-x']) * 1e9)] += int(e['a']['data-count'])
    check(col == collections.Counter({s: v['answered'] for s, v in ivls.items() if v['answered']}),
          'heat map columns equal the intervals answered')
    check(sum(col.values()) == j['totals']['answered'], 'heat map holds every answered op')
    # retransmissions over time
    rx = points('retrans')
    for name, key in (('calls retransmitted', 'retrans'), ('duplicate replies', 'dup_replies'),
                      ('unanswered calls', 'unanswered')):
        bad = [(s, y) for s, y, _ in rx[name] if y != (ivls[s][key] if s in ivls else 0)]
        check(rx[name] and not bad, '%s over time equal JSON: %s' % (name, bad[:3]))
    # retransmitted operations by cause: a line per cause that occurs, its
    # points the --json intervals' counts, adding up to the pairs' causes
    by_cause = {CAUSE_KEY.get(n, n): {s: y for s, y, _ in pts}
                for n, pts in points('retrans-cause').items()}
    pair_causes = collections.Counter()
    for p in j['pairs']:
        pair_causes.update((p.get('vantage') or {}).get('retrans_causes', {}))
    check({k: sum(v.values()) for k, v in by_cause.items()} ==
          {k: n for k, n in pair_causes.items() if n},
          'causes over time add up to the pairs\' causes: %s' %
          {k: sum(v.values()) for k, v in by_cause.items()})
    check(('retrans-cause' in byid) != ('retrans-cause-none' in byid),
          'a chart of the causes, or a line saying there is none')
    jc = {secs(c['start']): c for c in j['interval_retrans_causes']}
    bad = [(k, s, y) for k, pts in by_cause.items() for s, y in pts.items()
           if y != (jc[s][k] if s in jc else 0)]
    json_total = sum(n for c in jc.values() for k, n in c.items() if k != 'start')
    check(not bad and json_total == sum(pair_causes.values()),
          'causes over time equal JSON: %s, %d in all' % (bad[:3], json_total))
    rc_title = [title(e) for e in els if e['svg'] == 'retrans-cause' and e['tag'] == 'circle']
    check(all(' at ' in t and t.endswith(' ops') for t in rc_title),
          'a cause\'s point says what it is: %s' % rc_title[:1])
    # sizes: bars, the server's limits, the verdict
    servers = {s['server']: s for s in j['server_info']}
    nbars = 0
    for k, p in enumerate(j['pairs']):
        for op, key, lim in (('read', 'read_sizes', ('rtmax', 'rtpref')),
                             ('write', 'write_sizes', ('wtmax', 'wtpref'))):
            sid = 'sizes-%s-%d' % (op, k)
            if not p[key]['calls']:
                check(sid not in byid, 'no chart without %s' % key)
                continue
            bars = {int(float(e['a']['data-at'])): float(e['a']['data-value'])
                    for e in els if e['svg'] == sid and 'data-at' in e['a']}
            nbars += len(bars)
            check(bars == {int(s): float(n) for s, n in p[key]['count_by_size'].items()},
                  '%s bars equal JSON' % sid)
            marks = sorted(float(e['a']['data-mark']) for e in els
                           if e['svg'] == sid and 'data-mark' in e['a'])
            fi = servers.get(p['server'], {}).get('fsinfo') or {}
            check(marks == sorted(float(fi[x]) for x in lim if x in fi),
                  '%s marks the FSINFO limits: %s' % (sid, marks))
            check(byid[sid + '-verdict']['text'] == p[op + '_verdict'], '%s verdict' % sid)
    # findings: one span each, its evidence in the title
    spans = [e for e in els if e['svg'] == 'findings' and 'data-from' in e['a']]
    check(len(spans) == len(j['findings']), 'a span per finding')
    for e, f in zip(spans, j['findings']):
        t0 = int(e['fig']['data-t0-ns'])
        if 'start' in f:
            check(abs(t0 + float(e['a']['data-from']) * 1e9 - secs(f['start'])) < 1000 and
                  abs(t0 + float(e['a']['data-to']) * 1e9 - secs(f['end'])) < 1000,
                  'span of %s' % f['kind'])
        check(title(e).startswith(f['kind'] + ', ') and f['evidence'] in title(e),
              'the span of %s says its evidence' % f['kind'])
    # the table: every procedure, its calls, errors and percentiles
    rows = {e['a']['data-procedure']: e['a'] for e in els if e['tag'] == 'tr'
            and 'data-procedure' in e['a']}
    check(sorted(rows) == sorted(procs), 'a row per procedure')
    bad = [n for n, a in rows.items() if int(a['data-calls']) != procs[n]['calls'] or
           int(a['data-errors']) != procs[n]['errors'] or
           not close(float(a['data-p50']), procs[n]['latency_ms'].get('p50', 0)) or
           not close(float(a['data-p99']), procs[n]['latency_ms'].get('p99', 0))]
    check(not bad, 'table equal JSON: %s' % bad[:3])

    # ground truth nfscope did not compute
    if o.ops_truth:
        calls, retr, dup, unans = (collections.Counter() for _ in range(4))
        name_of = {(p['prog'], p['vers'], p['proc']): p['procedure'] for p in j['procedures']}
        for line in open(o.ops_truth):
            t = json.loads(line)
            s = t['first_call_ns'] // w_ns * w_ns
            calls[(name_of.get((t['prog'], t['vers'], t['proc'])), s)] += 1
            retr[s] += t['retrans']
            dup[s] += t['dup_replies']
            unans[s] += not t['answered']
        bad = [(n, s, y) for n, pts in rate.items() for s, y, _ in pts
               if not close(y * w_ns / 1e9, calls[(n, s)])]
        check(not bad, 'ops/s per procedure and second equal the generator\'s: %s' % bad[:3])
        for name, want in (('calls retransmitted', retr), ('duplicate replies', dup),
                           ('unanswered calls', unans)):
            bad = [(s, y) for s, y, _ in rx[name] if y != want[s]]
            check(sum(want.values()) > 0 and not bad,
                  '%s over time equal the generator\'s: %s' % (name, bad[:3]))
    if o.causes_end:
        want = collections.Counter()
        for line in open(o.ops_truth):
            t = json.loads(line)
            name = RULES[t['cause']][o.causes_end] if 'cause' in t else None
            if name:
                want[(name, t['first_call_ns'] // w_ns * w_ns)] += 1
        got = collections.Counter({(k, s): y for k, pts in by_cause.items()
                                   for s, y in pts.items() if y})
        check(len(set(k for k, _ in want)) >= 5 and got == want,
              'causes per interval equal the generator\'s script: %s' %
              sorted(set(got.items()) ^ set(want.items()))[:4])
    if o.lab_truth:
        t = json.load(open(o.lab_truth))
        cp = t['client']['procedures']
        check({n: int(a['data-calls']) for n, a in rows.items()} ==
              {n: v['calls'] for n, v in cp.items()}, 'table calls equal the lab client\'s')
        for op, k, cap, pref in (('read', 'read_sizes', t['caps'][0], t['prefs'][0]),
                                 ('write', 'write_sizes', t['caps'][1], t['prefs'][1])):
            sid = 'sizes-%s-0' % op
            bars = {str(int(float(e['a']['data-at']))): int(float(e['a']['data-value']))
                    for e in els if e['svg'] == sid and 'data-at' in e['a']}
            check(bars == t['client'][k], '%s sizes equal the lab client\'s' % op)
            marks = sorted(float(e['a']['data-mark']) for e in els
                           if e['svg'] == sid and 'data-mark' in e['a'])
            check(marks == sorted([float(cap), float(pref)]), '%s marks the export caps' % op)
        check(sorted(f['kind'] for f in j['findings'] if f['kind'] in t['storms']) ==
              sorted(t['storms']) and all(any(e['a'].get('data-from') and title(e).startswith(s)
                                              for e in els) for s in t['storms']),
              'the lab\'s storms on the timeline')
    check(nbars > 0, 'size bars drawn')
    return tally.summary(o.name)


if __name__ == '__main__':
    sys.exit(main())
