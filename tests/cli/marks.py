#!/usr/bin/env python3
"""dump's marks and filters (issue 20), against tshark and the generator.

Marks: on generator captures with retransmissions, duplicate replies and
reused XIDs (UDP, where a retransmission may leave from another port, and
TCP), every call dump marks "retrans_of" and every reply's "reply_to",
"time_from_request" and "dup_of" equal tshark's two-pass rpc.call.dup,
rpc.repframe (a reply's request frame), rpc.time and rpc.reply.dup for the
same frame; the numbers of retransmissions and duplicate replies equal the
generator's per-operation record.  The text lines carry the same marks.

Filters: --op, --client, --server (CIDR), --fh (whole handle and short
hash) show exactly the messages the generator's record says belong to the
selected operations, and the summary says how many were shown; report
--fh counts the record's operations on that handle.

usage: marks.py NFSCOPE NFSGEN WORKDIR
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
import testlib  # noqa: E402


def run(args):
    return testlib.output(args)


def dump_json(nfscope, pcap, *extra):
    out = run([nfscope, 'dump', '-r', pcap, '--json'] + list(extra))
    lines = [json.loads(l) for l in out.splitlines()]
    return [m for m in lines if 'frame' in m], lines[-1]['summary']


def tshark(pcap):
    out = run(['tshark', '-2', '-r', pcap, '-Y', 'rpc', '-T', 'fields',
               '-e', 'frame.number', '-e', 'rpc.msgtyp', '-e', 'rpc.call.dup',
               '-e', 'rpc.repframe', '-e', 'rpc.time', '-e', 'rpc.reply.dup'])
    rows = {}
    for line in out.splitlines():
        f = line.split('\t')
        rows[int(f[0])] = f[1:]
    return rows


def ns(t):
    s, f = t.split('.')
    return int(s) * 10**9 + int(f)


def check_gen(pcap, msgs, truth, ops_truth, errs):
    """Every operation of the generator's record: its later transmissions
    repeat its first, its reply answers the first, that long after it."""
    frame = {}
    for m in truth_msgs(truth):
        if 'type' in m and not m.get('lost'):
            frame[(m['src'], m['dst'], m['xid'], m['type'], ns(m['ts']))] = \
                m['frame']
    want = {}
    for o in map(json.loads, open(ops_truth)):
        tx = [frame.get((o['client'], o['server'], o['xid'], 'call', t))
              for t in o['tx_ns']]
        if tx[0] is None:
            continue
        for f in tx[1:]:
            if f:
                want[f] = ('retrans_of', tx[0])
        if o.get('answered') and not o.get('reply_lost'):
            f = frame.get((o['server'], o['client'], o['xid'], 'reply',
                           o['reply_ns']))
            lat = o['reply_ns'] - o['tx_ns'][0]
            want[f] = ('reply_to', tx[0], '%d.%09d' % divmod(lat, 10**9))
    got = {}
    for m in msgs:
        if 'retrans_of' in m:
            got[m['frame']] = ('retrans_of', m['retrans_of'])
        elif 'reply_to' in m and 'dup_of' not in m:
            got[m['frame']] = ('reply_to', m['reply_to'],
                               m['time_from_request'])
    if got != want:
        bad = sorted(set(got.items()) ^ set(want.items()))
        errs.append('%s: marks unlike the generator\'s record (%d): %r' %
                    (pcap, len(bad), bad[:6]))


def check_marks(nfscope, pcap, truth, ops_truth, errs, with_tshark):
    msgs, _ = dump_json(nfscope, pcap)
    ts = tshark(pcap) if with_tshark else {}
    n = {'retrans_of': 0, 'dup_of': 0, 'reply_to': 0}
    multi = blind = 0
    for m in msgs:
        for k in n:
            n[k] += k in m
        if not with_tshark:
            continue
        t = ts.get(m['frame'])
        refs = [m.get(k) for k in ('retrans_of', 'reply_to', 'dup_of')]
        if t is None or any(r and r not in ts for r in refs):
            # tshark takes some privileged client ports for other
            # protocols; the generator's record checks these
            blind += 1
            continue
        typ, cdup, req, tim, rdup = t
        if ',' in typ:
            # several messages in one frame: tshark's lists drop empty
            # fields, so they cannot be told apart; counted below
            multi += 1
            continue
        if m['type'] == 'call':
            want = int(cdup) if cdup else None
            if m.get('retrans_of') != want:
                errs.append('%s: call %d retrans_of %r, tshark %r' %
                            (pcap, m['frame'], m.get('retrans_of'), want))
            continue
        want = (int(req) if req else None, tim or None,
                int(rdup) if rdup else None)
        got = (m.get('reply_to'), m.get('time_from_request'), m.get('dup_of'))
        if got != want:
            errs.append('%s: reply %d marks %r, tshark %r' %
                        (pcap, m['frame'], got, want))
    check_gen(pcap, msgs, truth, ops_truth, errs)
    if with_tshark and blind * 5 > len(msgs):
        errs.append('%s: %d of %d messages not RPC for tshark' %
                    (pcap, blind, len(msgs)))
    ops = [json.loads(l) for l in open(ops_truth)]
    retrans = sum(len(o['tx_ns']) - 1 for o in ops)
    dups = sum(o['dup_replies'] for o in ops if o.get('answered'))
    if n['retrans_of'] != retrans or n['dup_of'] != dups:
        errs.append('%s: %d retransmissions, %d duplicate replies marked; '
                    'the generator sent %d, %d' % (pcap, n['retrans_of'],
                                                   n['dup_of'], retrans, dups))
    if multi * 2 > len(msgs):
        errs.append('%s: %d of %d messages share a frame' % (pcap, multi,
                                                             len(msgs)))
    if n['retrans_of'] == 0 or n['dup_of'] == 0 or n['reply_to'] == 0:
        errs.append('%s: nothing marked: %r' % (pcap, n))
    # the text lines: the same marks
    text = run([nfscope, 'dump', '-r', pcap]).splitlines()
    want = sum(1 for m in msgs if 'retrans_of' in m)
    got = sum(1 for l in text if '[retransmission of #' in l)
    want_r = sum(1 for m in msgs if 'reply_to' in m)
    got_r = sum(1 for l in text if '[reply to #' in l)
    if (got, got_r) != (want, want_r):
        errs.append('%s: text marks %d/%d, JSON %d/%d' %
                    (pcap, got, got_r, want, want_r))
    return n


def truth_msgs(path):
    return [json.loads(l) for l in open(path)]


def check_filter(nfscope, pcap, truth, args, sel, what, errs):
    """sel(call message of the record) -> selected; the messages shown must
    be those calls and the replies to them."""
    # by (frame, xid): one TCP segment may carry several records, and a
    # reply's call is its call_frame and its xid
    calls = {(m['frame'], m['xid']) for m in truth
             if m.get('type') == 'call' and sel(m)}
    want = calls | {(m['frame'], m['xid']) for m in truth
                    if m.get('type') == 'reply' and
                    (m.get('call_frame'), m['xid']) in calls}
    msgs, summ = dump_json(nfscope, pcap, *args)
    got = {(m['frame'], m['xid']) for m in msgs}
    if got != want or not want:
        errs.append('%s %s: %d messages shown, the record selects %d '
                    '(only shown %s, only selected %s)' %
                    (pcap, what, len(got), len(want), sorted(got - want)[:5],
                     sorted(want - got)[:5]))
    if summ.get('shown') != len(msgs):
        errs.append('%s %s: summary shown %r, %d lines' %
                    (pcap, what, summ.get('shown'), len(msgs)))


def fnv(h):
    x = 2166136261
    for b in bytes.fromhex(h):
        x = ((x ^ b) * 16777619) & 0xffffffff
    return '%08x' % x


def main():
    nfscope, nfsgen, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    errs = []
    caps = {
        'udp': ['--transport', 'udp', '--retrans', '0.2', '--dup-replies',
                '0.1', '--size', '32768', '--count', '200', '--seed', '3'],
        'tcp': ['--transport', 'tcp', '--retrans', '0.1', '--dup-replies',
                '0.1', '--count', '300', '--seed', '5'],
        # tshark takes a reused XID for a retransmission: the generator's
        # record alone decides here
        'reuse': ['--transport', 'mix', '--retrans', '0.1', '--dup-replies',
                  '0.1', '--xid-reuse', '--count', '300', '--seed', '6'],
    }
    for name, args in caps.items():
        pcap = os.path.join(work, name + '.pcap')
        truth = os.path.join(work, name + '.truth')
        ops = os.path.join(work, name + '.ops')
        run([nfsgen, '-o', pcap, '-t', truth, '--ops-truth', ops] + args)
        n = check_marks(nfscope, pcap, truth, ops, errs, name != 'reuse')
        print('%s: %r' % (name, n))
        t = truth_msgs(truth)
        check_filter(nfscope, pcap, t, ['--op', 'getattr,ACCESS'],
                     lambda m: m.get('proc') in (1, 4) and m['vers'] == 3
                     and m['prog'] == 100003, '--op getattr,ACCESS', errs)
        check_filter(nfscope, pcap, t, ['--client', '10.0.0.1,10.0.0.2/32'],
                     lambda m: m['src'] in ('10.0.0.1', '10.0.0.2'),
                     '--client', errs)
        check_filter(nfscope, pcap, t, ['--server', '10.1.0.0/31',
                                        '--op', 'GETATTR'],
                     lambda m: m['dst'] == '10.1.0.1' and m.get('proc') == 1,
                     '--server --op', errs)
        fhs = [m['args']['fh'] for m in t if m.get('type') == 'call'
               and 'fh' in m.get('args', {})]
        fh = max(sorted(set(fhs)), key=fhs.count)	# ties: the same each run
        sel = lambda m: m.get('args', {}).get('fh') in (fh,) or \
            m.get('args', {}).get('to', {}).get('fh') == fh
        check_filter(nfscope, pcap, t, ['--fh', fh], sel, '--fh HEX', errs)
        check_filter(nfscope, pcap, t, ['--fh', fnv(fh)], sel,
                     '--fh HASH', errs)
        # report --fh: the operations on that handle, as the record has
        want = len({(m['src'], m['dst'], m['xid'], m['proc']) for m in t
                    if m.get('type') == 'call' and
                    m.get('args', {}).get('fh') == fh})
        rep = json.loads(run([nfscope, 'report', '-r', pcap, '--json',
                              '--fh', fnv(fh) + ',' + fh]))
        if rep['totals']['ops'] != want:
            errs.append('%s report --fh: %d operations, the record %d' %
                        (pcap, rep['totals']['ops'], want))
    r = subprocess.run([nfscope, 'dump', '-r', pcap, '--fh', 'xyz'],
                       capture_output=True, text=True)
    if r.returncode != 2 or '--fh' not in r.stderr:
        errs.append('--fh xyz: exit %d, %r' % (r.returncode, r.stderr))
    for e in errs[:40]:
        print('FAIL', e)
    print('%d errors' % len(errs))
    return 1 if errs else 0


if __name__ == '__main__':
    sys.exit(main())
