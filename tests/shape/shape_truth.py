#!/usr/bin/env python3
"""Replies whose call is hidden, decoded by their shape, against nfsgen's
ground truth.

usage: shape_truth.py NFSCOPE NFSGEN WORKDIR [nfsgen options...]

nfsgen writes a capture where the calls are hidden (a TCP snaplen that
cuts call headers past the captured bytes of pipelined segments, or
--orphan-replies) and its truth NDJSON (every message as sent, with its
procedure and result fields).  `nfscope dump --json` of the capture gives
the replies marked call_not_seen; each is found in the truth by (server,
port, client, port, xid) and must have the generator's program, version and
procedure (zero attributed to a wrong one) and its reply fields (status,
WRITE count/committed/verf, READ count/eof, COMMIT verf).  The summary's
shape_fit must equal the replies marked.  Prints the counts.
"""
import json
import subprocess
import sys

FIELDS = ('status', 'count', 'committed', 'verf', 'eof')


def main():
    nfscope, nfsgen, work = sys.argv[1], sys.argv[2], sys.argv[3]
    pcap, truth = work + '.pcap', work + '.json'
    args = sys.argv[4:]
    subprocess.run([nfsgen, '-o', pcap, '-t', truth] + args,
                   check=True, stdout=subprocess.DEVNULL)
    if '--snaplen' in args:
        # the truth of a cut capture leaves out what the snaplen cut (res):
        # the same seed without the snaplen sends the same bytes, whole
        i = args.index('--snaplen')
        truth = work + '-full.json'
        subprocess.run([nfsgen, '-o', work + '-full.pcap', '-t', truth] +
                       args[:i] + args[i + 2:], check=True,
                       stdout=subprocess.DEVNULL)
    sent = {}
    for line in open(truth):
        m = json.loads(line)
        if m.get('type') == 'reply':
            key = (m['src'], m['sport'], m['dst'], m['dport'], m['xid'])
            sent.setdefault(key, []).append(m)
    p = subprocess.run([nfscope, 'dump', '--json', '-r', pcap],
                       stdout=subprocess.PIPE, check=True)
    errs, n, fields, summary = [], 0, 0, None
    procs = {}
    for line in p.stdout.decode().splitlines():
        m = json.loads(line)
        if 'summary' in m:
            summary = m['summary']
            continue
        if not m.get('call_not_seen'):
            continue
        n += 1
        key = (m['src'], m['sport'], m['dst'], m['dport'], m['xid'])
        cand = sent.get(key, [])
        t = [c for c in cand if c.get('frame') == m['frame']] or cand
        if not t:
            errs.append('not sent: %r' % (key,))
            continue
        t = t[0]
        if t.get('orphan'):
            # --orphan-replies: the generator leaves the procedure out of
            # the truth; only counted
            continue
        got = (m['prog'], m['vers'], m['proc'])
        want = (t.get('prog'), t.get('vers'), t.get('proc'))
        name = '%s/%s' % (m.get('proc_name'), m['vers'])
        procs[name] = procs.get(name, 0) + 1
        if got != want:
            errs.append('frame %d xid %#x: by shape %r, sent %r' %
                        (m['frame'], m['xid'], got, want))
            continue
        res, tres = m.get('res', {}), t.get('res', {})
        for f in FIELDS:
            if f in res:
                fields += 1
                # a v2 READ result's count is its data length
                want_f = tres.get(f, tres.get('data_len') if f == 'count'
                                  else None)
                if res[f] != want_f:
                    errs.append('frame %d xid %#x %s: %s %r, sent %r' %
                                (m['frame'], m['xid'], name, f, res[f],
                                 want_f))
    if summary is None:
        errs.append('no summary')
    elif summary.get('shape_fit') != n:
        errs.append('summary shape_fit %r, %d replies marked' %
                    (summary.get('shape_fit'), n))
    print('%d replies by shape (%s), %d fields compared; orphan replies %s:'
          ' ambiguous %s, no fit %s' %
          (n, ', '.join('%s %d' % kv for kv in sorted(procs.items())),
           fields, summary and summary.get('orphan_replies'),
           summary and summary.get('shape_ambiguous'),
           summary and summary.get('shape_nofit')))
    for e in errs[:20]:
        print('FAIL', e)
    if n == 0:
        errs.append('nothing recovered')
        print('FAIL nothing recovered')
    sys.exit(1 if errs else 0)


main()
