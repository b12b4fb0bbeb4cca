#!/usr/bin/env python3
"""gen_verdict.py NFSGEN NFSCOPE - issue 30: the verdict block and the
findings it ranks, on generator captures (tests/gen, independent of
nfscope), each fault tested both ways: it fires where it was put in and is
silent where it was not.

- sizes: a server maximum of 32k or 1M used as negotiated is a verdict
  line (state as_negotiated), never a size_capped finding; 8k is one
  (small_maximum, its cost said);
- where the time goes: the scripted slow server (cheap ops answered after
  11 ms over a quick link) is slow_server, never slow_path; the same
  traffic with every server->client frame delayed 12 ms (the capture
  rewritten here: a link delay seen at the client) is slow_path, never
  slow_server; the path in the verdict's time line is that delay;
- one vantage point per capture, the right end at either end, never the
  wrong one;
- the hidden-call estimate of a header-only capture is never below the ops
  recovered from their replies, and within 10% of the generator's count;
- no TCP finding (tcp_loss, tcp_reset, tcp_stall) where no TCP trouble was
  made; every verdict line fits 80 columns; healthy said as healthy;
- segments the capture missed (taken out of the file, the server's ACKs
  kept) make the capture incomplete, with their number and bytes; the same
  segments moved later (a hole the sender fills) do not;
- a server whose write verifier changes many times is one server_restart
  finding counting the generator's changes.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import atexit

NFSGEN, NFSCOPE = sys.argv[1], sys.argv[2]
TMP = tempfile.mkdtemp(prefix="nfscope-verdict-")
atexit.register(shutil.rmtree, TMP, True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
import tally  # noqa: E402
from tally import check  # noqa: E402
from pcaprec import delay_from, miss_segments, stall_calls, with_rst  # noqa: E402

TCP_FINDINGS = {'tcp_loss', 'tcp_reset', 'tcp_stall'}


def gen(name, args, truth=False):
    pcap = os.path.join(TMP, name + '.pcap')
    extra = ['-t', os.path.join(TMP, name + '.json')] if truth else []
    subprocess.run([NFSGEN, '-o', pcap] + extra + args, check=True,
                   stderr=subprocess.DEVNULL)
    return pcap


def report(pcap, *args):
    out = subprocess.run([NFSCOPE, 'report', '-r', pcap, '--json'] + list(args),
                         check=True, stdout=subprocess.PIPE).stdout
    return json.loads(out)


def text(pcap):
    return subprocess.run([NFSCOPE, 'report', '-r', pcap], check=True,
                          stdout=subprocess.PIPE, text=True).stdout


def kinds(rep):
    return [f['kind'] for f in rep['findings']]


def check_block(name, pcap, rep):
    """The verdict's shape, its lines within 80 columns, first in the text
    report, findings ranked by impact."""
    v = rep['verdict']
    for k in ('healthy', 'complete', 'vantage', 'vantage_why', 'problems', 'sizes',
              'time', 'loss', 'lines', 'hidden_calls', 'clients_wait_ms'):
        check(k in v, '%s: verdict has %s' % (name, k))
    t = text(pcap).splitlines()
    i = t.index('== Verdict ==') if '== Verdict ==' in t else -1
    said = [l for l in t[:max(i, 0)] if l.startswith('INCOMPLETE')]
    check(0 <= i <= 6 + 3 * len(said),
          '%s: the verdict comes first (line %d), after %d INCOMPLETE' % (name, i, len(said)))
    block = t[i + 1:i + 1 + len(v['lines'])]
    check(all(len(l) < 80 for l in block), '%s: verdict lines under 80 columns: %s'
          % (name, [l for l in block if len(l) >= 80]))
    check(len(block) <= 16, '%s: at most 16 verdict lines' % name)
    imp = [f['impact_pct'] for f in rep['findings']]
    check(imp == sorted(imp, reverse=True), '%s: findings by impact %s' % (name, imp))
    check([p['kind'] for p in v['problems']] == kinds(rep)[:3],
          '%s: problems are the first findings' % name)
    check(v['healthy'] == (not rep['findings'] and rep['complete']),
          '%s: healthy iff no finding and complete' % name)
    if v['healthy']:
        check(v['lines'][0]['text'].startswith('healthy'), '%s: healthy said' % name)


def t_sizes():
    for cap, small in ((8192, True), (32768, False), (1048576, False)):
        name = 'sizes-%d' % cap
        pcap = gen(name, ['--scenario', 'sizes', '--count', '400', '--clients', '2',
                          '--servers', '1', '--size', str(min(cap, 32768)),
                          '--transport', 'tcp', '--server-rtmax', str(cap),
                          '--server-wtmax', str(cap), '--seed', '5'])
        rep = report(pcap)
        check_block(name, pcap, rep)
        nf = kinds(rep).count('size_capped')
        states = {(s['client'], s['op']): s['state'] for s in rep['verdict']['sizes']}
        if cap <= 32768 and small:
            check(nf > 0, '%s: size_capped fires for a small maximum' % name)
            f = [f for f in rep['findings'] if f['kind'] == 'size_capped']
            check(all('a MiB takes 128' in x['evidence'] for x in f),
                  '%s: the cost is said' % name)
            check('small_maximum' in states.values(), '%s: states %s' % (name, states))
        else:
            check(nf == 0, '%s: no size_capped at a %d maximum (%d)' % (name, cap, nf))
            check('small_maximum' not in states.values(), '%s: states %s' % (name, states))
        if cap == 32768:
            check('as_negotiated' in states.values(), '%s: as negotiated %s' % (name, states))
        check(not TCP_FINDINGS & set(kinds(rep)), '%s: no TCP finding %s' % (name, kinds(rep)))


# ------------------------------------------ faults made by rewriting a pcap --
def tcp_writes():
    """One client's 60 WRITEs over TCP (the generator's), its pcap."""
    return gen('writes', ['--scenario', 'writes', '--transport', 'tcp', '--count', '60',
                          '--rate', '20', '--clients', '1', '--servers', '1', '--seed', '4'])


def t_stall():
    plain = tcp_writes()
    rep = report(plain)
    check('tcp_stall' not in kinds(rep), 'no stall made, none found: %s' % kinds(rep))
    held = stall_calls(plain, os.path.join(TMP, 'stall.pcap'), '10.0.', 40 * 10**6)
    check(held >= 20, 'calls held: %d' % held)
    rep = report(os.path.join(TMP, 'stall.pcap'))
    check_block('stall', os.path.join(TMP, 'stall.pcap'), rep)
    f = [x for x in rep['findings'] if x['kind'] == 'tcp_stall']
    check(len(f) == 1, 'tcp_stall fires once: %s' % kinds(rep))
    if f:
        check('%d messages whose last short piece waited' % held in f[0]['evidence'],
              'every held call counted (%d): %s' % (held, f[0]['evidence']))
        check(f[0]['impact_of'] == 'wait', 'its cost is wait')
    check('slow_server' not in kinds(rep), 'the server is not blamed: %s' % kinds(rep))
    check(rep['verdict']['loss']['tcp_stalls'] >= held, 'the verdict counts the stalls')
    # the other way: the same wait before a full-size segment is a window
    # or the application, not Nagle (pipe1m and tcp-resets in the lab)
    paused = stall_calls(plain, os.path.join(TMP, 'paused.pcap'), '10.0.', 40 * 10**6,
                         full=True)
    check(paused >= 5, 'calls paused before a full segment: %d' % paused)
    rep = report(os.path.join(TMP, 'paused.pcap'))
    check('tcp_stall' not in kinds(rep), 'a pause before a full segment is no stall: %s'
          % kinds(rep))


def t_time():
    # the server slow on a quick link
    slow = gen('slow', ['--scenario', 'slow-server', '--count', '40', '--delay-us', '11000',
                        '--clients', '2', '--servers', '1', '--transport', 'tcp',
                        '--seed', '3'])
    rep = report(slow)
    check_block('slow', slow, rep)
    k = kinds(rep)
    check('slow_server' in k and 'slow_path' not in k, 'slow server: %s' % k)
    check(k[:1] == ['slow_server'], 'slow server first: %s' % k)
    t = rep['verdict']['time']
    check(t and t[0]['where'] == 'server', 'slow server: the time is the server\'s %s' % t)
    # the quick server behind a link that delays its frames 20 ms
    quick = gen('quick', ['--scenario', 'slow-server', '--count', '40', '--delay-us', '300',
                          '--clients', '2', '--servers', '1', '--transport', 'tcp',
                          '--seed', '3'])
    rep = report(quick)
    k = kinds(rep)
    check('slow_server' not in k and 'slow_path' not in k, 'quick server, quick link: %s' % k)
    far = delay_from(quick, os.path.join(TMP, 'far.pcap'), '10.1.', 12 * 10**6)
    rep = report(far)
    check_block('far', far, rep)
    k = kinds(rep)
    check('slow_path' in k and 'slow_server' not in k, 'link delay: %s' % k)
    t = rep['verdict']['time']
    check(t and t[0]['where'] == 'path' and 11.5 <= t[0]['path_ms'] <= 12.5,
          'link delay: the path takes the time, ~12 ms: %s' % t)
    check(not TCP_FINDINGS & set(k), 'link delay: no TCP finding %s' % k)


def t_vantage():
    for end, want in (('client', 'client side'), ('server', 'server side')):
        pcap = gen('vantage-' + end, ['--scenario', 'vantage', '--end', end, '--repeat', '3'])
        rep = report(pcap)
        check_block('vantage-' + end, pcap, rep)
        v = rep['verdict']['vantage']
        check(v in (want, 'unknown'), 'vantage at the %s end: %s' % (end, v))
        check(v == want, 'vantage at the %s end decided: %s (%s)'
              % (end, v, rep['verdict']['vantage_why']))
        pts = {p['vantage']['point'] for p in rep['pairs'] if p.get('vantage')}
        check(len(pts - {'unknown'}) <= 1, 'one vantage point per capture: %s' % pts)
        for p in rep['pairs']:
            ev = (p.get('vantage') or {}).get('evidence', '')
            if p.get('vantage', {}).get('by', '').startswith('tcp'):
                check('(UDP:' not in ev, 'a TCP pair is not judged by UDP words: %s' % ev)


def t_hidden():
    truthf = os.path.join(TMP, 'pipe.json')
    pcap = gen('pipe', ['--scenario', 'pipeline', '--count', '600', '--size', '32768',
                        '--snaplen', '256', '--seed', '9'], truth=True)
    hidden = 0
    for line in open(truthf):
        m = json.loads(line)
        if m.get('hidden') and m.get('type') == 'call':
            hidden += 1
    rep = report(pcap)
    v = rep['verdict']
    rec = rep['engine']['from_replies']
    check(v['hidden_calls'] >= rec, 'hidden calls %d >= recovered %d' % (v['hidden_calls'], rec))
    hid = rep['incomplete'].get('hidden') or {}
    check(hid.get('calls') == v['hidden_calls'],
          'the INCOMPLETE figure is the verdict\'s')
    check(abs(v['hidden_calls'] - hidden) <= max(1, hidden // 10),
          'hidden calls %d within 10%% of the generator\'s %d' % (v['hidden_calls'], hidden))
    check(not v['complete'] and any(l['key'] == 'capture' and 'INCOMPLETE' in l['text']
                                    for l in v['lines']), 'incomplete said')


def t_reset():
    plain = tcp_writes()
    with_rst(plain, os.path.join(TMP, 'rst-idle.pcap'), '10.0.', False)
    rep = report(os.path.join(TMP, 'rst-idle.pcap'))
    check('tcp_reset' not in kinds(rep), 'an RST closing an idle connection is no '
          'reset: %s' % kinds(rep))
    check(rep['verdict']['loss'].get('tcp_resets_by_client') == 0, 'no reset counted')
    with_rst(plain, os.path.join(TMP, 'rst-busy.pcap'), '10.0.', True)
    rep = report(os.path.join(TMP, 'rst-busy.pcap'))
    f = [x for x in rep['findings'] if x['kind'] == 'tcp_reset']
    check(len(f) == 1, 'an RST cutting a call fires tcp_reset: %s' % kinds(rep))
    check(rep['verdict']['loss'].get('tcp_resets_by_client') == 1,
          'one connection reset: %s' % rep['verdict']['loss'])


def t_missed():
    """Segments the capture missed (the server acknowledged them) make it
    incomplete, said first; holes the sender fills again do not."""
    plain = tcp_writes()
    rep = report(plain)
    check(rep['capture']['tcp_gaps_missed'] == 0 and rep['verdict']['complete'],
          'a whole capture: no hole missed, complete')
    refill = os.path.join(TMP, 'refill.pcap')
    holes, _ = miss_segments(plain, refill, '10.0.', 4, refill=True)
    rep = report(refill)
    check(holes >= 5 and rep['capture']['tcp_ooo'] >= holes,
          'holes refilled: %d made, %d out of order' % (holes, rep['capture']['tcp_ooo']))
    check(rep['capture']['tcp_gaps'] == 0 and rep['verdict']['complete'],
          'holes the sender fills: complete (%s)' % rep['capture']['tcp_gaps'])
    missed = os.path.join(TMP, 'missed.pcap')
    holes, nbytes = miss_segments(plain, missed, '10.0.', 4)
    rep = report(missed)
    check_block('missed', missed, rep)
    c = rep['capture']
    check((c['tcp_gaps_missed'], c['tcp_gap_missed_bytes']) == (holes, nbytes),
          'holes missed %d (%d bytes), made %d (%d bytes)'
          % (c['tcp_gaps_missed'], c['tcp_gap_missed_bytes'], holes, nbytes))
    v = rep['verdict']
    check(not v['complete'] and not v['healthy'], 'missed segments: incomplete')
    want = 'INCOMPLETE: %d holes in TCP streams' % holes
    check(any(l['key'] == 'capture' and l['text'].startswith(want) for l in v['lines']),
          'the verdict says it: %s' % [l['text'] for l in v['lines']])
    t = text(missed).splitlines()
    check(any(l.startswith(want) for l in t[:8]), 'said in the first lines: %s' % t[:8])


def t_restarts():
    """A server whose write verifier changes many times is one
    server_restart finding with the generator's count of changes, not one
    finding per change."""
    truthf = os.path.join(TMP, 'verf.json')
    pcap = gen('verf', ['--scenario', 'pipeline', '--count', '300', '--size', '32768',
                        '--seed', '9'], truth=True)
    last, changes = {}, {}
    for l in open(truthf):
        m = json.loads(l)
        verf = (m.get('res') or {}).get('verf')
        if m.get('type') != 'reply' or m.get('proc') not in (7, 21) or not verf:
            continue
        s = m['src']
        if s in last and last[s] != verf:
            changes[s] = changes.get(s, 0) + 1
        last[s] = verf
    rep = report(pcap)
    got = {}
    for f in rep['findings']:
        if f['kind'] == 'server_restart':
            got.setdefault(f['server'], []).append(f['count'])
    check(len(changes) >= 1 and all(n > 1 for n in changes.values()),
          'the generator changed verifiers: %s' % changes)
    check(got == {s: [n] for s, n in changes.items()},
          'one server_restart per server, its changes counted: %s, truth %s' % (got, changes))


def t_next_step():
    """The retransmits finding's next step fits its main cause: on the
    bundled lab capture every re-sent call lost a call, a reply or an IP
    fragment of one on the link (the lab's drop log, fragments among them),
    so the advice is the network's: TCP or a smaller rsize, not a slow
    server's or a timeout's."""
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'pcaps')
    truth = json.load(open(os.path.join(src, 'lab-demo.truth.json')))
    frag, whole = set(), set()
    for d in truth['drops']:
        if d.get('xid'):
            (frag if d['frag'] else whole).add(d['xid'])
    whole -= frag
    rep = report(os.path.join(src, 'lab-demo.pcap'))
    f = [x for x in rep['findings'] if x['kind'] == 'retransmits']
    check(len(f) == 1, 'one retransmits finding: %s' % kinds(rep))
    check(frag and len(frag | whole) >= f[0]['count'] if f else False,
          'the drop log: %d xids lost a fragment, %d whole, for %s re-sent ops'
          % (len(frag), len(whole), f[0]['count'] if f else None))
    if f:
        m = f[0]['meaning']
        check('lost on the network' in m and 'IP fragments' in m and 'proto=tcp' in m and
              'rsize' in m, 'next step for losses with fragments: %s' % m)
        check('never answered' not in m and "client's timeout" not in m,
              'no other cause\'s advice: %s' % m)


def main():
    t_sizes()
    t_time()
    t_vantage()
    t_hidden()
    t_stall()
    t_reset()
    t_missed()
    t_restarts()
    t_next_step()
    return tally.summary('gen_verdict')


if __name__ == '__main__':
    sys.exit(main())
