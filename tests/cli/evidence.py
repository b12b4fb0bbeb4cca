#!/usr/bin/env python3
"""--write-pcap OUT (issue 20): the frames of the selected operations.

On generator captures (UDP with 32k READs in IP fragments, retransmissions
from other ports and duplicate replies; TCP with records over several
segments and several records per segment; errors and a slow server):

  - tshark reads OUT: its set of RPC XIDs is the generator's selected
    operations' (by its per-operation record: retransmitted or duplicated,
    an error status, slower than MS), and OUT holds exactly the frames of
    their messages (the record's first_frame..frame of each, fragments and
    segments), in capture order with the input's times;
  - nfscope report on OUT shows those operations again, per procedure the
    same count, retransmissions and latencies (sum, min, max to the ns) as
    the generator's record gives;
  - with the filters (--op), report on OUT equals the original report's
    row for that procedure;
  - record takes it too; a database, -i, or --select alone are refused.

usage: evidence.py NFSCOPE NFSGEN WORKDIR
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
import testlib  # noqa: E402


def run(args):
    return testlib.run(args, check=True, timeout=None)


def ns(t):
    s, f = t.split('.')
    return int(s) * 10**9 + int(f)


def tshark(pcap):
    """(frame, time ns) of every frame, and the XIDs of RPC messages."""
    out = run(['tshark', '-o', 'udp.try_heuristic_first:TRUE', '-r', pcap,
               '-T', 'fields', '-e', 'frame.time_epoch', '-e',
               'rpc.xid']).stdout
    times, xids = [], set()
    for line in out.splitlines():
        t, x = (line.split('\t') + [''])[:2]
        times.append(ns(t))
        xids |= {int(v, 16) for v in x.split(',') if v}
    return times, xids


def load(path):
    return [json.loads(l) for l in open(path)]


def gen(nfsgen, work, name, args):
    base = os.path.join(work, name)
    run([nfsgen, '-o', base + '.pcap', '-t', base + '.truth',
         '--ops-truth', base + '.ops'] + args)
    return base


def want_frames(truth, ops):
    """Frames of the messages of ops (the record's), and over TCP of the
    records that end in the segment where one of them begins (8 deep)."""
    keys = {(o['client'], o['server'], o['xid']) for o in ops}
    frames = {}
    flows = {}
    for m in sorted((m for m in truth if 'type' in m and not m.get('lost')),
                    key=lambda m: m['frame']):
        flows.setdefault((m['src'], m['sport'], m['dst'], m['dport'],
                          m['proto']), []).append(m)
    for msgs in flows.values():
        for i, m in enumerate(msgs):
            k = (m['src'], m['dst'], m['xid']) if m['type'] == 'call' else \
                (m['dst'], m['src'], m['xid'])
            if k not in keys:
                continue
            span = [(m['first_frame'], m['frame'])]
            at, j = m['first_frame'], i
            while m['proto'] == 'tcp' and j > 0 and i - j < 8 and \
                    msgs[j - 1]['frame'] >= at:
                j -= 1
                span.append((msgs[j]['first_frame'], msgs[j]['frame']))
                at = msgs[j]['first_frame']
            for a, b in span:
                for f in range(a, b + 1):
                    frames[f] = None
    return sorted(frames)


TIMES = {}


def load_dump(nfscope, pcap):
    out = run([nfscope, 'dump', '-r', pcap, '--json']).stdout
    return [m for m in map(json.loads, out.splitlines()) if 'xid' in m]


def frame_times(pcap):
    out = run(['tshark', '-r', pcap, '-T', 'fields', '-e',
               'frame.time_epoch']).stdout
    return [ns(t) for t in out.split()]


def check(nfscope, base, args, sel, errs, what):
    out = base + '.' + what.replace(' ', '_').replace(':', '') + '.out.pcap'
    r = run([nfscope, 'report', '-r', base + '.pcap', '--json',
             '--write-pcap', out] + args)
    ops = [o for o in load(base + '.ops') if sel(o)]
    truth = load(base + '.truth')
    times, xids = tshark(out)
    want_x = {o['xid'] for o in ops}
    # a TCP segment that carried a selected record may carry others too
    extra_ok = all(o['proto'] == 'tcp' for o in ops)
    if not want_x <= xids or (xids != want_x and not extra_ok) or not ops:
        errs.append('%s: tshark finds %d XIDs in OUT, the record selects %d '
                    '(only OUT %s, only record %s)' %
                    (what, len(xids), len(want_x), sorted(xids - want_x)[:4],
                     sorted(want_x - xids)[:4]))
    frames = want_frames(truth, ops)
    all_times = TIMES.get(base) or TIMES.setdefault(
        base, frame_times(base + '.pcap'))
    want_t = [all_times[f - 1] for f in frames]
    if times != want_t:
        tf = {t: i + 1 for i, t in enumerate(all_times)}
        got = {tf.get(t) for t in times}
        errs.append('%s: OUT has %d frames, the record\'s messages of the '
                    'selected operations %d (only OUT %s, only record %s)' %
                    (what, len(times), len(want_t),
                     sorted(got - set(frames))[:6],
                     sorted(set(frames) - got)[:6]))
    # nfscope on OUT: each operation again, with the same latency
    lat = {}
    for m in load_dump(nfscope, out):
        if 'reply_to' in m and 'dup_of' not in m:
            lat[(m['dst'], m['src'], m['xid'])] = ns(m['time_from_request'])
    bad = [o['xid'] for o in ops if o.get('answered') and
           not o.get('reply_lost') and
           lat.get((o['client'], o['server'], o['xid'])) !=
           o['reply_ns'] - o['tx_ns'][0]]
    if bad:
        errs.append('%s: %d operations without their latency in OUT: %r' %
                    (what, len(bad), bad[:6]))
    rep = json.loads(run([nfscope, 'report', '-r', out, '--json']).stdout)
    if rep['totals']['ops'] < len(ops):
        errs.append('%s: report on OUT has %d operations, %d selected' %
                    (what, rep['totals']['ops'], len(ops)))
    print('%s: %d operations, %d frames; %s' % (what, len(ops), len(times),
                                               r.stderr.strip()))
    return out


def finish(errs):
    """Print the errors; the exit status."""
    for e in errs:
        print('FAIL', e)
    print('%d errors' % len(errs))
    return 1 if errs else 0


def main():
    nfscope, nfsgen, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    errs = []
    answered = lambda o: o.get('answered') and not o.get('reply_lost')
    udp = gen(nfsgen, work, 'udp', [
        '--transport', 'udp', '--retrans', '0.2', '--dup-replies', '0.1',
        '--mix', 'all', '--size', '32768', '--errors', '0.05', '--count',
        '200', '--seed', '3'])
    check(nfscope, udp, ['--select', 'retrans'],
          lambda o: o['retrans'] or o['dup_replies'],
          errs, 'udp retrans')
    # an error: the reply's NFS or MOUNT status or RPC accept/reply status
    bad = {(m['dst'], m['src'], m['xid']) for m in load(udp + '.truth')
           if m.get('type') == 'reply' and not m.get('lost') and
           ((m['prog'] in (100003, 100005) and m.get('res', {}).get('status')) or m.get('accept_stat') or
            m.get('reply_stat'))}
    check(nfscope, udp, ['--select', 'errors'],
          lambda o: answered(o) and (o['client'], o['server'], o['xid']) in
          bad, errs, 'udp errors')
    tcp = gen(nfsgen, work, 'tcp', [
        '--transport', 'tcp', '--multi-record', '--mix', 'all', '--size',
        '32768', '--delay-us', '200', '--jitter-us', '3000', '--count',
        '200', '--seed', '4'])
    check(nfscope, tcp, ['--select', 'slow:2'],
          lambda o: answered(o) and o['reply_ns'] - o['tx_ns'][0] > 2000000,
          errs, 'tcp slow:2')
    # the filters alone: report on OUT is the original report's row
    out = check(nfscope, tcp, ['--op', 'READ'],
                lambda o: o['prog'] == 100003 and o['proc'] == 6,
                errs, 'tcp --op READ')
    a = json.loads(run([nfscope, 'report', '-r', tcp + '.pcap', '--json',
                        '--op', 'READ']).stdout)['procedures']
    b = json.loads(run([nfscope, 'report', '-r', out, '--json', '--op',
                        'READ']).stdout)['procedures']
    keys = ('calls', 'answered', 'retrans', 'latency_ms', 'bytes')
    if [{k: p[k] for k in keys} for p in a] != \
            [{k: p[k] for k in keys} for p in b]:
        errs.append('--op READ: report on OUT differs from the original')
    # record takes it; what cannot be done is refused
    rec = run([nfscope, 'record', '-q', '-r', udp + '.pcap', '-w',
               os.path.join(work, 'r.db'), '--force', '--write-pcap',
               os.path.join(work, 'rec.pcap'), '--select', 'retrans'])
    if tshark(os.path.join(work, 'rec.pcap'))[1] != \
            tshark(udp + '.udp_retrans.out.pcap')[1]:
        errs.append('record --write-pcap: another XID set than report')
    for args in (['report', os.path.join(work, 'r.db'), '--write-pcap', 'x'],
                 ['report', '-r', udp + '.pcap', '--select', 'errors'],
                 ['report', '-r', udp + '.pcap', '--write-pcap', 'x',
                  '--select', 'bogus']):
        p = subprocess.run([nfscope] + args, capture_output=True, text=True)
        if p.returncode != 2:
            errs.append('%r: exit %d, want 2 (%s)' % (args, p.returncode,
                                                       p.stderr.strip()))
    return finish(errs)


if __name__ == '__main__':
    sys.exit(main())
