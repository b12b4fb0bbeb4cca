#!/usr/bin/env python3
"""nfs4_tshark.py CAPTURE: tshark's view of the NFSv4 in CAPTURE, as JSON.

The reference check_nfs4.py holds nfscope to (pcaps/nfs4/*.tshark.json are
its output, tshark 4.0.17): per opcode, how many operations NFSv4
COMPOUND calls and replies carry (nfs.opcode); the nfsstat4 values of the
replies (nfs.nfsstat4: each COMPOUND's status and each op's); COMPOUND
calls; and from `-z rpc,srt,100003,4` the COMPOUND calls answered and the
sum of their response times."""
import collections
import json
import re
import subprocess
import sys

cap = sys.argv[1]
fields = ['rpc.msgtyp', 'rpc.program', 'rpc.programversion',
          'rpc.procedure', 'nfs.opcode', 'nfs.nfsstat4']
args = ['tshark', '-r', cap, '-Y', 'rpc.program == 100003 && '
        'rpc.programversion == 4', '-T', 'fields']
for f in fields:
    args += ['-e', f]
out = subprocess.run(args, capture_output=True, text=True).stdout
calls, replies, status = (collections.Counter() for _ in range(3))
compounds = 0
for line in out.splitlines():
    v = [x.split(',') if x else [] for x in line.split('\t')]
    typ = v[0][0] if v[0] else ''
    ops = v[4]
    if typ == '0':
        compounds += sum(1 for k, p in enumerate(v[3]) if p == '1' and
                         v[1][k] == '100003' and v[0][k] == '0')
        calls.update(ops)
    elif typ == '1':
        replies.update(ops)
        status.update(v[5])
srt = subprocess.run(['tshark', '-r', cap, '-q', '-z', 'rpc,srt,100003,4'],
                     capture_output=True, text=True).stdout
m = re.search(r'^\s*1\s+COMPOUND\s+(\d+)\s+\S+\s+\S+\s+\S+\s+(\S+)', srt,
              re.M)
json.dump({'tshark': subprocess.run(['tshark', '-v'], capture_output=True,
                                    text=True).stdout.split('\n')[0][:40],
           'compound_calls': compounds,
           'srt_calls': int(m.group(1)) if m else 0,
           'srt_sum': float(m.group(2)) if m else 0.0,
           'call_ops': dict(sorted(calls.items(), key=lambda x: int(x[0]))),
           'reply_ops': dict(sorted(replies.items(), key=lambda x: int(x[0]))),
           'reply_status': dict(sorted(status.items(),
                                       key=lambda x: int(x[0])))},
          sys.stdout, indent=1)
print()
