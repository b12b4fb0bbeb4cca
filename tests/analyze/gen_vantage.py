#!/usr/bin/env python3
"""gen_vantage.py NFSGEN NFSCOPE - issue 16: the vantage point and the
retransmit causes at either end of a link, against the generator's script.

nfsgen's `vantage` scenario (tests/gen/README.md) writes the same traffic as
seen at the client's end or at the server's: each op's true cause (lost
call, lost reply, slow server, short client timeout, a reply that lost an IP
fragment, never answered, a TCP resend) is in its ops-truth line, with the
transmissions and replies that end saw.  What nfscope must call each cause
at each end is the rule table in tests/lib/rx_rules.py (doc/report.md,
`retransmits`), written there, not taken from nfscope.
"""
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter

NFSGEN, NFSCOPE = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
import tally  # noqa: E402
from rx_rules import RULES, WORDS  # noqa: E402
from tally import check  # noqa: E402

CAUSES = ('never_answered', 'slow_server', 'lost_call_or_reply', 'lost_ip_fragments',
          'tcp_reconnect', 'lost_reply', 'client_timeout_under_usual_latency')
SIDE = {'client': 'client side', 'server': 'server side'}
# the retransmits finding's next step when one cause is most of them
# (analyze/find_base.c), else the general meaning
NEXT = {'never_answered': 'never answered', 'slow_server': "after the client's timeout",
        'lost_call_or_reply': 'a call or its reply was lost',
        'lost_ip_fragments': 'large UDP messages sent in IP fragments',
        'tcp_reconnect': 'new TCP connection', 'lost_reply': 'reply was lost on its way',
        'client_timeout_under_usual_latency': 'sooner than this server usually answers'}
GENERAL = 'the causes in the evidence say'


def eq(got, want, what):
    check(got == want, "%s: got %r, want %r" % (what, got, want))


def nfscope(*args):
    return subprocess.run([NFSCOPE] + list(args), check=True,
                          stdout=subprocess.PIPE).stdout.decode()


def expected(truth, end):
    """{(client, server): Counter(cause)} from the script, and the pairs'
    transports."""
    want, proto = {}, {}
    for op in truth:
        pair = (op['client'], op['server'])
        proto[pair] = op['proto']
        if 'cause' not in op:
            continue
        name = RULES[op['cause']][end]
        seen = len(op['tx_ns'])
        if name is None:
            eq(seen, 1, '%s end: %s seen as one transmission' % (end, op['cause']))
            continue
        check(seen >= 2, '%s end: %s xid %d seen resent' % (end, op['cause'], op['xid']))
        want.setdefault(pair, Counter())[name] += 1
    return want, proto


def check_end(tmp, end, rtt_us=2000, repeat=10):
    name = 'vantage-%s-%d' % (end, rtt_us)
    pcap, ops = os.path.join(tmp, name + '.pcap'), os.path.join(tmp, name + '.ops')
    subprocess.run([NFSGEN, '-o', pcap, '--ops-truth', ops, '--scenario', 'vantage',
                    '--transport', 'udp', '--end', end, '--rtt-us', str(rtt_us),
                    '--repeat', str(repeat), '--seed', '5'],
                   check=True, stderr=subprocess.DEVNULL)
    truth = [json.loads(line) for line in open(ops)]
    want, proto = expected(truth, end)
    rep = json.loads(nfscope('report', '-r', pcap, '--json'))
    text = nfscope('report', '-r', pcap)
    rows = list(csv.DictReader(io.StringIO(nfscope('report', '-r', pcap, '--csv',
                                                   'vantage'))))
    pairs = {(p['client'], p['server']): p for p in rep['pairs']}
    # nfsgen puts 1..21 us between frames: the round trip plus that against
    # up to 21 us; the rule (find.h): the larger gap >= 22 us and 1.5 x
    # the other
    tcp_decides = rtt_us + 1 >= 22 and 2 * (rtt_us + 1) >= 3 * 21
    points = {}
    for pair, causes in sorted(want.items()):
        v = pairs.get(pair, {}).get('vantage')
        check(v is not None, '%s: pair %s has a vantage' % (name, pair))
        if v is None:
            continue
        got = {k: n for k, n in v['retrans_causes'].items() if n}
        eq(got, dict(causes), '%s: %s causes' % (name, pair))
        points[pair] = v['point']
        if proto[pair] == 'tcp':
            eq(v['point'], SIDE[end] if tcp_decides else 'unknown',
               '%s: %s (TCP) vantage point' % (name, pair))
            eq(v['by'], 'tcp_handshakes' if tcp_decides else 'udp_resends',
               '%s: %s decided by' % (name, pair))
            eq(v['handshakes'], 1, '%s: %s handshakes' % (name, pair))
        else:
            eq(v['point'], SIDE[end], '%s: %s (UDP) vantage point' % (name, pair))
            eq(v['by'], 'udp_resends', '%s: %s decided by' % (name, pair))
        line = 'vantage %s -> %s: %s' % (pair[0], pair[1], v['point'])
        check(line in text, '%s: text has %r' % (name, line))
        row = [r for r in rows if (r['client'], r['server']) == pair]
        eq(len(row), 1, '%s: %s CSV rows' % (name, pair))
        if row:
            eq(row[0]['vantage'], v['point'], '%s: %s CSV vantage' % (name, pair))
            eq({k: int(row[0][k]) for k in CAUSES if int(row[0][k])}, got,
               '%s: %s CSV causes' % (name, pair))
    # the retransmits finding of each client: its evidence counts
    for f in rep['findings']:
        if f['kind'] != 'retransmits':
            continue
        total = Counter()
        for pair, causes in want.items():
            if pair[0] == f['client']:
                total.update(causes)
        for key, label in WORDS.items():
            m = re.search(r"(?:[;,]|causes:) %s (\d+)" % re.escape(label), f['evidence'])
            check(m is not None, '%s: %s evidence names %r' % (name, f['client'], label))
            if m:
                eq(int(m.group(1)), total[key], '%s: %s evidence %s' % (name, f['client'],
                                                                       label))
        n = sum(total.values())
        top = max(total, key=total.get) if n else None
        net = sum(total[k] for k in ('lost_call_or_reply', 'lost_ip_fragments', 'lost_reply'))
        if net and 2 * net > n:     # losses on the network, one family
            want_m = NEXT['lost_ip_fragments' if total['lost_ip_fragments'] else
                          'lost_reply' if 2 * total['lost_reply'] > net else
                          'lost_call_or_reply']
        else:
            want_m = NEXT[top] if top and 2 * total[top] > n else GENERAL
        check(want_m in f['meaning'], '%s: %s meaning fits the causes %s: %s'
              % (name, f['client'], dict(total), f['meaning']))
        lost_calls_note = 'not seen at the server side' in f['evidence']
        eq(lost_calls_note, all(points[p] == 'server side' for p in want if
                                p[0] == f['client']),
           '%s: %s says lost calls are not seen' % (name, f['client']))
    eq(sorted(f['client'] for f in rep['findings'] if f['kind'] == 'retransmits'),
       sorted({p[0] for p in want}), '%s: clients with a retransmits finding' % name)


def main():
    tmp = tempfile.mkdtemp(prefix='nfscope-vantage-')
    try:
        for end in ('client', 'server'):
            check_end(tmp, end)
        # the handshake rule's floor: no round trip tells nothing (the TCP
        # pair's point is unknown), 100 us does
        for end in ('client', 'server'):
            check_end(tmp, end, rtt_us=0, repeat=2)
            check_end(tmp, end, rtt_us=100, repeat=2)
    finally:
        shutil.rmtree(tmp, True)
    sys.exit(tally.summary("gen_vantage"))


if __name__ == '__main__':
    main()
