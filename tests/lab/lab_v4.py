#!/usr/bin/env python3
"""lab_v4.py --nfscope N --work DIR: NFSv4.0 between real peers.

nfs-ganesha serves the lab's export over NFSv3 and NFSv4 (Protocols = 3, 4;
Graceless; Enable_FULLV4_Stats), libnfs 4.0's NFSv4.0 client (`?version=4`:
nfs-ls, nfs-cp of a small file - libnfs cannot encode a WRITE above ~3.8 KB
- nfs-cat) runs in the client namespace, and tcpdump captures the client's
interface (labnet.Lab).  Ground truth: ganesha's own per-operation counts
over D-Bus (GetFULLV4Stats), taken before and after the workload.  Held to
them: per operation, the ops nfscope finds inside the COMPOUND calls of
the capture (`dump --json`), and every COMPOUND answered (`report --json`
rows).  Exits 77 without root or namespaces.  Kept apart from lab.py
(another engineer's) on purpose."""
import argparse
import collections
import json
import os
import re
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import labnet  # noqa: E402

V4_CONF = labnet.GANESHA_CONF.replace(
    'Protocols = 3;\n    NFS_Port', 'Protocols = 3, 4;\n    NFS_Port').replace(
    'Enable_FULLV3_Stats = true;', 'Enable_FULLV3_Stats = true;\n'
    '    Enable_FULLV4_Stats = true;').replace(
    '    Protocols = 3;\n    Transports', '    Protocols = 3, 4;\n    Transports')


class LabV4(labnet.Lab):
    def _server(self):
        saved = labnet.GANESHA_CONF
        labnet.GANESHA_CONF = V4_CONF
        try:
            super()._server()
        finally:
            labnet.GANESHA_CONF = saved

    def v4_stats(self):
        """{op name: total} from GetFULLV4Stats."""
        out = subprocess.run(
            ['dbus-send', '--bus=unix:path=' + os.path.join(self.work, 'dbus.sock'),
             '--print-reply', '--dest=org.ganesha.nfsd', '/org/ganesha/nfsd/ExportMgr',
             'org.ganesha.nfsd.exportstats.GetFULLV4Stats'],
            capture_output=True, text=True).stdout
        stats = {}
        for m in re.finditer(r'string "(\w+)"\s+uint64 (\d+)', out):
            stats[m.group(1)] = int(m.group(2))
        return stats, out

    def url4(self, path=''):
        return 'nfs://%s/lab/%s?version=4' % (labnet.SERVER_IP, path)


def ops_in_calls(nfscope, pcap, kind='call'):
    """Per op name the ops nfscope finds inside the COMPOUND calls (kind
    'reply': the replies, the ops the server ran)."""
    out = subprocess.run([nfscope, 'dump', '--json', '-r', pcap],
                         capture_output=True, text=True, check=True).stdout
    ops = collections.Counter()
    for line in out.splitlines():
        m = json.loads(line)
        if m.get('prog') == 100003 and m.get('vers') == 4 and \
                m['type'] == kind and 'nfs4' in m:
            ops.update(o['op'] for o in m['nfs4']['ops'])
    return ops


def io_paths(nfscope, pcap):
    """{op: set of paths} of the NFSv4 READs and WRITEs nfscope records
    from pcap (its ops table)."""
    db = pcap + '.paths.db'
    subprocess.run([nfscope, 'record', '-r', pcap, '-w', db, '--ops', 'all', '--force',
                    '--quiet'], capture_output=True, check=True)
    con = sqlite3.connect('file:%s?mode=ro' % db, uri=True)
    rows = con.execute("SELECT DISTINCT op, path FROM ops WHERE vers = 4 AND "
                       "op IN ('READ', 'WRITE')").fetchall()
    con.close()
    out = {}
    for op, path in rows:
        out.setdefault(op, set()).add(path)
    return out


def lab_args(*tools):
    """The v4 labs' arguments (--nfscope, --work and each of tools), or
    None, the reason printed, where the lab cannot run (no root or
    namespaces: the test exits 77)."""
    ap = argparse.ArgumentParser()
    for name in ('--nfscope', '--work') + tools:
        ap.add_argument(name, required=True)
    a = ap.parse_args()
    try:
        labnet.need_privilege()
    except labnet.Skip as e:
        print('skip: %s' % e)
        return None
    return a


def main():
    a = lab_args()
    if a is None:
        return 77
    work = os.path.join(a.work, 'v4')
    tools = {'nfscope': a.nfscope}
    fails = 0
    with LabV4(work, tools, snaplen=0) as lab:
        with open(os.path.join(lab.export, 'hello.txt'), 'w') as f:
            f.write('hello, nfsv4\n' * 40)
        src = os.path.join(work, 'small.bin')
        with open(src, 'wb') as f:
            f.write(os.urandom(2000))
        pcap = os.path.join(work, 'v4.pcap')
        before, _ = lab.v4_stats()
        lab.start_captures(os.path.join(work, 'v4.db'), pcap)
        lab.libnfs('nfs-ls', lab.url4())
        lab.libnfs('nfs-cat', lab.url4('hello.txt'))
        lab.libnfs('nfs-cp', src, lab.url4('small.bin'))
        lab.libnfs('nfs-cat', lab.url4('small.bin'))
        lab.stop_captures()
        after, raw = lab.v4_stats()
    truth = {k: after.get(k, 0) - before.get(k, 0) for k in after}
    truth = {k: n for k, n in truth.items() if n}
    if not truth:
        print('no NFSv4 counts from ganesha:\n%s' % raw[:2000])
        return 1
    got = ops_in_calls(a.nfscope, pcap)
    for op in sorted(set(truth) | set(got)):
        ok = got.get(op, 0) == truth.get(op, 0)
        fails += not ok
        print('%s %s: nfscope %d, ganesha %d' % ('ok  ' if ok else 'FAIL', op,
                                                got.get(op, 0), truth.get(op, 0)))
    rep = json.loads(subprocess.run([a.nfscope, 'report', '--json', '-r', pcap],
                                    capture_output=True, text=True,
                                    check=True).stdout)
    rows = [r for r in rep['procedures'] if r['prog'] == 100003 and r['vers'] == 4]
    unans = sum(r['unanswered'] for r in rows)
    print('%s every COMPOUND answered: %d unanswered' % ('ok  ' if unans == 0 else 'FAIL',
                                                       unans))
    fails += unans != 0
    # the paths of the files read and written: the lab's own commands
    # (nfs-cat hello.txt, nfs-cp and nfs-cat small.bin under /lab),
    # learned from the names in OPENs after the main op (ACCESS)
    paths = io_paths(a.nfscope, pcap)
    want = {'READ': {'/lab/hello.txt', '/lab/small.bin'}, 'WRITE': {'/lab/small.bin'}}
    ok = paths == want
    fails += not ok
    print('%s READ and WRITE paths %s, the files the lab used %s' % (
        'ok  ' if ok else 'FAIL', paths, want))
    print('%d failed' % fails)
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
