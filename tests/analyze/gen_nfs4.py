#!/usr/bin/env python3
"""gen_nfs4.py NFS4GEN NFSCOPE [PCAP...] - issue 35: the NFSv4 findings and
the session's sizes, each tested both ways on captures of tests/gen/
nfs4gen.py (NFSv4.1 encoded there from the RFC's XDR, with a record of
the faults it put in):

- a fault's finding fires with the count the generator put in, for the
  client it put it in, with the clients' wait the generator made (to the
  millisecond the evidence gives); no other NFSv4 finding fires;
- the healthy capture has no finding at all, and its session's fore
  channel is reported per pair;
- a session whose fore channel leaves room for 16k under a GETATTR
  maxread/maxwrite of 1M caps the sizes: size_capped for READ and WRITE,
  the verdict's limit 16k, named as the session's (maxresp, maxreq) in its
  text and JSON (`session_max`); GETATTR's 16k under a larger session is
  the server's small maximum, no session named;
- names outside the main op (libnfs's PUTFH GETATTR ACCESS OPEN name
  GETFH) name the handle the GETFH returned (the generator's paths); a
  REMOVE's own name never names a later LOOKUP's handle;
- the store keeps the session (view sessions) and a report from the
  database says the same;
- no NFSv4 finding on the real captures given (healthy public ones).
"""
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import atexit

GEN, NFSCOPE = sys.argv[1], sys.argv[2]
REAL = sys.argv[3:]
TMP = tempfile.mkdtemp(prefix="nfscope-nfs4-")
atexit.register(shutil.rmtree, TMP, True)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
import tally  # noqa: E402
from tally import check  # noqa: E402

V4_KINDS = {'nfs4_delay', 'nfs4_grace', 'session_lost', 'seq_misordered',
            'stale_clientid', 'session_replay', 'deleg_recall',
            'lock_contention'}


def gen(name):
    pcap = os.path.join(TMP, name + '.pcap')
    truth = os.path.join(TMP, name + '.json')
    subprocess.run([sys.executable, GEN, pcap, truth, name], check=True)
    with open(truth) as f:
        return pcap, json.load(f)


def report(src, *args):
    out = subprocess.run([NFSCOPE, 'report', src, '--json'] + list(args)
                         if src.endswith('.db') else
                         [NFSCOPE, 'report', '-r', src, '--json'] + list(args),
                         capture_output=True, text=True)
    if not check(out.returncode == 0, 'report %s: %s' % (src, out.stderr[-300:])):
        return {'findings': [], 'pairs': [], 'verdict': {}}
    return json.loads(out.stdout)


def waited(f):
    """The clients' wait the evidence says, in ns (None: not said)."""
    m = re.search(r' ([0-9.]+) s in all', f['evidence'])
    return None if m is None else round(float(m.group(1)) * 1e9)


def t_faults(name, client='10.0.4.1', clients=None):
    pcap, truth = gen(name)
    rep = report(pcap)
    got = [f for f in rep['findings'] if f['kind'] in V4_KINDS]
    clients = clients or {}
    for kind, n in truth['kinds'].items():
        want_client = clients.get(kind, client)
        fs = [f for f in got if f['kind'] == kind and f['client'] == want_client]
        if not check(len(fs) == 1, '%s: one %s finding for %s, got %s' % (
                name, kind, want_client, [(f['kind'], f['client']) for f in got])):
            continue
        f = fs[0]
        check(f['count'] == n, '%s: %s count %d, put in %d' % (name, kind, f['count'], n))
        check(f['server'] == '10.0.4.2', '%s: %s server %s' % (name, kind, f['server']))
        w = truth['waits_ns'].get(kind, 0)
        if w:
            check(waited(f) is not None and abs(waited(f) - w) <= 1000000,
                  '%s: %s wait %s ns, made %d' % (name, kind, waited(f), w))
    extra = {f['kind'] for f in got} - set(truth['kinds'])
    check(not extra, '%s: no NFSv4 finding but those put in, got also %s' % (name, extra))
    # --write-pcap: the findings' evidence is the operations put in
    ev = os.path.join(TMP, name + '.ev.pcap')
    r = subprocess.run([NFSCOPE, 'report', '-r', pcap, '--select', 'findings',
                        '--write-pcap', ev], capture_output=True, text=True)
    m = re.search(r'messages of (\d+) operations', r.stderr)
    want = sum(truth['kinds'].values()) + truth.get('returns', 0)
    check(m is not None and int(m.group(1)) == want,
          '%s: --write-pcap wrote the %d operations of the findings: %s' % (
              name, want, r.stderr.strip()[-200:]))


def t_healthy():
    pcap, truth = gen('healthy')
    rep = report(pcap)
    check(rep['findings'] == [], 'healthy: no finding, got %s' % (
        [f['kind'] for f in rep['findings']]))
    check(rep['verdict'].get('healthy') is True, 'healthy: said healthy')
    ev = os.path.join(TMP, 'healthy.ev.pcap')
    r = subprocess.run([NFSCOPE, 'report', '-r', pcap, '--select', 'findings',
                        '--write-pcap', ev], capture_output=True, text=True)
    check('of 0 operations' in r.stderr, 'healthy: --write-pcap of the '
          'findings writes nothing: %s' % r.stderr.strip()[-200:])
    sess = [p.get('session') for p in rep['pairs']]
    check(sess == [{'maxreq': truth['session'][0], 'maxresp': truth['session'][1]}],
          'healthy: the pair\'s session %s, made %s' % (sess, truth['session']))
    db = os.path.join(TMP, 'healthy.db')
    r = subprocess.run([NFSCOPE, 'record', '-r', pcap, '-w', db],
                       capture_output=True, text=True)
    if check(r.returncode == 0, 'record: %s' % r.stderr[-300:]):
        con = sqlite3.connect(db)
        rows = con.execute('SELECT client, server, maxreq, maxresp FROM '
                           'sessions').fetchall()
        sized = con.execute(   # doc/store.md's query
            "SELECT s.client, s.server, s.maxreq, s.maxresp, "
            "max(CASE WHEN o.op = 'READ' THEN o.count END), "
            "max(CASE WHEN o.op = 'WRITE' THEN o.count END) "
            "FROM sessions s JOIN ops o ON o.client = s.client AND "
            "o.server = s.server AND o.vers = 4 "
            "GROUP BY s.client, s.server, s.maxreq, s.maxresp").fetchall()
        con.close()
        check(sized == [('10.0.4.1', '10.0.4.2') + tuple(truth['session']) +
                        (truth['io']['size'],) * 2],
              'store: the documented sessions query %s' % sized)
        check(rows == [('10.0.4.1', '10.0.4.2') + tuple(truth['session'])],
              'store: view sessions %s' % rows)
        check([p.get('session') for p in report(db)['pairs']] == sess,
              'report from the database: the session as from the capture')


def verdict_sizes(pcap):
    """The text verdict's READ and WRITE size lines (their key stripped)."""
    out = subprocess.run([NFSCOPE, 'report', '-r', pcap], capture_output=True,
                         text=True).stdout
    return [ln[8:].strip() for ln in out.splitlines()
            if ln[8:].lstrip().startswith(('READ ', 'WRITE '))]


def t_session_small():
    pcap, truth = gen('session_small')
    rep = report(pcap)
    caps = [f for f in rep['findings'] if f['kind'] == 'size_capped']
    check(len(caps) == 2, 'session_small: size_capped for READ and WRITE, '
          'got %d' % len(caps))
    for f in caps:
        check('of its session, room for 16384' in f['evidence'],
              'session_small: the session named: %s' % f['evidence'][:200])
    sizes = rep['verdict'].get('sizes', [])
    check(len(sizes) == 2 and all(s.get('server_max') == 16384 and s.get('state') == 'small_maximum' for s in sizes),
          'session_small: the verdict\'s limit 16k: %s' % sizes)
    sess = {'READ': truth['session'][1], 'WRITE': truth['session'][0]}
    check(all(s.get('session_max') == sess[s['op']] for s in sizes),
          'session_small: the verdict\'s sizes name the session\'s limit %s: %s' % (
              sess, [s.get('session_max') for s in sizes]))
    text = verdict_sizes(pcap)
    for op, what in (('READ ', 'maxresp'), ('WRITE', 'maxreq')):
        want = "session's small %s %d" % (what, sess[op.strip()])
        check(any(ln.startswith(op) and want in ln and "server's" not in ln
                  for ln in text), 'session_small: the verdict says %r: %s' % (want, text))
    # the other way: the server's own 16k under a larger session
    spcap, struth = gen('server_small')
    sizes = report(spcap)['verdict'].get('sizes', [])
    check(len(sizes) == 2 and all(s.get('server_max') == 16384 and 'session_max' not in s
                                  and s.get('state') == 'small_maximum' for s in sizes),
          'server_small: the server\'s 16k, no session limit: %s' % sizes)
    text = verdict_sizes(spcap)
    check(len([ln for ln in text if "the server's small maximum" in ln]) == 2 and
          not [ln for ln in text if 'session' in ln],
          'server_small: the verdict says the server\'s small maximum: %s' % text)
    # the same sizes under the server's own 1M and a large session: none
    check(not [f for f in report(gen('healthy')[0])['findings']
               if f['kind'] == 'size_capped'], 'healthy: no size_capped')


def t_paths():
    """Names outside the main op: the path of each handle the generator
    opened libnfs's way, and none from a REMOVE's own name."""
    pcap, truth = gen('paths')
    db = os.path.join(TMP, 'paths.db')
    r = subprocess.run([NFSCOPE, 'record', '-r', pcap, '-w', db, '--ops', 'all'],
                       capture_output=True, text=True)
    if not check(r.returncode == 0, 'paths: record: %s' % r.stderr[-300:]):
        return
    con = sqlite3.connect(db)
    rows = con.execute("SELECT hex(fh), op, path FROM ops WHERE op IN ('READ', 'WRITE')"
                       ).fetchall()
    named = con.execute("SELECT op, name FROM ops WHERE name != ''").fetchall()
    con.close()
    got = {}
    for fh, op, path in rows:
        got.setdefault(fh.lower().rstrip('0') or fh, set()).add(path)
    for fh, path in truth['paths'].items():
        have = got.get(fh.rstrip('0'), set())
        check(have == {path}, 'paths: READ/WRITE of %s under %r, made %r' % (
            bytes.fromhex(fh).rstrip(b'\0'), have, path))
    for fh, path in truth['not_paths'].items():
        have = got.get(fh.rstrip('0'), set())
        check(path not in have, 'paths: no %r from a REMOVE\'s own name: %r' % (path, have))
    check(('ACCESS', 'file1') in named and ('REMOVE', 'old') in named,
          'paths: the OPEN\'s name on its ACCESS row, the REMOVE\'s on its own: %s' % named)


def t_real():
    for p in REAL:
        if not os.path.exists(p):
            continue
        got = [f['kind'] for f in report(p)['findings'] if f['kind'] in V4_KINDS]
        check(not got, '%s: no NFSv4 finding on a healthy capture, got %s' % (
            os.path.basename(p), got))


def main():
    t_healthy()
    t_session_small()
    t_paths()
    t_faults('errors')
    t_faults('recall', clients={'nfs4_delay': '10.0.4.3'})
    t_faults('locks', client='10.0.4.3')
    t_faults('replay')
    t_real()
    return tally.summary('gen_nfs4')


if __name__ == '__main__':
    sys.exit(main())
