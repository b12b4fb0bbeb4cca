#!/usr/bin/env python3
"""pipes.py NFSCOPE SRCDIR WORKDIR - reading pipes: signals and report -r.

- A FIFO fed slowly by a writer: SIGHUP sent mid-read is logged and
  ignored, the output equals that of the file (dump's messages, report's
  JSON, record's ops).
- The writer stalls half-way (the reader blocks in read(2)): SIGINT or
  SIGTERM ends the run cleanly: exit 0, dump's summary, report's whole
  report of what was read, record's run 'interrupted' with every op read.
- `report -r` of a FIFO, /dev/stdin (a pipe) and <(cat FILE) equals
  `report -r FILE`.
Ground truth: the same commands on the regular file.
"""
import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
import tally  # noqa: E402
from tally import check  # noqa: E402

NFSCOPE, SRC, WORK = sys.argv[1:4]
PCAP = os.path.join(SRC, 'pcaps', 'lab-demo.pcap')


def feeder(path, data, chunk, pause, stall_at=None, stall=None,
           reached=None):
    """Write data into the FIFO path in chunks; at stall_at bytes set the
    event reached and wait until the event stall is set (the reader, having
    read all but what the pipe holds, is then blocked in read)."""
    def run():
        try:
            with open(path, 'wb', buffering=0) as f:
                for off in range(0, len(data), chunk):
                    if stall_at is not None and off >= stall_at:
                        reached.set()
                        stall.wait(60)
                        return
                    f.write(data[off:off + chunk])
                    time.sleep(pause)
        except (BrokenPipeError, OSError):
            pass
    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def fifo(name):
    path = os.path.join(WORK, name)
    if os.path.exists(path):
        os.unlink(path)
    os.mkfifo(path)
    return path


def fresh(db):
    for f in (db, db + '-wal', db + '-shm'):
        if os.path.exists(f):
            os.unlink(f)


def cmd(sub, src, db):
    if sub == 'record':
        return [NFSCOPE, 'record', '-r', src, '-w', db, '--quiet']
    if sub == 'report':
        return [NFSCOPE, 'report', '--json', '-r', src]
    return [NFSCOPE, 'dump', '-r', src]


def ops_of(db):
    con = sqlite3.connect(db)
    r = (con.execute('SELECT state, packets FROM runs').fetchall(),
         con.execute('SELECT count(*) FROM ops').fetchone()[0])
    con.close()
    return r


def strip(sub, out):
    if sub == 'report':
        d = json.loads(out)
        d.pop('source')
        return d
    return [l for l in out.splitlines() if not l.startswith('#')]


def hup_mid_read(sub, data, want):
    path = fifo('hup.' + sub)
    db = os.path.join(WORK, 'hup.db')
    fresh(db)
    t = feeder(path, data, 64 * 1024, 0.04)
    p = subprocess.Popen(cmd(sub, path, db), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    time.sleep(0.5)
    for _ in range(3):
        p.send_signal(signal.SIGHUP)
        time.sleep(0.2)
    out, err = p.communicate(timeout=120)
    t.join()
    if sub == 'record':
        got = ops_of(db)
        ok = p.returncode == 0 and got == want
    else:
        got = strip(sub, out) if p.returncode == 0 else None
        ok = got == want
    check(ok and 'SIGHUP ignored' in err,
          '%s: SIGHUP while reading a FIFO: exit %d, %s, %s' %
          (sub, p.returncode, 'same output' if ok else 'output differs',
           err[-300:]))


def stop_mid_read(sub, data, sig):
    path = fifo('stop.' + sub)
    db = os.path.join(WORK, 'stop.db')
    fresh(db)
    stall, reached = threading.Event(), threading.Event()
    t = feeder(path, data, 64 * 1024, 0.01, stall_at=len(data) // 2,
               stall=stall, reached=reached)
    # output to a file: a pipe nobody reads yet would block the reader
    outf = open(os.path.join(WORK, 'stop.out'), 'w+')
    p = subprocess.Popen(cmd(sub, path, db), stdout=outf,
                         stderr=subprocess.PIPE, text=True)
    # the writer has stalled half-way, so the reader has read all but the
    # pipe's 64 KiB; give it time to process that and block in read
    check(reached.wait(60), '%s: the writer reached half-way' % sub)
    time.sleep(1.0)
    p.send_signal(sig)
    try:
        err = p.communicate(timeout=30)[1]
    except subprocess.TimeoutExpired:
        p.kill()
        err = p.communicate()[1]
        outf.close()
        check(False, '%s: %s while blocked on a FIFO: still running' %
              (sub, sig.name))
        stall.set()
        return
    stall.set()
    t.join()
    outf.seek(0)
    out = outf.read()
    outf.close()
    name = '%s: %s while blocked on a FIFO' % (sub, sig.name)
    if sub == 'record':
        st, n = ops_of(db)
        check(p.returncode == 0 and st and st[0][0] == 'interrupted' and
              st[0][1] > 1000 and n > 0,
              '%s: exit %d, runs %s, %d ops; %s' % (name, p.returncode, st,
                                                    n, err[-300:]))
    elif sub == 'report':
        rep = json.loads(out) if p.returncode == 0 and out else {}
        check(p.returncode == 0 and rep.get('totals', {}).get('ops', 0) > 0,
              '%s: exit %d, totals %s; %s' % (name, p.returncode,
                                               rep.get('totals'), err[-300:]))
    else:
        last = out.splitlines()[-1] if out else ''
        check(p.returncode == 0 and last.startswith('# ') and
              len(out.splitlines()) > 100,
              '%s: exit %d, last line %r; %s' % (name, p.returncode, last,
                                                 err[-300:]))


def report_forms(want):
    """report -r of a FIFO, /dev/stdin and <(...) reads every byte."""
    path = fifo('rep.fifo')
    data = open(PCAP, 'rb').read()
    t = feeder(path, data, 1 << 20, 0)
    p = subprocess.run([NFSCOPE, 'report', '--json', '-r', path],
                       capture_output=True, text=True)
    t.join()
    forms = [('FIFO', p)]
    with open(PCAP, 'rb') as f:
        cat = subprocess.Popen(['cat'], stdin=f, stdout=subprocess.PIPE)
        forms.append(('/dev/stdin', subprocess.run(
            [NFSCOPE, 'report', '--json', '-r', '/dev/stdin'],
            stdin=cat.stdout, capture_output=True, text=True)))
        cat.wait()
    forms.append(('<(...)', subprocess.run(
        ['bash', '-c', '"$0" report --json -r <(cat "$1")', NFSCOPE, PCAP],
        capture_output=True, text=True)))
    for name, r in forms:
        got = strip('report', r.stdout) if r.returncode == 0 else None
        check(got == want, 'report -r %s: exit %d, %s' %
              (name, r.returncode, r.stderr[-300:]))


def main():
    os.makedirs(WORK, exist_ok=True)
    data = open(PCAP, 'rb').read()
    want = {}
    for sub in ('dump', 'report'):
        r = subprocess.run(cmd(sub, PCAP, None), capture_output=True,
                           text=True)
        want[sub] = strip(sub, r.stdout)
    db = os.path.join(WORK, 'file.db')
    fresh(db)
    subprocess.run(cmd('record', PCAP, db), check=True, capture_output=True)
    want['record'] = ops_of(db)
    report_forms(want['report'])
    for sub in ('dump', 'report', 'record'):
        hup_mid_read(sub, data, want[sub])
    for sub, sig in (('dump', signal.SIGINT), ('report', signal.SIGTERM),
                     ('record', signal.SIGINT), ('record', signal.SIGTERM)):
        stop_mid_read(sub, data, sig)
    sys.exit(tally.summary())


main()
