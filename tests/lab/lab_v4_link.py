#!/usr/bin/env python3
"""lab_v4_link.py --nfscope N --tapfwd T --work DIR: NFSv4.0 and 4.1 at both
ends of a lossy, delayed link, whole and header-only.

The lab of lab_v41.py (a serving ganesha; a PROXY_V4 ganesha in the client
namespace, the NFSv4.1 client of the first; libnfs 4.0's utilities) on the
TAP link (tapfwd) with every frame delayed DELAY_MS +- JITTER_MS and LOSS of
the frames lost, each way.  The proxy's 4.1 traffic (ls, a 1 MiB file read
back, alone and by READERS readers at once, a small file written and
read) and libnfs's own NFSv4.0 traffic to the serving ganesha (ls, the
same file read) cross the link.  tcpdump captures
both ends whole (`capture.pcap` at the client, `server-full.pcap`) and
header-only (`client-512`, `client-256`, `server-512`, `server-256`), all
at once, as lab.py's twins scenarios do.

Ground truth, none of it from nfscope: the serving ganesha's per-operation
counts (GetFULLV4Stats), tshark's NFSv4 dissector over each end's whole
capture (ops per opcode in the calls, each call's ops by xid), truth.py's own
walk of each TCP stream (the RPC messages, where their headers lie, what
each twin at its snaplen holds), the link's settings and drop log, and the
bytes libnfs read back.  Held to it, at each end:
- ops in the COMPOUND replies per op = ganesha's; ops in the calls = tshark's;
- nfscope's calls by xid = the stream walk's, each named by its main op as
  tshark's ops of that call give it (doc/nfs4.md's rule); no RPC
  retransmission (no xid sent twice); every COMPOUND answered; TCP
  segments seen again = truth.py's count, no gap left;
- each COMPOUND's latency at the client at least its latency at the server
  plus the link's least delay both ways (the link's setting);
- each twin is its whole capture cut at its snaplen; nfscope finds the
  calls whose call or reply header the twin holds (at most 1% missed, each
  named: a reply header in a segment refilling a loss hole was once) and
  no call that was not sent, and names each by its main op or `COMPOUND` (not known), never
  another op; it says the report incomplete exactly when a header is
  hidden, and counts hidden calls (replies) exactly when some were (the
  estimate's closeness is printed: with few records of mixed sizes it
  depends on how TCP cut the segments).
Exits 77 without root, namespaces, the proxy FSAL or tshark."""
import collections
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import labnet  # noqa: E402
import lab_v4  # noqa: E402
import lab_v41  # noqa: E402
import truth  # noqa: E402

DELAY_MS, JITTER_MS, LOSS = 10, 3, 0.02
IMPAIR = 'delay=%d,jitter=%d,loss=%g' % (DELAY_MS, JITTER_MS, LOSS)
TWINS = {'client-512': ('client', 512), 'client-256': ('client', 256),
         'server-full': ('server', 0), 'server-512': ('server', 512),
         'server-256': ('server', 256)}
BIG = 1 << 20
READERS = 4                  # proxy readers of BIG at once
CAPS = 32768                 # the serving export's MaxRead/MaxWrite

# doc/nfs4.md: a COMPOUND's main op is its first op not one of these; else
# its GETATTR; else its last op
NOT_MAIN = {53, 22, 24, 23, 32, 31, 10, 9}     # SEQUENCE PUTFH ... GETATTR
GETATTR, COMPOUND_UNKNOWN = 9, 1


def main_op(opcodes):
    for op in opcodes:
        if op not in NOT_MAIN:
            return op
    return GETATTR if GETATTR in opcodes else opcodes[-1]


def tshark_decode_args(pcap):
    """-d options decoding every client port talking to 2049 as RPC (the
    proxy binds a privileged port tshark would take for something else)."""
    ports = subprocess.run(['tshark', '-r', pcap, '-Y', 'tcp.dstport == 2049',
                            '-T', 'fields', '-e', 'tcp.srcport'],
                           capture_output=True, text=True).stdout.split()
    return [x for p in sorted(set(ports)) for x in ('-d', 'tcp.port==%s,rpc' % p)]


def tshark_calls(pcap):
    """{xid: [opcodes] ([] for NULL)} of the NFS calls tshark dissects alone
    in their frame, and the xids it saw sharing a frame with another call
    (their ops cannot be told apart: left out)."""
    out = subprocess.run(['tshark', '-r', pcap] + tshark_decode_args(pcap) +
                         ['-Y', 'rpc.msgtyp == 0 && rpc.program == 100003', '-T', 'fields',
                          '-e', 'rpc.xid', '-e', 'nfs.opcode'],
                         capture_output=True, text=True, check=True).stdout
    calls, shared = {}, set()
    for line in out.splitlines():
        f = (line.split('\t') + ['', ''])[:2]
        xids = [int(x, 16) if x.startswith('0x') else int(x) for x in f[0].split(',') if x]
        if len(xids) != 1:
            shared.update(xids)
            continue
        calls[xids[0]] = [int(x) for x in f[1].split(',') if x]
    for x in shared:
        calls.pop(x, None)
    return calls, shared


def nfscope_calls(nfscope, pcap):
    """{xid: [opcodes]} of the NFSv4 calls in nfscope's dump."""
    dump = subprocess.run([nfscope, 'dump', '--json', '-r', pcap],
                          capture_output=True, text=True, check=True).stdout
    calls = {}
    for line in dump.splitlines():
        m = json.loads(line)
        if m.get('type') == 'call' and m.get('prog') == 100003:
            calls[m['xid']] = [o['opcode'] for o in m.get('nfs4', {}).get('ops', [])
                               if 'opcode' in o]
    return calls


def stream_calls(pcap):
    """truth.py's walk of the capture's TCP streams: {xid: times the NFS
    call was sent} (a TCP re-send of a segment is no second call)."""
    sent = collections.Counter()
    for st in truth.streams_of(pcap).values():
        for _, _, xid, kind, prog, _, _ in truth.stream_messages(st.data()):
            if kind == 'call' and prog == 100003:
                sent[xid] += 1
    return sent


def nfscope_ops(nfscope, pcap):
    """{xid: (proc, lat_first_ns or None, retrans)} of nfscope's NFS ops of
    a capture (its ops table)."""
    db = pcap + '.ops.db'
    subprocess.run([nfscope, 'record', '-r', pcap, '-w', db, '--ops', 'all', '--force',
                    '--quiet'], capture_output=True, text=True, check=True)
    con = sqlite3.connect('file:%s?mode=ro' % db, uri=True)
    run = con.execute('SELECT max(id) FROM runs').fetchone()[0]
    rows = con.execute('SELECT xid, proc, lat_first_ns, retrans, reply_frame FROM ops '
                       'WHERE run = ? AND prog = 100003', (run,)).fetchall()
    con.close()
    return {int(x): (p, lat if rf else None, rt) for x, p, lat, rt, rf in rows}


def report(nfscope, pcap):
    return json.loads(subprocess.run([nfscope, 'report', '--json', '-r', pcap],
                                     capture_output=True, text=True, check=True).stdout)


class Checks:
    def __init__(self):
        self.fails = 0

    def __call__(self, cond, what):
        self.fails += not cond
        print('%s %s' % ('ok  ' if cond else 'FAIL', what))


def check_whole(check, nfscope, end, pcap, ganesha):
    """One end's whole capture against ganesha, tshark and the stream walk.
    Returns nfscope's ops by xid."""
    ran = lab_v4.ops_in_calls(nfscope, pcap, 'reply')
    diff = {op: (ran.get(op, 0), ganesha.get(op, 0)) for op in set(ran) | set(ganesha)
            if ran.get(op, 0) != ganesha.get(op, 0)}
    check(not diff, '%s: ops run per op = ganesha\'s (%d kinds, %d ops)%s' % (
        end, len(ganesha), sum(ganesha.values()), ': nfscope, ganesha %s' % diff if diff else ''))
    ts_calls, shared = tshark_calls(pcap)
    nf_calls = nfscope_calls(nfscope, pcap)
    differ = [x for x, ops in ts_calls.items() if nf_calls.get(x) != ops]
    check(ts_calls and not differ, '%s: each call\'s ops = tshark\'s (%d calls, %d ops); '
          '%d tshark does not dissect, %d share a frame%s' % (
              end, len(ts_calls), sum(map(len, ts_calls.values())),
              len(set(nf_calls) - set(ts_calls) - shared), len(shared),
              ': %s' % [(x, nf_calls.get(x), ts_calls[x]) for x in differ[:3]]
              if differ else ''))
    _, minors, _ = lab_v41.tshark_view(pcap)
    check(set(minors) == {'0', '1'}, '%s: NFSv4.0 and 4.1 calls: %s' % (end, dict(minors)))
    ops = nfscope_ops(nfscope, pcap)
    sent = stream_calls(pcap)
    check(set(ops) == set(sent), '%s: nfscope\'s calls = the stream walk\'s (%d): '
          'only nfscope %d, only the walk %d' % (end, len(sent), len(set(ops) - set(sent)),
                                                 len(set(sent) - set(ops))))
    twice = {x for x, n in sent.items() if n > 1}
    retrans = {x for x, (_, _, r) in ops.items() if r}
    check(retrans == twice, '%s: RPC retransmissions %d, xids sent twice %d' % (
        end, len(retrans), len(twice)))
    mains = {x: main_op(o) if o else 0 for x, o in ts_calls.items()}
    wrong = {x: (ops[x][0], m) for x, m in mains.items() if x in ops and ops[x][0] != m}
    check(not wrong and mains, '%s: each call named by tshark\'s main op (%d)%s' % (
        end, len(mains), ': %s' % dict(list(wrong.items())[:5])
                        if wrong else ''))
    rep = report(nfscope, pcap)
    rows = [r for r in rep['procedures'] if r['prog'] == 100003 and r['vers'] == 4]
    check(sum(r['unanswered'] for r in rows) == 0, '%s: every COMPOUND answered' % end)
    check(rep['capture']['tcp_retrans'] == truth.tcp_rexmits(pcap),
          '%s: TCP segments seen again: nfscope %d, truth %d' % (
              end, rep['capture']['tcp_retrans'], truth.tcp_rexmits(pcap)))
    check(rep['capture']['tcp_gaps'] == 0, '%s: no TCP gap left (%d)' % (
        end, rep['capture']['tcp_gaps']))
    return ops, mains


def check_latency(check, client_ops, server_ops):
    """Each COMPOUND answered at both ends: its time at the client is its
    time at the server plus two crossings of the link, each at least
    DELAY_MS - JITTER_MS (tapfwd holds every frame that long)."""
    least = 2 * (DELAY_MS - JITTER_MS) * 1000000
    both = [(c[1], server_ops[x][1]) for x, c in client_ops.items()
            if x in server_ops and c[1] is not None and server_ops[x][1] is not None]
    short = [(c, s) for c, s in both if c - s < least]
    check(both and not short, 'latency: client >= server + %d ms for all %d COMPOUNDs '
          'answered at both ends%s' % (least // 1000000, len(both),
                                        ': %d not, e.g. %s' % (len(short), short[:3])
                                        if short else ''))


def check_twin(check, nfscope, end, full, pcap, snaplen, t, mains):
    """A twin against the walk of its whole capture and tshark's main ops."""
    why = truth.twin_cut_matches(full, pcap, snaplen)
    check(not why, '%s-%d: the whole capture cut at %d %s' % (end, snaplen, snaplen, why))
    tw = t['twins'][snaplen]
    visible = set(tw['call_seen']) | set(tw['reply_seen'])
    sent = set(t['ops'])
    ops = nfscope_ops(nfscope, pcap)
    found = set(ops)
    # Known gap: a reply whose call the snaplen hid, its header in a
    # segment that fills a hole the link's loss made, was once missed
    # (1 of 237, at both ends: the lossy link's timing decides); none
    # invented ever, and at most 1% missed, each listed.
    missed = visible - found
    check(found <= sent and len(missed) <= max(1, len(visible) // 100),
          '%s-%d: nfscope finds the %d calls with a header visible, none not sent: %d found '
          '(%d hidden calls, %d hidden replies of %d; missed %d%s, invented %d)' % (
              end, snaplen, len(visible), len(found), tw['hidden_calls'],
              tw['hidden_replies'], len(sent), len(missed),
              ' %s' % ['0x%08x' % x for x in sorted(missed)[:5]] if missed else '',
              len(found - sent)))
    hidden = tw['hidden_calls'] + tw['hidden_replies'] > 0
    rep = report(nfscope, pcap)
    check(rep['complete'] == (not hidden), '%s-%d: said complete %s, headers hidden %s' % (
        end, snaplen, rep['complete'], hidden))
    est = (rep.get('incomplete') or {}).get('hidden') or {}
    for what in ('calls', 'replies'):
        # as lab.py's twin targets: a call cut in its header is named and
        # counted, not hidden.  The number is an estimate from the record
        # before each span (capture/capture.h): with this link's few hidden
        # records of mixed sizes (1 MiB READ replies beside small ones) it
        # came 2 of 4 and 8 of 10 in CI, as TCP happened to cut the
        # segments; what holds at any load is that it says so exactly when
        # records of that kind were hidden.  The closeness is printed.
        want = tw['hidden_' + what] - (tw['calls_cut_in_header'] if what == 'calls' else 0)
        got = est.get(what, 0)
        print('%s-%d: hidden %s estimated %d, truth %d%s' % (
            end, snaplen, what, got, want,
            '' if abs(got - want) <= max(1, want * 0.1) else ' (over 10% off)'))
        check((got > 0) == (want > 0), '%s-%d: hidden %s estimated %d, truth %d' % (
            end, snaplen, what, got, want))
    unknown = sum(1 for x in found if ops[x][0] == COMPOUND_UNKNOWN)
    wrong = {x: (ops[x][0], mains[x]) for x in found
             if x in mains and ops[x][0] not in (mains[x], COMPOUND_UNKNOWN)}
    check(not wrong, '%s-%d: each call its main op or COMPOUND (%d COMPOUND), never '
          'another%s' % (end, snaplen, unknown, ': %s' % dict(list(wrong.items())[:5])
                         if wrong else ''))


def together(lab, cmds):
    """Run libnfs utilities in the client namespace at once; their outputs."""
    ps = [subprocess.Popen(['ip', 'netns', 'exec', lab.cns, 'timeout', '60'] + list(c),
                           stdout=subprocess.PIPE) for c in cmds]
    outs = [p.communicate()[0] for p in ps]
    if any(p.returncode for p in ps):
        raise RuntimeError('libnfs at once: exits %s' % [p.returncode for p in ps])
    return outs


def run(lab, work):
    """The workload; returns ganesha's counts of it and what libnfs read."""
    with open(os.path.join(lab.export, 'big.bin'), 'wb') as f:
        f.write(os.urandom(BIG))
    with open(os.path.join(lab.export, 'big.bin'), 'rb') as f:
        big = f.read()
    src = os.path.join(work, 'small.bin')
    with open(src, 'wb') as f:
        f.write(os.urandom(2000))
    before, _ = lab.v4_stats()
    lab.start_captures(os.path.join(work, 'v4link.db'), os.path.join(work, 'capture.pcap'),
                       TWINS, record_kib=65536)
    lab.proxy()                 # its EXCHANGE_ID and CREATE_SESSION on the link
    lab.libnfs('nfs-ls', lab.url_proxy())
    got = {'4.1 big': lab.libnfs('nfs-cat', lab.url_proxy('big.bin')) == big}
    # readers at once: the proxy's calls share its one connection, so
    # replies queue behind each other and later headers start inside
    # segments (what a twin at a snaplen may hide)
    got['4.1 big x%d at once' % READERS] = all(out == big for out in together(
        lab, [('nfs-cat', lab.url_proxy('big.bin'))] * READERS))
    lab.libnfs('nfs-cp', src, lab.url_proxy('small.bin'))
    got['4.1 small'] = lab.libnfs('nfs-cat', lab.url_proxy('small.bin')) == open(src,
                                                                                 'rb').read()
    lab.libnfs('nfs-ls', lab.url4())
    got['4.0 big'] = lab.libnfs('nfs-cat', lab.url4('big.bin')) == big
    time.sleep(1)
    lab.stop_captures()
    after, raw = lab.v4_stats()
    ganesha = {k: after.get(k, 0) - before.get(k, 0) for k in after}
    return {k: n for k, n in ganesha.items() if n}, raw, got


def main():
    a = lab_v4.lab_args('--tapfwd')
    if a is None:
        return 77
    if not os.path.exists(lab_v41.PROXY_FSAL) or not shutil.which('tshark'):
        print('skip: needs nfs-ganesha-proxy-v4 (%s) and tshark' % lab_v41.PROXY_FSAL)
        return 77
    work = os.path.join(os.path.abspath(a.work), 'v4link')
    check = Checks()
    tools = {'nfscope': a.nfscope, 'tapfwd': a.tapfwd}
    with lab_v41.LabV41(work, tools, link='tap', impair={'ab': IMPAIR, 'ba': IMPAIR},
                        seed=17, snaplen=0, caps=(CAPS, CAPS)) as lab:
        ganesha, raw, got = run(lab, work)
        drops = lab.stop_link()
    check(bool(ganesha), 'ganesha counted NFSv4 ops: %s' % raw[:200].replace('\n', ' '))
    check(all(got.values()), 'libnfs read back what was written: %s' % got)
    lost = collections.Counter(d['dir'] for d in drops['drops']
                               if d.get('proto') == 6 and d.get('payload', 0) > 0)
    check(lost['ab'] > 0 and lost['ba'] > 0, 'the link dropped TCP data both ways: %s '
          '(%s)' % (dict(lost), {k: (s.get('frames'), s.get('dropped'))
                                 for k, s in drops['summary'].items()}))
    full = {'client': os.path.join(work, 'capture.pcap'),
            'server': os.path.join(work, 'server-full.pcap')}
    seen = {}
    for end in ('client', 'server'):
        seen[end] = check_whole(check, a.nfscope, end, full[end], ganesha)
    check_latency(check, seen['client'][0], seen['server'][0])
    for end in ('client', 'server'):
        paths = lab_v4.io_paths(a.nfscope, full[end])
        want = {'READ': {'/lab/big.bin', '/lab/small.bin'}, 'WRITE': {'/lab/small.bin'}}
        check(paths == want, '%s: READ and WRITE paths %s, the files used %s' % (
            end, paths, want))
    for end in ('client', 'server'):
        t = truth.twin_truth(truth.streams_of(full[end]), [512, 256])
        for snaplen in (512, 256):
            check_twin(check, a.nfscope, end, full[end],
                       os.path.join(work, '%s-%d.pcap' % (end, snaplen)), snaplen, t,
                       seen[end][1])
    print('%d failed' % check.fails)
    return 1 if check.fails else 0


if __name__ == '__main__':
    sys.exit(main())
