#!/usr/bin/env python3
"""Live --write-pcap (issue 20): generator captures (UDP: 32k READs in
IP fragments, retransmissions from other ports, duplicate replies,
errors; TCP: records over several segments, several per segment) are
replayed with tcpreplay onto a veth pair in a network namespace while
nfscope captures on its other end with
`--write-pcap OUT --select retrans,errors`:

  - record, ended by SIGINT: every captured frame is spooled to
    OUT.spool while it runs; after the signal OUT holds the same
    operations (tshark's XIDs, the generator's record of the selected
    ones) and as many frames as the offline run on the same capture
    writes, and the spool is gone;
  - report, ended by --duration (UDP): the same;
  - an OUT that cannot be created is refused at the start (exit 1,
    saying so), before anything is captured.

Needs root, network namespaces and tcpreplay (exits 77 = skipped
without them).

usage: live_evidence.py NFSGEN NFSCOPE WORKDIR
"""
import json
import os
import signal
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
import testlib  # noqa: E402

NS = 'nfev-%d' % os.getpid()


def sh(*args, **kw):
    return subprocess.run(['ip', 'netns', 'exec', NS] + list(args),
                          check=True, **kw)


def xids(pcap):
    """The RPC XIDs tshark finds in pcap, and its frame count."""
    out = subprocess.run(['tshark', '-o', 'udp.try_heuristic_first:TRUE',
                          '-r', pcap, '-T', 'fields', '-e', 'rpc.xid'],
                         check=True, capture_output=True, text=True).stdout
    lines = out.splitlines()
    return {int(v, 16) for l in lines for v in l.split(',') if v}, len(lines)


def started(errf, p):
    """Wait for nfscope's "listening on" line (the capture is active)."""
    end = time.time() + 15
    while time.time() < end and p.poll() is None:
        if 'listening on' in open(errf).read():
            return True
        time.sleep(0.05)
    return False


def live(nfscope, pcap, work, cmd, stop, pps):
    """Run cmd live on ev1, replay pcap on ev0 at pps; stop: 'sigint' or
    None (cmd ends by itself).  Returns (rc, stderr, spool seen while
    running, kernel drops)."""
    errf = os.path.join(work, 'err.txt')
    outf = os.path.join(work, 'out.txt')
    out = cmd[cmd.index('--write-pcap') + 1]
    with open(errf, 'w') as e, open(outf, 'w') as o:
        p = subprocess.Popen(['ip', 'netns', 'exec', NS, nfscope] + cmd,
                             stdout=o, stderr=e)
    spool = False
    try:
        if not started(errf, p):
            raise RuntimeError('nfscope did not start: ' + open(errf).read())
        time.sleep(2.0)     # its tables set up (MALLOC_PERTURB_ fills them)
        sh('tcpreplay', '-q', '-i', 'ev0', '--pps', str(pps), pcap,
           capture_output=True)
        time.sleep(1.0)
        spool = os.path.exists(out + '.spool') and \
            os.path.getsize(out + '.spool') > 0
        if stop == 'sigint':
            p.send_signal(signal.SIGINT)
        p.wait(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    err = open(errf).read()
    drops = 'dropped by the kernel' in err
    if cmd[0] == 'report' and p.returncode == 0:
        drops = drops or json.load(open(outf))['capture']['ps_drop'] > 0
    return p.returncode, err, spool, drops


# (name, generator options, runs): a UDP capture with IP fragments,
# retransmissions from other ports and duplicate replies, ended both ways;
# a TCP one with several records per segment, ended by SIGINT.
CASES = [
    ('udp', ['--transport', 'udp', '--retrans', '0.2', '--dup-replies',
             '0.1', '--count', '200', '--seed', '3'],
     [('record', 'sigint'), ('report', 'duration')]),
    ('tcp', ['--transport', 'tcp', '--multi-record', '--count', '150',
             '--seed', '4'], [('record', 'sigint')]),
]


def check(nfsgen, nfscope, work, name, gargs, runs, errs):
    """Offline and live runs of one capture, compared."""
    base = os.path.join(work, name)
    subprocess.run([nfsgen, '--ip', '4', '--mix', 'all', '--size', '32768',
                    '--errors', '0.05', '-o', base + '.pcap', '--ops-truth',
                    base + '.ops'] + gargs, check=True, capture_output=True)
    sel = ['--select', 'retrans,errors']
    off = base + '.off.pcap'
    subprocess.run([nfscope, 'report', '-r', base + '.pcap',
                    '--write-pcap', off] + sel, check=True,
                   capture_output=True)
    want, want_n = xids(off)
    with open(base + '.pcap', 'rb') as f:      # its frames
        data, at, nframes = f.read(), 24, 0
    while at + 16 <= len(data):
        at += 16 + struct.unpack('<I', data[at + 8:at + 12])[0]
        nframes += 1
    ops = [json.loads(l) for l in open(base + '.ops')]
    rx = {o['xid'] for o in ops if o['retrans'] or o['dup_replies'] or
          o.get('status')}
    if not rx <= want or not want:
        errs.append('%s offline: OUT lacks XIDs the record selects: %s' %
                    (name, sorted(rx - want)[:4]))
    for cmd, stop in runs:
        what = '%s %s, %s' % (name, cmd, stop)
        out = '%s.%s.pcap' % (base, cmd)
        cmd = [cmd, '-i', 'ev1', '--write-pcap', out] + sel + (
            ['-w', base + '.db', '--force'] if cmd == 'record' else
            ['--json'])
        for pps in (1000, 300, 100):    # slower if the kernel dropped
            # --duration: the replay's time and 4 s more
            run_cmd = cmd + (['--duration', str(nframes // pps + 4)]
                             if stop == 'duration' else [])
            rc, err, spooled, drops = live(nfscope, base + '.pcap', work,
                                           run_cmd, stop, pps)
            if not drops:
                break
            print('%s: the kernel dropped packets at %d/s: again slower' %
                  (what, pps))
        got, got_n = xids(out)
        print('%s: exit %d, %d XIDs, %d frames (offline %d, %d)' %
              (what, rc, len(got), got_n, len(want), want_n))
        if rc != 0 or got != want or got_n != want_n:
            errs.append('%s: exit %d, XIDs only live %s, only offline %s, '
                        '%d frames vs %d: %s' %
                        (what, rc, sorted(got - want)[:4],
                         sorted(want - got)[:4], got_n, want_n, err))
        if not spooled or os.path.exists(out + '.spool'):
            errs.append('%s: the spool was %s while capturing, %s after' %
                        (what, 'there' if spooled else 'missing', 'left' if
                         os.path.exists(out + '.spool') else 'gone'))


def main():
    nfsgen, nfscope, work = sys.argv[1:4]
    why = testlib.live_netns(NS)
    if why:
        print('SKIP: ' + why)
        return 77
    errs = []
    try:
        sh('ip', 'link', 'add', 'ev0', 'type', 'veth', 'peer', 'name', 'ev1')
        for dev in ('lo', 'ev0', 'ev1'):
            sh('ip', 'link', 'set', dev, 'up')
        os.makedirs(work, exist_ok=True)
        for name, gargs, runs in CASES:
            check(nfsgen, nfscope, work, name, gargs, runs, errs)
        # a spool that cannot be written: refused at the start
        p = subprocess.run(['ip', 'netns', 'exec', NS, nfscope, 'report',
                            '-i', 'ev1', '--write-pcap',
                            os.path.join(work, 'no', 'such', 'x.pcap')],
                           capture_output=True, text=True, timeout=30)
        # refused by the output check (ui/outfile.c, issue 32) before the
        # spool is tried: "cannot create a file in DIR"
        if p.returncode != 1 or 'cannot create' not in p.stderr:
            errs.append('unwritable spool: exit %d: %s' % (p.returncode,
                                                           p.stderr))
    finally:
        subprocess.run(['ip', 'netns', 'del', NS])
    for e in errs:
        print('FAIL', e)
    print('%d errors' % len(errs))
    return 1 if errs else 0


if __name__ == '__main__':
    sys.exit(main())
