#!/usr/bin/env python3
"""--write-pcap OUT --select findings (issue 20): a finding's evidence.

On generator scenarios that make one finding each (and a near miss that
makes none), OUT holds exactly the operations run/evidence.h's table
names for it, by the generator's per-operation record:

  - getattr-storm at 500/s, getattr_rate=450: client 1 for the minimum
    length and client 2 (499/s) longer make storms, client 3 (a second
    short) none: the GETATTRs of clients 1 and 2 whose first call is in
    their storm's span (its times to the microsecond: report --json), as
    many as each storm's count;
  - errors: server 1 answers `--burst` JUKEBOX (error_min), server 2 one
    fewer: server 1's JUKEBOX operations;
  - noent: "libA.so" NOENT `--repeat` times (noent_repeat), "libB.so" one
    fewer, "libC.so" found, interleaved: the LOOKUPs of libA.so;
  - slow-server: server 1 answers cheap ops after 11 ms (slow_ms 10),
    server 2 after 9 ms: server 1's operations;
  - findings,errors: the union; with --server: the filter narrows it;
  - a capture without findings: OUT is a valid pcap with 0 frames and
    stderr says there was no finding.

tshark reads OUT: its XIDs are the record's, and its frames exactly the
frames of their messages (the generator's truth), in capture order.

usage: evidence_find.py NFSCOPE NFSGEN WORKDIR
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from evidence import (finish, frame_times, gen, load, ns, run,  # noqa
                      tshark, want_frames)


def check(nfscope, base, args, sel, errs, what):
    out = '%s.%s.out.pcap' % (base, what.replace(' ', '_').replace(',', '+'))
    r = run([nfscope, 'report', '-r', base + '.pcap', '--write-pcap', out] +
            args)
    ops = [o for o in load(base + '.ops') if sel(o)]
    times, xids = tshark(out)
    want_x = {o['xid'] for o in ops}
    if xids != want_x or not ops:
        errs.append('%s: tshark finds %d XIDs in OUT, the record selects %d '
                    '(only OUT %s, only record %s)' %
                    (what, len(xids), len(want_x), sorted(xids - want_x)[:4],
                     sorted(want_x - xids)[:4]))
    all_times = frame_times(base + '.pcap')
    want_t = [all_times[f - 1] for f in want_frames(load(base + '.truth'),
                                                    ops)]
    if times != want_t:
        errs.append('%s: OUT has %d frames, the record\'s messages of the '
                    'selected operations %d' % (what, len(times),
                                                 len(want_t)))
    if 'finding' not in r.stderr:
        errs.append('%s: stderr does not say what it kept: %s' %
                    (what, r.stderr.strip()))
    print('%s: %d operations, %d frames; %s' % (what, len(ops), len(times),
                                               r.stderr.strip()))


def main():
    nfscope, nfsgen, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    errs = []
    udp = ['--transport', 'udp', '--seed', '5']
    storm = gen(nfsgen, work, 'storm', ['--scenario', 'getattr-storm',
                                        '--rate', '500', '--duration', '3']
                + udp)
    thr = ['--threshold', 'getattr_rate=450']
    found = json.loads(run([nfscope, 'report', '-r', storm + '.pcap',
                            '--json'] + thr).stdout)['findings']
    spans = {f['client']: (ns(f['start']), ns(f['end']) + 1000, f['count'])
             for f in found if f['kind'] == 'getattr_storm'}
    if sorted(spans) != ['10.0.0.1', '10.0.0.2']:
        errs.append('getattr storm: storms of %s, want 10.0.0.1, 10.0.0.2'
                    % sorted(spans))
    in_storm = lambda o: o['client'] in spans and o['proc'] == 1 and \
        spans[o['client']][0] <= o['first_call_ns'] < spans[o['client']][1]
    for c, (a, b, n) in spans.items():
        k = sum(1 for o in load(storm + '.ops') if o['client'] == c and
                in_storm(o))
        if k != n:
            errs.append('getattr storm: %s: %d GETATTRs in its span, the '
                        'finding counts %d' % (c, k, n))
    check(nfscope, storm, ['--select', 'findings'] + thr, in_storm, errs,
          'getattr storm')
    er = gen(nfsgen, work, 'errors', ['--scenario', 'errors', '--burst',
                                      '5'] + udp)
    jukebox = lambda o: o.get('status') == 10008
    check(nfscope, er, ['--select', 'findings'],
          lambda o: o['server'] == '10.1.0.1' and jukebox(o),
          errs, 'error burst')
    check(nfscope, er, ['--select', 'findings,errors'], jukebox, errs,
          'findings,errors')
    check(nfscope, er, ['--select', 'errors,findings', '--server',
                        '10.1.0.2'],
          lambda o: o['server'] == '10.1.0.2' and jukebox(o), errs,
          'findings,errors --server')
    ne = gen(nfsgen, work, 'noent', ['--scenario', 'noent', '--repeat',
                                     '10'] + udp)
    check(nfscope, ne, ['--select', 'findings'],
          lambda o: o.get('name') == 'libA.so' and o.get('status') == 2,
          errs, 'noent repeat')
    sl = gen(nfsgen, work, 'slow', ['--scenario', 'slow-server', '--count',
                                    '40', '--delay-us', '11000'] + udp)
    check(nfscope, sl, ['--select', 'findings'],
          lambda o: o['server'] == '10.1.0.1' and
          o['reply_ns'] - o['last_call_ns'] > 10000000, errs, 'slow server')
    # no finding: a valid, empty pcap, and stderr says why
    calm = gen(nfsgen, work, 'calm', ['--scenario', 'getattr-storm',
                                      '--rate', '50', '--duration', '2']
               + udp)
    out = calm + '.out.pcap'
    r = run([nfscope, 'report', '-r', calm + '.pcap', '--json',
             '--write-pcap', out, '--select', 'findings'])
    if json.loads(r.stdout)['findings']:
        errs.append('calm: the capture has findings')
    cnt = run(['capinfos', '-c', '-M', out]).stdout
    if 'Number of packets:   0' not in cnt or \
            'no finding in this run' not in r.stderr:
        errs.append('calm: want an empty pcap, saying no finding: %s / %s'
                    % (cnt.strip(), r.stderr.strip()))
    print('calm: %s' % r.stderr.strip())
    return finish(errs)


if __name__ == '__main__':
    sys.exit(main())
