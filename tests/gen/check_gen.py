#!/usr/bin/env python3
"""Cross-check nfsgen's ground truth against tshark's RPC dissection.

usage: check_gen.py TRUTH.json TSHARK_FIELDS.tsv [--no-frames]

The TSV holds `frame.number rpc.xid rpc.msgtyp rpc.program rpc.procedure`
(comma-separated when a frame carries several RPC messages).  Every
message in the truth that is not lost, truncated, orphan or after a gap must
appear in the same frame with the same xid, type, program and procedure,
and tshark must find nothing else.
"""
import collections
import json
import sys


def main():
    truth_path, tsv_path = sys.argv[1], sys.argv[2]
    use_frames = '--no-frames' not in sys.argv
    want = collections.Counter()
    skip_xids = set()
    summary = None
    nlines = 0
    with open(truth_path) as f:
        for line in f:
            o = json.loads(line)
            if 'summary' in o:
                summary = o['summary']
                continue
            nlines += 1
            for k in ('frame', 'src', 'sport', 'dst', 'dport', 'proto', 'xid', 'type', 'len'):
                if k not in o:
                    sys.exit('truth line %d lacks %s' % (nlines, k))
            if (o.get('lost') or o.get('truncated') or o.get('orphan') or
                    o.get('after_gap') or o.get('call_lost')):
                # tshark cannot match these: leave the whole xid out
                skip_xids.add(o['xid'])
                continue
            t = 0 if o['type'] == 'call' else 1
            want[(o['frame'] if use_frames else 0, o['xid'], t, o.get('prog'), o.get('proc'))] += 1
    if summary is None or summary['messages'] != nlines:
        sys.exit('summary missing or wrong: %r vs %d lines' % (summary, nlines))
    got = collections.Counter()
    with open(tsv_path) as f:
        for line in f:
            cols = line.rstrip('\n').split('\t')
            if len(cols) < 5 or not cols[1]:
                continue
            fr = int(cols[0])
            xids = cols[1].split(',')
            typ = cols[2].split(',')
            prog = cols[3].split(',') if cols[3] else []
            proc = cols[4].split(',') if cols[4] else []
            if len(prog) != len(xids) or len(proc) != len(xids):
                # tshark leaves program/procedure out when it cannot tell
                prog = prog + [None] * (len(xids) - len(prog))
                proc = proc + [None] * (len(xids) - len(proc))
            for i, x in enumerate(xids):
                xi = int(x, 16)
                if xi in skip_xids:
                    continue
                got[(fr if use_frames else 0, xi, int(typ[i]),
                     int(prog[i]) if prog[i] else None,
                     int(proc[i]) if proc[i] else None)] += 1
    want = collections.Counter({k: v for k, v in want.items() if k[1] not in skip_xids})
    missing = want - got
    extra = got - want
    if missing or extra:
        for k in sorted(missing)[:10]:
            print('missing in tshark:', k)
        for k in sorted(extra)[:10]:
            print('extra in tshark:  ', k)
        print('FAIL: %d missing, %d extra, %d expected' %
              (sum(missing.values()), sum(extra.values()), sum(want.values())))
        return 1
    print('ok: %d messages agree (%d lines, %d skipped xids)' %
          (sum(want.values()), nlines, len(skip_xids)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
