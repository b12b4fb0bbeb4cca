#!/usr/bin/env python3
"""check_nfs4.py NFSCOPE SHARED_PCAPS LOCAL_GOLDEN: NFSv4 is said, not analysed.

Each public capture that tshark (reference/tshark/*.rpc.tsv) saw carry
NFSv4 calls: `report --json` must name the NFSv4 COMPOUND calls, their
clients and servers in incomplete.nfs4_not_analysed, and the text report
must say so before its first section.  Ground truth: tshark's rows (calls
of program 100003 version 4, procedure 1, their source and destination
addresses).  The captures bundled in pcaps/golden (with their tshark
references beside them) come first, then the rest of ../shared/pcaps;
captures whose bz2 file is missing are skipped, and with no capture at all
the test is skipped (exit 77)."""
import bz2
import csv
import json
import os
import subprocess
import sys
import tempfile

nfscope, shared, local = sys.argv[1:4]
# (reference dir, capture dir): the bundled copies first
DIRS = [(local, local),
        (os.path.join(shared, 'reference', 'tshark'), os.path.join(shared, 'public'))]
fails = checks = 0
seen = set()


def truth(tsv):
    rows = list(csv.reader(open(tsv), delimiter='\t'))
    idx = {h: i for i, h in enumerate(rows[0])}
    calls, cl, sv = 0, set(), set()
    for r in rows[1:]:
        f = {h: r[i].split(',') if i < len(r) else [''] for h, i in idx.items()}
        for k, t in enumerate(f['rpc.msgtyp']):
            if t == '0' and f['rpc.program'][k] == '100003' and \
                    f['rpc.programversion'][k] == '4' and f['rpc.procedure'][k] == '1':
                calls += 1
                cl.add(f['ip.src'][0] or f['ipv6.src'][0])
                sv.add(f['ip.dst'][0] or f['ipv6.dst'][0])
    return calls, len(cl), len(sv)


def refs():
    for ref, pub in DIRS:
        if os.path.isdir(ref):
            for tsv in sorted(os.listdir(ref)):
                if tsv.endswith('.rpc.tsv') and tsv not in seen:
                    seen.add(tsv)
                    yield ref, pub, tsv


for ref, pub, tsv in refs():
    name = tsv[:-len('.rpc.tsv')]
    want = truth(os.path.join(ref, tsv))
    if want[0] == 0:
        continue
    path = os.path.join(pub, name)
    tmp = None
    if not os.path.exists(path):
        if not os.path.exists(path + '.bz2'):
            continue
        tmp = tempfile.NamedTemporaryFile(suffix='.pcap', delete=False)
        tmp.write(bz2.open(path + '.bz2').read())
        tmp.close()
        path = tmp.name
    js = subprocess.run([nfscope, 'report', '-r', path, '--json'],
                        capture_output=True, text=True)
    text = subprocess.run([nfscope, 'report', '--wide', '-r', path],
                          capture_output=True, text=True).stdout
    if tmp:
        os.unlink(tmp.name)
    got = json.loads(js.stdout)['incomplete'].get('nfs4_not_analysed') or {}
    got = (got.get('compounds', 0), got.get('clients', 0), got.get('servers', 0))
    head = text.split('\n\n')[0]
    checks += 2
    # tshark loses TCP records after gaps: nfscope may find more calls
    # there, never fewer, and the same clients and servers
    ok = got[0] >= want[0] and got[1:] == want[1:] and \
        (got[0] == want[0] or 'cifs' in name)
    said = 'NOT ANALYSED: %d NFSv4 COMPOUND' % got[0] in head
    print('%s: nfscope %s, tshark %s, said first: %s' % (name, got, want, said))
    fails += (not ok) + (not said)
if checks == 0:
    print('SKIP: no capture with NFSv4 calls (pcaps/golden, %s)' % shared)
    sys.exit(77)
print('%d checks, %d failed' % (checks, fails))
sys.exit(1 if fails else 0)
