#!/usr/bin/env python3
"""check_nfs4.py NFSCOPE PCAPS_NFS4 PCAPS_GOLDEN SHARED_PCAPS: NFSv4
against tshark.

For each NFSv4 capture with a tshark reference in pcaps/nfs4
(NAME.tshark.json, made by nfs4_tshark.py with tshark 4.0.17) - the small
public captures bundled in pcaps/golden, the two large ones read from
../shared/pcaps/public when it is there:
  - `dump --json`: per opcode, the operations inside the COMPOUND calls
    and inside their replies, and the nfsstat4 values of the replies (each
    COMPOUND's status and each op's), equal to tshark's nfs.opcode and
    nfs.nfsstat4; no COMPOUND malformed, none stopped;
  - `report --json`: the NFSv4 procedure rows (one per main operation)
    add up to tshark's COMPOUND calls, their answered calls to its SRT
    calls and their latency sums to its SRT sum (within 1 us a call:
    tshark prints microseconds);
  - the text report no longer says NFSv4 is not analysed.
tshark loses TCP records after the gaps of the mixed nfsv3-4-41-cifs
capture: there nfscope may see more, never less.  Exits 77 when no capture
could be read."""
import bz2
import collections
import json
import os
import subprocess
import sys
import tempfile

nfscope, here, golden, shared = sys.argv[1:5]
pub = os.path.join(shared, 'public')
fails = checks = ran = 0


def check(name, what, ok, got, want):
    global fails, checks
    checks += 1
    if not ok:
        fails += 1
    print('%s %s: %s: nfscope %s, tshark %s' %
          ('ok  ' if ok else 'FAIL', name, what, got, want))


def from_dump(path):
    out = subprocess.run([nfscope, 'dump', '--json', '-r', path],
                         capture_output=True, text=True, check=True).stdout
    calls, replies, status = (collections.Counter() for _ in range(3))
    bad = compounds = 0
    for line in out.splitlines():
        m = json.loads(line)
        v4 = m.get('nfs4')
        if m.get('prog') != 100003 or m.get('vers') != 4 or v4 is None:
            continue
        if m.get('decode') == 'malformed' or 'stopped_at_opcode' in v4:
            bad += 1
        ops = [str(o['opcode']) for o in v4['ops']]
        if m['type'] == 'call':
            compounds += 1
            calls.update(ops)
        else:
            replies.update(ops)
            if 'status' in v4:
                status[str(v4['status'])] += 1
            status.update(str(o['status']) for o in v4['ops']
                          if 'status' in o)
    return calls, replies, status, compounds, bad


def from_report(path):
    js = json.loads(subprocess.run([nfscope, 'report', '--json', '-r', path],
                                   capture_output=True, text=True,
                                   check=True).stdout)
    calls = answered = lat = rpcerr = 0
    for r in js['procedures']:
        if r['prog'] == 100003 and r['vers'] == 4 and r['proc'] != 0:
            calls += r['calls']
            answered += r['answered']
            rpcerr += r['rpc_errors']
            lat += r['latency_ms']['sum_ns'] if r['latency_ms'] else 0
    return calls, answered, lat, rpcerr


def one(name, path, ref):
    global ran
    ran += 1
    lossy = 'cifs' in name
    calls, replies, status, compounds, bad = from_dump(path)
    cmp = (lambda g, w: all(g[k] >= n for k, n in w.items())) if lossy \
        else (lambda g, w: g == collections.Counter(w))
    check(name, 'ops in calls', cmp(calls, ref['call_ops']),
          dict(calls), ref['call_ops'])
    check(name, 'ops in replies', cmp(replies, ref['reply_ops']),
          dict(replies), ref['reply_ops'])
    # errors exactly; tshark counts more NFS4_OK than there are ops: the
    # rdattr_error attribute (an nfsstat4) of READDIR entries and GETATTRs
    # that asked for it, inside attr_vals, which nfscope steps over
    errs = {k: n for k, n in ref['reply_status'].items() if k != '0'}
    check(name, 'reply errors', cmp(status - collections.Counter(
        {'0': status['0']}), errs), dict(status), ref['reply_status'])
    check(name, 'reply NFS4_OK at most tshark\'s', lossy or
          status['0'] <= ref['reply_status'].get('0', 0), status['0'],
          ref['reply_status'].get('0', 0))
    check(name, 'COMPOUND calls (dump)', compounds >= ref['compound_calls']
          if lossy else compounds == ref['compound_calls'], compounds,
          ref['compound_calls'])
    check(name, 'malformed or stopped', bad == 0, bad, 0)
    # tshark's SRT leaves out replies the RPC layer denied (the
    # incorrect_mount capture's AUTH_ERROR): so do these two
    rcalls, ans, lat, rpcerr = from_report(path)
    ans -= rpcerr
    check(name, 'COMPOUND calls (report rows)', rcalls == compounds,
          rcalls, compounds)
    if lossy:
        check(name, 'answered', ans >= ref['srt_calls'], ans,
              ref['srt_calls'])
    else:
        check(name, 'answered', ans == ref['srt_calls'], ans,
              ref['srt_calls'])
    if not lossy and not rpcerr:
        check(name, 'latency sum', abs(lat / 1e9 - ref['srt_sum']) <=
              1e-6 * max(ans, 1), lat / 1e9, ref['srt_sum'])
    text = subprocess.run([nfscope, 'report', '--wide', '-r', path],
                          capture_output=True, text=True).stdout
    check(name, 'no "NOT ANALYSED" NFSv4', 'NOT ANALYSED' not in text or
          'NFSv4' not in text.split('NOT ANALYSED')[1][:80], '', '')


for ref in sorted(os.listdir(here)):
    if not ref.endswith('.tshark.json'):
        continue
    name = ref[:-len('.tshark.json')]
    want = json.load(open(os.path.join(here, ref)))
    path = os.path.join(golden, name)
    if os.path.exists(path):
        one(name, path, want)
        continue
    packed = os.path.join(pub, name + '.bz2')
    if not os.path.exists(packed):
        print('skip %s: %s not there' % (name, packed))
        continue
    with tempfile.NamedTemporaryFile(suffix='.pcap') as tmp:
        tmp.write(bz2.open(packed).read())
        tmp.flush()
        one(name, tmp.name, want)
if ran == 0:
    print('skip: no NFSv4 capture found (pcaps/golden, %s)' % pub)
    sys.exit(77)
print('%d checks, %d failed' % (checks, fails))
sys.exit(1 if fails else 0)
