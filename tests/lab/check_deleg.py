#!/usr/bin/env python3
"""check_deleg.py NFSCOPE PCAP TRUTH WORKDIR: the bundled real delegation
recall (pcaps/v41-deleg-recall.pcap, made by lab_v4_deleg.py) against its
ground truth (pcaps/v41-deleg-recall.truth.json: the clients' own records,
ganesha's counts and log, tshark's recall delays).  No privilege needed.

Held: deleg_recall fires for the holder with one recall per CB_RECALL it
got, names the first file recalled, and measures the wait to each
DELEGRETURN as tshark does (within the evidence's millisecond); nfs4_delay
fires for the writer with its NFS4ERR_DELAYs, the first on one file (its
OPENs were PUTFH dir OPEN name, one per file); no other NFSv4 finding.
The same capture cut to 256 bytes a frame here (each CB_RECALL's file
handle is then cut): the same counts, and the recalls said unmatched for
want of their handle, never "not returned"."""
import json
import os
import re
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from tally import check, summary  # noqa: E402

V4_KINDS = {'nfs4_delay', 'nfs4_grace', 'session_lost', 'seq_misordered',
            'stale_clientid', 'session_replay', 'deleg_recall', 'lock_contention'}


def cut(src, dst, snaplen):
    """src (classic pcap) with every frame cut to snaplen bytes, as
    tcpdump -s would have captured it."""
    data = open(src, 'rb').read()
    magic = data[:4]
    end = '<' if magic in (b'\xd4\xc3\xb2\xa1', b'\x4d\x3c\xb2\xa1') else '>'
    out = bytearray(data[:16]) + struct.pack(end + 'I', snaplen) + data[20:24]
    i = 24
    while i + 16 <= len(data):
        sec, frac, incl, orig = struct.unpack_from(end + 'IIII', data, i)
        keep = min(incl, snaplen)
        out += struct.pack(end + 'IIII', sec, frac, keep, orig)
        out += data[i + 16:i + 16 + keep]
        i += 16 + incl
    open(dst, 'wb').write(bytes(out))


def findings(nfscope, pcap):
    r = subprocess.run([nfscope, 'report', '--json', '-r', pcap], capture_output=True,
                       text=True)
    if not check(r.returncode == 0, 'report %s: %s' % (pcap, r.stderr[-300:])):
        return {}
    return {f['kind']: f for f in json.loads(r.stdout)['findings'] if f['kind'] in V4_KINDS}


def waits(f):
    """(sum, count, longest) of the waits the evidence says, or None."""
    m = re.search(r' ([0-9.]+) s in all \(waits (\d+), longest ([0-9.]+) s\)',
                  f['evidence'])
    return None if m is None else (float(m.group(1)), int(m.group(2)), float(m.group(3)))


def main():
    nfscope, pcap, truth_path, work = sys.argv[1:5]
    truth = json.load(open(truth_path))
    hold, ts = truth['holder'], truth['tshark']
    # the truth agrees with itself: the clients, ganesha, tshark
    check(hold['cb_recalls'] == truth['ganesha']['cb_calls_sent'] == ts['cb_recall_calls'],
          'truth: recalls %s' % truth)
    got = findings(nfscope, pcap)
    dr, nd = got.get('deleg_recall'), got.get('nfs4_delay')
    check(sorted(got) == ['deleg_recall', 'nfs4_delay'], 'the NFSv4 findings: %s' % sorted(got))
    if dr:
        check(dr['count'] == hold['cb_recalls'], 'deleg_recall count %d, CB_RECALLs %d' % (
            dr['count'], hold['cb_recalls']))
        check((dr['client'], dr['server']) == (truth['client'], truth['server']),
              'deleg_recall: %s -> %s' % (dr['client'], dr['server']))
        check(dr['path'] == hold['first_recalled'], 'deleg_recall names %r, the first '
              'recalled %r' % (dr['path'], hold['first_recalled']))
        w, tw = waits(dr), ts['recall_waits_s']
        check(w is not None and w[1] == len(tw) == hold['delegreturns'] and
              abs(w[0] - sum(tw)) < 0.0015 and abs(w[2] - max(tw)) < 0.0015,
              'the waits to DELEGRETURN %s, tshark\'s %.4f s in all, longest %.4f (%d)' % (
                  w, sum(tw), max(tw), len(tw)))
    if nd:
        check(nd['count'] == truth['writer']['nfs4err_delay'],
              'nfs4_delay count %d, the writer\'s NFS4ERR_DELAYs %d' % (
                  nd['count'], truth['writer']['nfs4err_delay']))
        check('; 1 of them on %s;' % hold['first_recalled'] in nd['evidence'],
              'nfs4_delay: one DELAY on each file, the first named: %s' % nd['evidence'])
        w = waits(nd)
        check(w is not None and w[1] == truth['writer']['files_delayed'],
              'nfs4_delay: one wait per file the writer waited on (%d): %s' % (
                  truth['writer']['files_delayed'], nd['evidence']))
    os.makedirs(work, exist_ok=True)
    short = os.path.join(work, 'v41-deleg-recall-256.pcap')
    cut(pcap, short, 256)
    got = findings(nfscope, short)
    check({k: f['count'] for k, f in got.items()} ==
          {'deleg_recall': hold['cb_recalls'], 'nfs4_delay': truth['writer']['nfs4err_delay']},
          '-s 256: the same findings and counts: %s' % {k: f['count'] for k, f in got.items()})
    nd = got.get('nfs4_delay', {'evidence': ''})
    w = waits(nd)
    check(w is None or w[1] == truth['writer']['files_delayed'],
          '-s 256: the OPENs\' names cut, no wait said of the wrong file: %s' % nd['evidence'])
    dr = got.get('deleg_recall', {'evidence': ''})
    check('%d whose file handle the capture cut' % hold['cb_recalls'] in dr['evidence'] and
          'not returned' not in dr['evidence'],
          '-s 256: the recalls unmatched for want of their handle: %s' % dr['evidence'])
    return summary('lab-deleg-capture')


if __name__ == '__main__':
    sys.exit(main())
