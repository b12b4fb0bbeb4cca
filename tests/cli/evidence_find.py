#!/usr/bin/env python3
"""--write-pcap OUT --select findings (issue 20): a finding's evidence.

On generator scenarios that make one finding each (and a near miss that
makes none), OUT holds exactly the operations run/evidence.h's table
names for it, by the generator's per-operation record, as many as the
findings count (where a finding counts its operations):

  - getattr-storm at 500/s, getattr_rate=450, storm_min_s=1: client 1
    for the minimum length and client 2 (499/s) longer make storms,
    client 3 (a second short) none: the GETATTRs of clients 1 and 2
    whose first call is in their storm's span (its times to the
    microsecond: report --json);
  - errors: server 1 answers `--burst` JUKEBOX (error_min), server 2 one
    fewer: server 1's JUKEBOX operations;
  - noent: "libA.so" NOENT `--repeat` times (noent_repeat), "libB.so" one
    fewer, "libC.so" found, interleaved: the LOOKUPs of libA.so;
  - slow-server: server 1 answers cheap ops after 11 ms (slow_ms 10),
    server 2 after 9 ms: server 1's operations;
  - writes --sync-export / --sync-client 60: the WRITEs asked UNSTABLE
    granted FILE_SYNC / asked FILE_SYNC;
  - short-io: of the pairs with a short_io finding, the READs answered
    short not at EOF and the WRITEs answered short;
  - several kinds at once (retransmits, size_capped, server_restart,
    commit_storm, slow_server, latency_shift), by covered(): the table
    on the generator's record and the findings of report --json;
  - findings,errors: the union; with --server: the filter narrows it;
  - a capture without findings: OUT is a valid pcap with 0 frames and
    stderr says there was no finding.

tshark reads each OUT (all in one run): its XIDs are the record's, and
(error burst, short io over TCP) its frames exactly the frames of their
messages (the generator's truth), in capture order.

usage: evidence_find.py NFSCOPE NFSGEN WORKDIR
"""
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from evidence import (finish, frame_times, gen, load, ns, run,  # noqa
                      want_frames)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from pcaprec import delay_from, stall_calls  # noqa: E402


PENDING = []


def check(nfscope, base, args, sel, errs, what, kind=None, frames=False):
    """report --json --write-pcap OUT ARGS on base: OUT's XIDs are to be
    those of the record's operations sel(op, the report's findings) takes
    (verify); with kind, there are findings of that kind and their counts
    add up to those operations; frames: OUT's frames are their
    messages'."""
    out = '%s.%s.out.pcap' % (base, what.replace(' ', '_').replace(',', '+'))
    r = run([nfscope, 'report', '-r', base + '.pcap', '--json',
             '--write-pcap', out] + args)
    found = json.loads(r.stdout)['findings']
    ops = [o for o in load(base + '.ops') if sel(o, found)]
    counts = [f['count'] for f in found if f['kind'] == kind]
    if kind and (not counts or sum(counts) != len(ops)):
        errs.append('%s: the %s findings count %s operations, the record '
                    '%d' % (what, kind, counts, len(ops)))
    if 'finding' not in r.stderr:
        errs.append('%s: stderr does not say what it kept: %s' %
                    (what, r.stderr.strip()))
    PENDING.append((what, base, out, ops, frames))
    print('%s: %d operations; %s' % (what, len(ops), r.stderr.strip()))


def frame_count(pcap):
    """Frames of a little-endian pcap file."""
    with open(pcap, 'rb') as f:
        f.read(24)
        n = 0
        while True:
            h = f.read(16)
            if len(h) < 16:
                return n
            f.seek(struct.unpack('<I', h[8:12])[0], 1)
            n += 1


def verify(work, errs):
    """One tshark over every OUT (concatenated: tshark's start-up is most
    of its time), each one's XIDs and frames checked."""
    merged = os.path.join(work, 'all.out.pcapng')
    run(['mergecap', '-a', '-w', merged] + [p[2] for p in PENDING])
    times, xids = tshark_frames(merged)
    at = 0
    for what, base, out, ops, frames in PENDING:
        n = frame_count(out)
        got_t, got_x = times[at:at + n], set().union(*xids[at:at + n])
        at += n
        want_x = {o['xid'] for o in ops}
        if got_x != want_x or not ops:
            errs.append('%s: tshark finds %d XIDs in OUT, the record '
                        'selects %d (only OUT %s, only record %s)' %
                        (what, len(got_x), len(want_x),
                         sorted(got_x - want_x)[:4],
                         sorted(want_x - got_x)[:4]))
        if not frames:
            continue
        all_times = frame_times(base + '.pcap')
        want_t = [all_times[f - 1] for f in
                  want_frames(load(base + '.truth'), ops)]
        if got_t != want_t:
            errs.append('%s: OUT has %d frames, the record\'s messages of '
                        'the selected operations %d' %
                        (what, len(got_t), len(want_t)))


def tshark_frames(pcap):
    """Per frame: its time (ns) and its RPC XIDs."""
    out = run(['tshark', '-o', 'udp.try_heuristic_first:TRUE', '-r', pcap,
               '-T', 'fields', '-e', 'frame.time_epoch', '-e',
               'rpc.xid']).stdout
    times, xids = [], []
    for line in out.splitlines():
        t, x = (line.split('\t') + [''])[:2]
        times.append(ns(t))
        xids.append({int(v, 16) for v in x.split(',') if v})
    return times, xids


def covered(o, f):
    """run/evidence.h's table, on the generator's record of op o and a
    finding f of report --json (its kind, client, server, span)."""
    k, t, p = f['kind'], o['first_call_ns'], o['proc']
    if f.get('client', o['client']) != o['client'] or \
            f.get('server', o['server']) != o['server']:
        return False
    a, b = (ns(f['start']), ns(f['end'])) if 'start' in f else (0, 0)
    if k == 'server_restart':           # its changes, a second either side
        return p in (7, 21) and o.get('answered') and \
            a - 10**9 <= o['reply_ns'] <= b + 10**9
    if k in ('error_burst', 'latency_shift'):
        b -= 1                          # [start, end)
    elif k.endswith('storm'):
        b += 999                        # times to the microsecond
    if 'start' in f and not a <= t <= b:
        return False
    if k == 'commit_storm':
        return p in (7, 21)
    if k == 'retransmits':
        return o['retrans'] > 0
    if k == 'size_capped':
        return p == (7 if f['evidence'].startswith('WRITE') else 6)
    if k == 'latency_shift':
        return o.get('answered') and o['prog'] == 100003
    if k == 'slow_server':
        return p in (0, 1, 4, 19) and o.get('answered') and \
            o['reply_ns'] - o['last_call_ns'] > 10**7
    raise ValueError('no rule here for ' + k)


def in_storm(o, found):
    """A GETATTR whose first call is in its client's storm (the times to
    the microsecond)."""
    return o['proc'] == 1 and any(
        f['kind'] == 'getattr_storm' and f['client'] == o['client'] and
        ns(f['start']) <= o['first_call_ns'] < ns(f['end']) + 1000
        for f in found)


def pairs(found, kind):
    return {(f.get('client'), f.get('server')) for f in found
            if f['kind'] == kind}


def short(o, found):
    """A short READ (not at EOF) or WRITE of a pair with a short_io."""
    return (o['client'], o['server']) in pairs(found, 'short_io') and \
        o.get('answered') and not o.get('status') and \
        o.get('rcount', 0) < o.get('count', 0) and \
        (o['proc'] == 7 or (o['proc'] == 6 and not o.get('eof')))


def rewritten(base, name, fn, *args):
    """A copy of base (its record and truth: the same operations and
    frames) whose pcap fn(pcap, out, *args) rewrote; its base."""
    out = os.path.join(os.path.dirname(base), name)
    for ext in ('.ops', '.truth'):
        with open(base + ext) as a, open(out + ext, 'w') as b:
            b.write(a.read())
    fn(base + '.pcap', out + '.pcap', *args)
    return out


def held_calls(base):
    """(client, server, xid) of the calls sent in more than one segment
    (the generator's truth): those stall_calls holds."""
    return {(m['src'], m['dst'], m['xid']) for m in load(base + '.truth')
            if m.get('type') == 'call' and m['first_frame'] < m['frame']}


def tcp_kinds(nfscope, nfsgen, work, errs):
    """The TCP and path findings' evidence (issue 30): tcp_stall, the
    calls held by a delayed ACK; slow_path, the server's cheap ops; none
    where the finding is not made."""
    w = gen(nfsgen, work, 'tcpw', ['--scenario', 'writes', '--transport', 'tcp',
                                   '--count', '60', '--rate', '20', '--clients',
                                   '1', '--servers', '1', '--seed', '4'])
    st = rewritten(w, 'tcpw-stall', stall_calls, '10.0.', 40 * 10**6)
    held = held_calls(w)
    if len(held) < 20:
        errs.append('tcp stall: only %d calls held' % len(held))
    check(nfscope, st, ['--select', 'findings'],
          lambda o, f: (o['client'], o['server'], o['xid']) in held, errs,
          'tcp stall', kind='tcp_stall', frames=True)
    q = gen(nfsgen, work, 'quick', ['--scenario', 'slow-server', '--count', '40',
                                    '--delay-us', '300', '--clients', '2',
                                    '--servers', '1', '--transport', 'tcp',
                                    '--seed', '3'])
    far = rewritten(q, 'far', delay_from, '10.1.', 12 * 10**6)
    check(nfscope, far, ['--select', 'findings'],
          lambda o, f: o['proc'] in (0, 1, 4, 19) and o.get('answered') and
          any(x['kind'] == 'slow_path' for x in f), errs, 'slow path')


def main():
    nfscope, nfsgen, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    errs = []
    udp = ['--transport', 'udp', '--seed', '5']
    storm = gen(nfsgen, work, 'storm', ['--scenario', 'getattr-storm',
                                        '--rate', '500', '--duration', '1']
                + udp)
    check(nfscope, storm, ['--select', 'findings', '--threshold',
                           'getattr_rate=450', '--threshold',
                           'storm_min_s=1'],
          lambda o, f: in_storm(o, f) and o['client'] in ('10.0.0.1',
                                                          '10.0.0.2'),
          errs, 'getattr storm', kind='getattr_storm')
    er = gen(nfsgen, work, 'errors', ['--scenario', 'errors', '--burst',
                                      '5'] + udp)
    jukebox = lambda o, f: o.get('status') == 10008
    check(nfscope, er, ['--select', 'findings'],
          lambda o, f: o['server'] == '10.1.0.1' and jukebox(o, f),
          errs, 'error burst', kind='error_burst', frames=True)
    check(nfscope, er, ['--select', 'findings,errors'], jukebox, errs,
          'findings,errors')
    check(nfscope, er, ['--select', 'errors,findings', '--server',
                        '10.1.0.2'],
          lambda o, f: o['server'] == '10.1.0.2' and jukebox(o, f), errs,
          'findings,errors --server')
    ne = gen(nfsgen, work, 'noent', ['--scenario', 'noent', '--repeat',
                                     '10'] + udp)
    check(nfscope, ne, ['--select', 'findings'],
          lambda o, f: o.get('name') == 'libA.so' and o.get('status') == 2,
          errs, 'noent repeat', kind='noent_repeat')
    sl = gen(nfsgen, work, 'slow', ['--scenario', 'slow-server', '--count',
                                    '40', '--delay-us', '11000'] + udp)
    check(nfscope, sl, ['--select', 'findings'],
          lambda o, f: o['server'] == '10.1.0.1' and
          o['reply_ns'] - o['last_call_ns'] > 10000000, errs, 'slow server',
          kind='slow_server')
    for name, gargs, kind, sel in (
            ('syncexp', ['--sync-export'], 'sync_export',
             lambda o: o.get('stable') == 0 and o.get('committed') == 2),
            ('synccli', ['--sync-client', '60'], 'sync_client',
             lambda o: o.get('stable') in (1, 2))):
        base = gen(nfsgen, work, name, ['--scenario', 'writes', '--count',
                                        '100'] + gargs + udp)
        check(nfscope, base, ['--select', 'findings'],
              lambda o, f, sel=sel: o['proc'] == 7 and sel(o), errs, kind,
              kind=kind)
    sh = gen(nfsgen, work, 'short', ['--scenario', 'short-io', '--repeat',
                                     '10', '--count', '40'])
    check(nfscope, sh, ['--select', 'findings'], short, errs, 'short io',
          kind='short_io', frames=True)
    # several kinds at once, by covered(): retransmits and restarts
    # (mixed); size_capped and restarts (sizes); restarts alone (writes
    # --verf-change-at); COMMITs and WRITEs (commit-storm); slow servers
    # and a latency shift (slow-server, 3 servers)
    for name, gargs in (
            ('mixed', ['--scenario', 'mixed', '--retrans', '0.1', '--count',
                       '400']),
            ('sizes', ['--scenario', 'sizes', '--server-rtmax', '8192',
                       '--server-wtmax', '8192', '--count', '200']),
            ('verf', ['--scenario', 'writes', '--verf-change-at', '2',
                      '--count', '200']),
            ('commit', ['--scenario', 'commit-storm', '--rate', '200',
                        '--duration', '3']),
            ('shift', ['--scenario', 'slow-server', '--count', '40',
                       '--delay-us', '11000', '--servers', '3'])):
        base = gen(nfsgen, work, name, gargs + udp)
        check(nfscope, base, ['--select', 'findings'],
              lambda o, found: any(covered(o, f) for f in found), errs,
              name + ' findings')
    tcp_kinds(nfscope, nfsgen, work, errs)
    verify(work, errs)
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
