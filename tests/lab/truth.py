"""truth.py - the checks: nfscope's report against the lab's own ground
truth (the client's record, ganesha's statistics, the injected impairment,
tapfwd's drop log, and facts read from the pcap by the small independent
parser below).  No nfscope code computes any expected value here.

Each check appends a failure text to a list; an empty list is a pass.
"""
import struct

STORMS = {'getattr_storm', 'access_storm', 'lookup_storm', 'commit_storm'}


class Checker:
    def __init__(self, name):
        self.name = name
        self.failures = []
        self.table = []          # (figure, nfscope, truth) rows for the report

    def eq(self, what, got, want, who='nfscope'):
        """got is nfscope's figure unless who says whose it is."""
        self.table.append((what, got, want))
        if got != want:
            self.failures.append('%s: %s %r, truth %r' % (what, who, got, want))

    def ok(self, what, cond, detail=''):
        if not cond:
            self.failures.append('%s %s' % (what, detail))


def procs(report):
    return {p['procedure']: p for p in report['procedures']}


# ------------------------------------------------------------- live/offline --
def strip_run(report):
    """What may differ between `report X.db` and `report -r X.pcap`: the
    source name and the live capture's own pcap_stats counters."""
    r = dict(report)
    r.pop('source', None)
    cap = dict(r.get('capture', {}))
    for k in ('ps_recv', 'ps_drop', 'ps_ifdrop'):
        cap.pop(k, None)
    r['capture'] = cap
    return r


def diff(a, b, path=''):
    """Paths where two JSON values differ (first 20)."""
    out = []
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append('%s/%s only in %s' % (path, k, 'live' if k in a else 'pcap'))
            else:
                out += diff(a[k], b[k], '%s/%s' % (path, k))
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            out += diff(x, y, '%s[%d]' % (path, i))
    elif a != b:
        out.append('%s: live %r, pcap %r' % (path, a, b))
    return out[:20]


def check_live_offline(c, live, offline):
    d = diff(strip_run(live), strip_run(offline))
    c.ok('live (record -i, report X.db) and offline (tcpdump -w, report -r) differ:',
         not d, '; '.join(d))
    c.eq('kernel drops (live)', live['capture'].get('ps_drop', 0), 0)


# ---------------------------------------------------------------- counts --
def check_client_counts(c, report, client, exact=True):
    """Ops per procedure = the client's calls; retransmissions = its re-sends."""
    p = procs(report)
    for name, t in sorted(client['procedures'].items()):
        row = p.get(name, {'calls': 0, 'retrans': 0, 'errors': 0})
        if exact:
            c.eq('%s ops' % name, row['calls'], t['calls'])
            c.eq('%s retrans' % name, row['retrans'], t['resent'])
            c.eq('%s errors' % name, row['errors'], t['errors'])
        else:
            c.ok('%s ops' % name, row['calls'] >= t['calls'],
                 'nfscope %d < client %d' % (row['calls'], t['calls']))
    if exact:
        extra = set(p) - set(client['procedures'])
        c.ok('procedures the client never called:', not extra, sorted(extra))
    c.eq('unanswered', report['totals']['unanswered'], 0)


def dropped_calls(drops, client):
    """Per procedure, the call datagrams the link dropped on the way to the
    server (distinct IP datagrams: a lost fragment loses its datagram)."""
    proc_of = {x: v['procedure'] for x, v in client['resent_xids'].items()}
    seen, out = set(), {}
    for d in drops:
        if d['dir'] == 'ab' and d.get('rpc') == 'call':
            key = (d['xid'], d.get('ipid'), d.get('seq'))
            if key not in seen:
                seen.add(key)
                name = 'NFSv3 ' + proc_of.get(d['xid'], '?')
                out[name] = out.get(name, 0) + 1
    return out


def check_ganesha(c, ganesha, client=None, report=None, drops=()):
    """ganesha counted each call that reached it: the client's transmissions
    minus those the link dropped (a re-send after a lost reply is counted
    again, in `total`, and also in `dups` when ganesha's duplicate request
    cache answered it).  This checks the lab's bookkeeping (client record +
    drop log) against the server.  Where other clients ran too: nfscope's
    NFS ops equal ganesha's counts (no loss there: every op once)."""
    if client is not None:
        lost = dropped_calls(drops, client)
        for name, t in sorted(client['procedures'].items()):
            if not name.startswith('NFSv3'):
                continue   # ganesha's FULLV3 stats have no MOUNT counters
            g = ganesha.get(name, {'total': 0, 'dups': 0})
            c.eq('%s calls ganesha received' % name, g['total'],
                 t['sent'] - lost.get(name, 0), who='ganesha')
    if report is not None:
        p = procs(report)
        for name, g in sorted(ganesha.items()):
            c.eq('%s ops vs ganesha' % name, p.get(name, {}).get('calls', 0), g['total'])
        # ganesha's FULLV3 statistics do not count NULL (libnfs pings with it)
        extra = {n for n in p if n.startswith('NFSv3') and n not in ganesha and
                 n != 'NFSv3 NULL'}
        c.ok('NFS procedures ganesha never served:', not extra, sorted(extra))


# ----------------------------------------------------------------- sizes --
def check_sizes(c, report, client, caps, prefs):
    pairs = report['pairs']
    c.eq('client/server pairs', len(pairs), 1)
    if not pairs:
        return
    pr = pairs[0]
    for op, key in (('READ', 'read_sizes'), ('WRITE', 'write_sizes')):
        c.eq('%s sizes' % op, pr[key]['count_by_size'], client[key])
    si = report['server_info'][0]['fsinfo'] if report['server_info'] else {}
    c.eq('FSINFO rtmax/wtmax', (si.get('rtmax'), si.get('wtmax')), tuple(caps))
    c.eq('FSINFO rtpref/wtpref', (si.get('rtpref'), si.get('wtpref')), tuple(prefs))
    finds = [f for f in report['findings'] if f['kind'] == 'size_capped']
    for op, key, flag, cap in (('READ', 'read_sizes', 'read_capped', caps[0]),
                               ('WRITE', 'write_sizes', 'write_capped', caps[1])):
        sizes = client[key]
        if not sizes:
            continue
        dom, n = max(sizes.items(), key=lambda kv: (kv[1], -int(kv[0])))
        capped = int(dom) == cap and n * 100 >= 90 * sum(sizes.values())
        c.eq('%s capped verdict' % op, pr[flag], capped)
        c.eq('%s size_capped finding' % op,
             any(op in f['evidence'] for f in finds), capped)


# --------------------------------------------------------------- latency --
def check_latency(c, report, op_lats, ganesha, delay_ms, jitter_ms, late_us, slack_ms=5.0,
                  within=0.9):
    """The link delays every server->client frame by delay +- jitter; the
    capture is on the client side, so an op's latency is that delay plus
    the server's time plus the forwarder's wake-up.  Lower bound, for every
    op and so every procedure's min: delay - jitter (nothing can be faster).
    Upper bound: delay + jitter + ganesha's own max for the procedure (its
    statistics leave out its queues) + tapfwd's measured worst lateness +
    slack_ms; held by at least `within` of the ops (op_lats: nfscope's
    per-op latencies, from its ops table) because a busy two-core machine
    can stall ganesha's network threads for tens of ms, which no one
    measures.  No mean check: a multi-segment reply waits for the latest
    of several draws."""
    lo = (delay_ms - jitter_ms) * 1e6
    over = []
    for name, row in sorted(procs(report).items()):
        lat = row['latency_ms']
        if not lat['count']:
            continue
        g = ganesha.get(name, {}).get('max_ms', 0.0)
        hi = (delay_ms + jitter_ms + g + late_us / 1000.0 + slack_ms) * 1e6
        c.table.append(('%s latency min..max ms' % name,
                        '%.3f..%.3f' % (lat['min_ns'] / 1e6, lat['max_ns'] / 1e6),
                        '%.1f..%.1f' % (lo / 1e6, hi / 1e6)))
        c.ok('%s latency' % name, lo <= lat['min_ns'],
             'min %.3f ms below %.3f' % (lat['min_ns'] / 1e6, lo / 1e6))
        over += ['%s %.3f ms' % (name, v / 1e6) for op, v in op_lats if op == name and v > hi]
    n = len(op_lats)
    c.table.append(('ops within the upper bound', n - len(over), '>= %d of %d' % (
        int(within * n + 0.999), n)))
    c.eq('ops counted in the ops table', n, report['totals']['answered'])
    c.ok('ops above the upper bound:', len(over) <= (1 - within) * n, ', '.join(over))


# ------------------------------------------------------------ retransmits --
def check_retrans_xids(c, nfscope_xids, client, drops):
    """The calls nfscope saw re-sent are the ones the client re-sent, as
    often; each of them lost its call or its reply on the link; and every
    call or reply the link dropped belongs to one of them."""
    want = {int(x, 16): v['times'] for x, v in client['resent_xids'].items()}
    c.eq('retransmitted xids (xid: re-sends)', nfscope_xids, want)
    dropped = {int(d['xid'], 16) for d in drops if 'xid' in d and d.get('proto') == 17}
    c.ok('re-sent calls with no drop to explain them:', set(want) <= dropped,
         sorted(hex(x) for x in set(want) - dropped))
    c.ok('dropped RPC messages with no re-send:', dropped <= set(want),
         sorted(hex(x) for x in dropped - set(want)))


def check_frag_trains(c, report, drops):
    """Replies losing a fragment on the way to the client leave the client's
    capture an incomplete train (calls lose theirs after the capture)."""
    trains = {(d['src'], d['ipid']) for d in drops if d['dir'] == 'ba' and d.get('frag')}
    c.eq('incomplete IP fragment trains', report['capture']['ipfrag_incomplete'],
         len(trains))


def check_storms(c, report, expect):
    kinds = sorted({f['kind'] for f in report['findings'] if f['kind'] in STORMS})
    c.eq('storm findings', kinds, sorted(expect))


# ------------------------------------------------------- pcap (independent) --
def read_pcap(path):
    """(ts_ns, frame bytes, wire length) of each record: classic pcap, either
    byte order, µs or ns."""
    with open(path, 'rb') as f:
        hdr = f.read(24)
        magic = struct.unpack('<I', hdr[:4])[0]
        end = '<' if magic in (0xa1b2c3d4, 0xa1b23c4d) else '>'
        magic = struct.unpack(end + 'I', hdr[:4])[0]
        scale = 1 if magic == 0xa1b23c4d else 1000
        while True:
            rec = f.read(16)
            if len(rec) < 16:
                return
            sec, frac, incl, orig = struct.unpack(end + 'IIII', rec)
            yield sec * 10**9 + frac * scale, f.read(incl), orig


def tcp_segments(path):
    """(direction key, seq, payload length on the wire) of each TCP segment."""
    for _, fr, orig in read_pcap(path):
        if len(fr) < 34 or fr[12:14] != b'\x08\x00' or fr[23] != 6:
            continue
        ihl = (fr[14] & 15) * 4
        tot = struct.unpack('>H', fr[16:18])[0]
        t = 14 + ihl
        if len(fr) < t + 14:
            continue
        sport, dport, seq = struct.unpack('>HHI', fr[t:t + 8])
        thl = (fr[t + 12] >> 4) * 4
        yield (fr[26:30], sport, fr[30:34], dport), seq, tot - ihl - thl


def tcp_rexmits(path):
    """Segments whose payload bytes were all seen before in their direction
    (the wire length counts: a snaplen cut does not hide bytes)."""
    seen, n = {}, 0
    for key, seq, plen in tcp_segments(path):
        if plen <= 0:
            continue
        base, ranges = seen.setdefault(key, [seq, []])
        lo = (seq - base) % 2**32
        hi = lo + plen
        if any(a <= lo and hi <= b for a, b in ranges):
            n += 1
        ranges.append((lo, hi))
        ranges.sort()
        merged = []
        for a, b in ranges:
            if merged and a <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], b))
            else:
                merged.append((a, b))
        seen[key][1] = merged
    return n


def check_tcp_loss(c, report, pcap, drops):
    """Each TCP data segment the link dropped from the client was captured
    before the drop and re-sent after: the pcap shows its bytes again; and
    nfscope's count of segments wholly seen before equals this parser's."""
    c.eq('TCP segments wholly seen before', report['capture']['tcp_retrans'],
         tcp_rexmits(pcap))
    lost = [d for d in drops if d.get('proto') == 6 and d.get('payload', 0) > 0]
    c.ok('the link dropped TCP data', len(lost) > 0)
    c.eq('TCP gaps (capture is lossless)', report['capture']['tcp_gaps'], 0)
