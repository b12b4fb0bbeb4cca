#!/usr/bin/env python3
"""lab.py - run one lab scenario: real NFS traffic (nfs-ganesha server,
labclient and the libnfs utilities) between two network namespaces, seen
live by `nfscope record -i` and by `tcpdump -w`, then checked against the
lab's own ground truth (tests/lab/README.md says what each check proves).

usage: lab.py --nfscope BIN --tapfwd BIN --labclient BIN --work DIR SCENARIO
       lab.py ... --demo OUTDIR       (make_demo.sh: the bundled capture)
       lab.py --list

Exit 0 pass, 1 fail, 77 skipped (no privilege for namespaces).  The work
directory (pcap, db, reports, logs, drop log, records) is kept on failure
or with LAB_KEEP=1, removed on success.
"""
import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import labnet  # noqa: E402
import truth   # noqa: E402

M = 1048576

# Each scenario: the lab (link, impairment, export caps), the traffic, and
# which checks apply.  Kept to seconds each: the suite runs twice in CI.
SCENARIOS = {
    'mixed': dict(
        doc='mixed workload: labclient (TCP and UDP) and nfs-ls/nfs-cp/nfs-cat',
        link='tap', caps=(M, M), libnfs=True,
        runs=[dict(proto='tcp', phases=['mixed:3']),
              dict(proto='udp', phases=['mixed:1'], rsize=8192, wsize=8192)]),
    'cap8k': dict(
        doc='server capped at 8k, the client asks 1M',
        link='tap', caps=(8192, 8192),
        runs=[dict(proto='tcp', phases=['rw:1048576'], rsize=M, wsize=M)]),
    'cap32k': dict(
        doc='server capped at 32k, the client asks 1M',
        link='tap', caps=(32768, 32768), prefs=(16384, 16384),
        runs=[dict(proto='tcp', phases=['rw:2097152'], rsize=M, wsize=M)]),
    'cap1m': dict(
        doc='server allows 1M, the client asks 1M; PrefRead 64k',
        link='tap', caps=(M, M), prefs=(65536, 65536),
        runs=[dict(proto='tcp', phases=['rw:4194304'], rsize=M, wsize=M)]),
    'delay': dict(
        doc='server 20 ms +- 5 ms away (server->client frames delayed)',
        link='tap', impair={'ba': 'delay=20,jitter=5'}, delay=(20.0, 5.0),
        caps=(M, M),
        runs=[dict(proto='tcp', phases=['mixed:1', 'getattr:0.5'], rsize=4096,
                   wsize=4096)]),
    'udpfrag': dict(
        doc='UDP, 32k transfers (23 fragments each), 1% of fragments lost',
        link='tap', impair={'ab': 'fragloss=0.01', 'ba': 'fragloss=0.01'},
        caps=(32768, 32768), seed=7,
        runs=[dict(proto='udp', phases=['rw:524288'], timeo=150)]),
    'tcploss': dict(
        doc='TCP, 2% of frames lost each way',
        link='tap', impair={'ab': 'loss=0.02', 'ba': 'loss=0.02'},
        caps=(65536, 65536), seed=3,
        runs=[dict(proto='tcp', phases=['mixed:2', 'rw:1048576'])]),
    'getattr-storm': dict(
        doc='GETATTR storm: a tight GETATTR loop for 4 s',
        link='tap', caps=(M, M), storms={'getattr_storm'},
        runs=[dict(proto='tcp', phases=['getattr:4'])]),
    'commit-storm': dict(
        doc='COMMIT storm: rewrite loop, a COMMIT after every 4k WRITE',
        link='tap', caps=(M, M), storms={'commit_storm'},
        runs=[dict(proto='tcp', phases=['rewrite:300'], wsize=4096)]),
}

# The bundled demo (make_demo.sh): UDP with loss both ways, a mixed
# workload and a COMMIT storm, snaplen 256.
DEMO = dict(
    doc='demo: UDP mixed workload and a COMMIT storm over a lossy link',
    link='tap', impair={'ab': 'loss=0.02', 'ba': 'loss=0.02'}, caps=(32768, 32768),
    seed=11, snaplen=256, storms={'commit_storm'},
    runs=[dict(proto='udp', phases=['mixed:160', 'rewrite:400'], wsize=4096, rsize=8192,
               timeo=150)])


def nfscope_json(nfscope, *args):
    r = subprocess.run([nfscope, 'report'] + list(args) + ['--json'],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError('nfscope report %s: %s' % (' '.join(args), r.stderr))
    return json.loads(r.stdout)


def op_latencies(db):
    """(procedure, latency from the first transmission) of each answered op
    in nfscope's ops table."""
    con = sqlite3.connect('file:%s?mode=ro' % db, uri=True)
    run = con.execute('SELECT max(id) FROM runs').fetchone()[0]
    rows = con.execute('SELECT prog, op, lat_first_ns FROM ops WHERE run = ? AND '
                       'lat_first_ns IS NOT NULL', (run,)).fetchall()
    con.close()
    names = {100003: 'NFSv3', 100005: 'MOUNTv3'}
    return [('%s %s' % (names.get(p, p), op), lat) for p, op, lat in rows]


def retrans_xids(db):
    """nfscope's retransmitted operations, from its own ops table."""
    con = sqlite3.connect('file:%s?mode=ro' % db, uri=True)
    run = con.execute('SELECT max(id) FROM runs').fetchone()[0]
    rows = con.execute('SELECT xid, retrans FROM ops WHERE run = ? AND retrans > 0',
                       (run,)).fetchall()
    con.close()
    return {int(x): n for x, n in rows}


def merge_clients(records):
    """One client record from several labclient runs (same address)."""
    out = {'procedures': {}, 'resent_xids': {}, 'read_sizes': {}, 'write_sizes': {}}
    for r in records:
        for name, t in r['procedures'].items():
            acc = out['procedures'].setdefault(name, dict.fromkeys(t, 0))
            for k, v in t.items():
                acc[k] += v
        out['resent_xids'].update(r['resent_xids'])
        for key in ('read_sizes', 'write_sizes'):
            for s, n in r[key].items():
                out[key][s] = out[key].get(s, 0) + n
    return out


def run_traffic(lab, sc, work):
    records = []
    for i, run in enumerate(sc['runs']):
        records.append(lab.labclient(os.path.join(work, 'client%d.json' % i),
                                     run['phases'], proto=run['proto'],
                                     timeo=run.get('timeo', 300),
                                     rsize=run.get('rsize', 32768),
                                     wsize=run.get('wsize', 32768), seed=i + 1))
    if sc.get('libnfs'):
        src = os.path.join(work, 'src.bin')
        with open(src, 'wb') as f:
            f.write(os.urandom(3 * M))
        lab.libnfs('nfs-ls', lab.nfs_url())
        lab.libnfs('nfs-cp', src, lab.nfs_url('libnfs.bin'))
        lab.libnfs('nfs-cp', lab.nfs_url('libnfs.bin'), os.path.join(work, 'back.bin'))
        lab.libnfs('nfs-cat', lab.nfs_url('libnfs.bin'))
        if open(src, 'rb').read() != open(os.path.join(work, 'back.bin'), 'rb').read():
            raise RuntimeError('nfs-cp did not copy the file back intact')
    return merge_clients(records)


def run_scenario(name, sc, tools, work):
    """Run one scenario; returns (facts for the checks, timings)."""
    caps, prefs = sc['caps'], sc.get('prefs', sc['caps'])
    db, pcap = os.path.join(work, 'live.db'), os.path.join(work, 'capture.pcap')
    t0 = time.time()
    with labnet.Lab(os.path.join(work, 'lab'), tools, link=sc['link'],
                    impair=sc.get('impair'), seed=sc.get('seed', 1), caps=caps,
                    prefs=prefs, snaplen=sc.get('snaplen', 512)) as lab:
        lab.start_captures(db, pcap)
        t1 = time.time()
        client = run_traffic(lab, sc, work)
        traffic_s = time.time() - t1
        lab.stop_captures()
        ganesha = lab.ganesha_stats()
        drops = lab.stop_link()
    facts = dict(client=client, ganesha=ganesha, drops=drops['drops'],
                 link_summary=drops['summary'], caps=caps, prefs=prefs,
                 db=db, pcap=pcap)
    for k, v in facts.items():
        if k not in ('db', 'pcap'):
            with open(os.path.join(work, k + '.json'), 'w') as f:
                json.dump(v, f, indent=1)
    return facts, {'traffic_s': round(traffic_s, 2), 'total_s': round(time.time() - t0, 2)}


def check(name, sc, facts, live, offline, nfscope_xids):
    c = truth.Checker(name)
    client, ganesha, drops = facts['client'], facts['ganesha'], facts['drops']
    if live is not None:
        truth.check_live_offline(c, live, offline)
    r = offline
    truth.check_client_counts(c, r, client, exact=not sc.get('libnfs'))
    if sc.get('libnfs'):
        truth.check_ganesha(c, ganesha, report=r)
    else:
        truth.check_ganesha(c, ganesha, client=client, drops=drops)
        truth.check_sizes(c, r, client, facts['caps'], facts['prefs'])
    if 'delay' in sc:
        late = facts['link_summary'].get('ba', {}).get('max_late_us', 0)
        truth.check_latency(c, r, op_latencies(facts['db']), ganesha, *sc['delay'],
                            late_us=late)
    if nfscope_xids is not None:
        truth.check_retrans_xids(c, nfscope_xids, client, drops)
    if any('fragloss' in v for v in sc.get('impair', {}).values()):
        truth.check_frag_trains(c, r, drops)
    if sc.get('impair', {}).get('ab', '').startswith('loss') and \
            all(run['proto'] == 'tcp' for run in sc['runs']):
        truth.check_tcp_loss(c, r, facts['pcap'], drops)
    truth.check_storms(c, r, sc.get('storms', set()))
    return c


def print_table(c, timings):
    print('scenario %s  (%s)' % (c.name, ', '.join('%s %s' % kv for kv in timings.items())))
    for what, got, want in c.table:
        mark = '  ' if got == want or 'latency' in what or 'within' in what else '!!'
        print('  %s %-44s nfscope %-24s truth %s' % (mark, what, got, want))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--nfscope')
    ap.add_argument('--tapfwd')
    ap.add_argument('--labclient')
    ap.add_argument('--work', default='/tmp/nfscope-lab')
    ap.add_argument('--demo', metavar='OUTDIR')
    ap.add_argument('--list', action='store_true')
    ap.add_argument('scenario', nargs='?')
    a = ap.parse_args()
    if a.list:
        for n, sc in SCENARIOS.items():
            print('%-14s %s' % (n, sc['doc']))
        return 0
    name, sc = ('demo', DEMO) if a.demo else (a.scenario, SCENARIOS.get(a.scenario))
    if sc is None:
        ap.error('unknown scenario %r (--list)' % a.scenario)
    try:
        labnet.need_privilege()
    except labnet.Skip as e:
        print('SKIP: %s' % e)
        return 77
    tools = {'nfscope': a.nfscope, 'tapfwd': a.tapfwd, 'labclient': a.labclient}
    work = os.path.join(os.path.abspath(a.work), name)
    if os.path.isdir(work):
        shutil.rmtree(work)
    os.makedirs(work)
    facts, timings = run_scenario(name, sc, tools, work)
    live = nfscope_json(a.nfscope, facts['db'])
    offline = nfscope_json(a.nfscope, '-r', facts['pcap'])
    for n, rep in (('report-live.json', live), ('report-pcap.json', offline)):
        with open(os.path.join(work, n), 'w') as f:
            json.dump(rep, f, indent=1)
    c = check(name, sc, facts, live, offline, retrans_xids(facts['db']))
    print_table(c, timings)
    if a.demo:
        return write_demo(a.demo, sc, facts, c)
    if c.failures:
        print('FAIL (%d), kept %s:' % (len(c.failures), work))
        for f in c.failures:
            print('  ' + f)
        return 1
    if not os.environ.get('LAB_KEEP'):
        shutil.rmtree(work)
    return 0


def write_demo(outdir, sc, facts, c):
    """The bundled capture and its ground truth (no nfscope figures in it)."""
    if c.failures:
        print('the demo run failed its own checks; not written:')
        for f in c.failures:
            print('  ' + f)
        return 1
    shutil.copy(facts['pcap'], os.path.join(outdir, 'lab-demo.pcap'))
    t = {'doc': sc['doc'], 'scenario': {k: sc[k] for k in sc if k != 'storms'},
         'storms': sorted(sc['storms']), 'server': labnet.SERVER_IP,
         'client_ip': labnet.CLIENT_IP, 'caps': facts['caps'], 'prefs': facts['prefs'],
         'client': facts['client'], 'ganesha': facts['ganesha'],
         'drops': facts['drops'], 'link_summary': facts['link_summary']}
    with open(os.path.join(outdir, 'lab-demo.truth.json'), 'w') as f:
        json.dump(t, f, indent=1, sort_keys=True)
    print('wrote %s/lab-demo.pcap and lab-demo.truth.json' % outdir)
    return 0


if __name__ == '__main__':
    try:
        sys.exit(main())
    except RuntimeError as e:
        print('ERROR: %s' % e)
        sys.exit(1)
