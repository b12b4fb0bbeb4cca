#!/usr/bin/env python3
"""lab_v4_deleg.py --nfscope N --work DIR: a real NFSv4.1 delegation recall.

The server is nfs-ganesha with FSAL_GLUSTER (its VFS FSAL grants no
delegation; doc/nfs4.md) over a one-brick Gluster volume with leases on,
glusterd and the brick in the server namespace (private mount namespace:
/run, /var/lib/glusterd and /var/log/glusterfs are the lab's own).  The
clients are v41deleg.py, a small NFSv4.1 client with a back channel on its
session's connection: a holder opens FILES files for read and keeps the
read delegations ganesha grants; a writer then opens each for write, so
ganesha recalls each delegation (CB_RECALL on the back channel), answers
the writer NFS4ERR_DELAY until the holder's DELEGRETURN, then grants the
open.  A second run without the writer (other files) is the silent case:
the holder returns its delegations unasked.

Captured at both ends of the link (client: tcpdump whole, nfscope record -i,
-s 256; server: whole, -s 256).  Ground truth that is not nfscope: the
clients' own records (each CB_RECALL the holder got, each DELEGRETURN it
sent, the writer's NFS4ERR_DELAYs), ganesha's per-operation counts
(GetFULLV4Stats: OPEN, DELEGRETURN run), and tshark's NFSv4 dissector
(CB_RECALL calls, DELEGRETURN calls, the recall-to-return delay per file).
Held to them: deleg_recall fires for the holder with one recall per file
and the wait tshark measures; nfs4_delay for the writer with its DELAYs;
silent when no writer ran.  Exits 77 without root, namespaces, the Gluster
FSAL, glusterd or tshark."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
import labnet  # noqa: E402
import lab_v4  # noqa: E402
import tally  # noqa: E402
from tally import check  # noqa: E402

GLUSTER_FSAL = '/usr/lib/x86_64-linux-gnu/ganesha/libfsalgluster.so'
TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'v41deleg.py')
FILES = 6           # recalls per run: recall_min (5) and one more
V4_KINDS = {'nfs4_delay', 'nfs4_grace', 'session_lost', 'seq_misordered',
            'stale_clientid', 'session_replay', 'deleg_recall', 'lock_contention'}
VOLUME = 'lab'
EXTRA = ''

CONF = """\
NFS_CORE_PARAM {{
    Protocols = 4;
    NFS_Port = 2049;
    Enable_NLM = false;
    Enable_RQUOTA = false;
    Bind_addr = {server};
    Enable_FULLV4_Stats = true;
}}
NFSV4 {{ Graceless = true; Delegations = true; }}
EXPORT {{
    Export_Id = 1;
    Path = "/";
    Pseudo = /lab;
    Access_Type = RW;
    Squash = No_Root_Squash;
    SecType = sys;
    Protocols = 4;
    Transports = TCP;
    Delegations = read;
    FSAL {{ Name = GLUSTER; Hostname = "{server}"; Volume = "{volume}"; }}
}}
LOG {{ Default_Log_Level = EVENT; COMPONENTS {{ STATE = DEBUG; NFS_CB = DEBUG; }} }}
"""

# glusterd and the brick in the server namespace, their state in the
# lab's directory, then ganesha (exec'd: the PID the lab holds)
SERVER_SH = """\
set -e
mount -t tmpfs lab-run /run
mkdir -p /run/rpcbind /run/ganesha /run/dbus /var/log/ganesha "$1/glusterd" "$1/glusterlog" "$1/brick"
mount --bind "$1/glusterd" /var/lib/glusterd
mount --bind "$1/glusterlog" /var/log/glusterfs
mkdir -p "$1/ganeshalog"
mount --bind "$1/ganeshalog" /var/log/ganesha    # gfapi's log
dbus-daemon --config-file="$1/dbus.conf" --fork --print-pid=3 3>"$1/dbus.pid"
rpcbind -f -w & echo $! > "$1/rpcbind.pid"
glusterd -N & echo $! > "$1/glusterd.pid"
for i in $(seq 200); do gluster --mode=script pool list >/dev/null 2>&1 && break; sleep 0.1; done
gluster --mode=script volume create {volume} {server}:"$1/brick" force
gluster --mode=script volume set {volume} features.leases on
{extra}gluster --mode=script volume start {volume}
cat /run/gluster/vols/{volume}/*.pid > "$1/brick.pid"
export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$1/dbus.sock"
exec env LD_PRELOAD="$LAB_PRELOAD" ganesha.nfsd -F -f "$1/ganesha.conf" -L "$1/ganesha.log" -p /run/ganesha/ganesha.pid
"""


class LabDeleg(lab_v4.LabV4):
    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.leaselog = os.path.join(self.work, 'leases.jsonl')

    def leases(self):
        """The leases ganesha's FSAL took and gave back so far (leaseshim.c's
        log): (set, unlocked)."""
        cmds = [json.loads(x)['cmd'] for x in open(self.leaselog)] \
            if os.path.exists(self.leaselog) else []
        return cmds.count(2), cmds.count(3)

    def recalled(self):
        """ganesha's log so far: (back-channel calls it sent, CB_RECALLs
        answered OK).  Not its recall attempts (delegrecall_impl): each
        conflicting OPEN asks again while one is under way; nor its
        "successfully recalled", missing when the DELEGRETURN is handled
        first ("Delegation is already returned")."""
        log = open(os.path.join(self.work, 'ganesha.log')).read()
        return (len(re.findall(r'nfs_rpc_call :NFS CB :DEBUG :\(rpc_call_t \*\)call =', log)),
                len(re.findall(r'delegrecall_completion_func :NFS CB :DEBUG :0x[0-9a-f]+ '
                               r'Success', log)))

    def _server(self):
        with open(os.path.join(self.work, 'ganesha.conf'), 'w') as f:
            f.write(CONF.format(server=labnet.SERVER_IP, volume=VOLUME))
        with open(os.path.join(self.work, 'dbus.conf'), 'w') as f:
            f.write(labnet.DBUS_CONF.format(sock=os.path.join(self.work, 'dbus.sock')))
        with open(os.path.join(self.work, 'server.sh'), 'w') as f:
            f.write(SERVER_SH.format(server=labnet.SERVER_IP, volume=VOLUME, extra=EXTRA))
        log = open(os.path.join(self.work, 'server.out'), 'w')
        env = dict(os.environ, LAB_PRELOAD=os.path.abspath(self.tools['leaseshim']),
                   LEASESHIM_LOG=self.leaselog)
        self.ganesha = self.start('ganesha', ['unshare', '-m', '--propagation', 'private',
                                              'sh', os.path.join(self.work, 'server.sh'),
                                              self.work],
                                  ns=self.sns, stdout=log, stderr=subprocess.STDOUT, env=env)
        glog = os.path.join(self.work, 'ganesha.log')
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.ganesha.poll() is not None:
                raise RuntimeError('the server exited: see %s and %s' % (
                    os.path.join(self.work, 'server.out'), glog))
            if os.path.exists(glog) and 'NFS SERVER INITIALIZED' in open(glog).read():
                break
            time.sleep(0.05)
        else:
            raise RuntimeError('ganesha did not start in 60 s')
        self.wait_listen(2049)

    def close(self):
        # ganesha's orderly exit waits ~9 s on gfapi (glfs_fini); its state
        # is all in the lab's namespaces and directory: SIGKILL it first
        for name, p in self.procs:
            if name == 'ganesha':
                self._stop(name, p, signal.SIGKILL)
        super().close()
        for pidfile in ('brick.pid', 'glusterd.pid'):
            self._kill_pidfile(pidfile)

    def client(self, out, mode, files, wait=None):
        """v41deleg.py in the client namespace; returns its Popen (stdout a
        pipe)."""
        cmd = ['ip', 'netns', 'exec', self.cns, 'timeout', '90', sys.executable, TOOL]
        if wait is not None:
            cmd += ['--wait', str(wait)]
        cmd += [labnet.SERVER_IP, 'lab', out, mode] + files
        return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)


def run_case(lab, work, name, files, writer):
    """One captured run: the holder opens files; with writer, the writer
    opens them for write.  Returns (holder record, writer record or None,
    {capture name: path})."""
    pcap = os.path.join(work, name + '.pcap')
    twins = {name + '-client-256': ('client', 256), name + '-server-full': ('server', 0),
             name + '-server-256': ('server', 256)}
    lab.start_captures(os.path.join(work, name + '.db'), pcap, twins=twins)
    hout, wout = os.path.join(work, name + '-holder.json'), os.path.join(
        work, name + '-writer.json')
    holder = lab.client(hout, 'hold', files, wait=30 if writer else 1)
    line = holder.stdout.readline().strip()
    if line != 'held %d' % len(files):
        holder.kill()
        raise RuntimeError('the holder: %r, %s' % (line, holder.stderr.read()))
    w = None
    if writer:
        w = lab.client(wout, 'write', files)
        _, err = w.communicate(120)
        if w.returncode != 0:
            raise RuntimeError('the writer failed: %s' % err)
    _, err = holder.communicate(120)
    if holder.returncode != 0:
        raise RuntimeError('the holder failed: %s' % err)
    lab.stop_captures()
    caps = {'client': pcap}
    for t in twins:
        caps[t[len(name) + 1:]] = os.path.join(work, t + '.pcap')
    return json.load(open(hout)), json.load(open(wout)) if writer else None, caps


def tshark_recalls(pcap):
    """tshark's view, one pass: the CB_RECALL calls and the DELEGRETURN
    calls, each (time, fh hash, xid).  Port 2049 is RPC both ways; the back
    channel's calls come from it."""
    out = subprocess.run(['tshark', '-r', pcap, '-Y', 'rpc.msgtyp == 0 && '
                          '(nfs.cb.operation == 4 || nfs.opcode == 8)', '-T', 'fields',
                          '-e', 'frame.time_epoch', '-e', 'nfs.fh.hash', '-e', 'rpc.xid',
                          '-e', 'nfs.cb.operation'],
                         capture_output=True, text=True, check=True).stdout
    rows = [line.split('\t') for line in out.splitlines()]
    recalls = [r[:3] for r in rows if r[3]]
    returns = [r[:3] for r in rows if not r[3]]
    return recalls, returns


def recall_waits(recalls, returns):
    """The recall delay per file, tshark's: CB_RECALL call to DELEGRETURN
    call of the same handle (s)."""
    at = {h: float(t) for t, h, _ in returns}
    return [at[h] - float(t) for t, h, _ in recalls if h in at]


def evidence_waits(f):
    """(sum s, count, longest s) of the waits a finding's evidence says,
    or None."""
    m = re.search(r' ([0-9.]+) s in all \(waits (\d+), longest ([0-9.]+) s\)',
                  f['evidence'])
    return m and (float(m.group(1)), int(m.group(2)), float(m.group(3)))


def write_truth(path, pcap, hold, write, server):
    """The recall run's ground truth beside its capture (bundled as
    pcaps/v41-deleg-recall.truth.json; tests/lab/check_deleg.py)."""
    files = sorted(hold['files'])
    recalls, returns = tshark_recalls(pcap)
    waits = recall_waits(recalls, returns)
    first = min(files, key=lambda f: hold['files'][f]['recall']['at_ns'])
    truth = {
        'capture': 'lab-v4-deleg, recall run: the client end of the TAP link, whole frames',
        'client': labnet.CLIENT_IP, 'server': labnet.SERVER_IP,
        'holder': {'delegations': len(files),
                   'cb_recalls': sum('recall' in hold['files'][f] for f in files),
                   'delegreturns': len(files), 'first_recalled': '/lab/' + first},
        'writer': {'nfs4err_delay': sum(write['files'][f]['delays'] for f in files),
                   'files_delayed': sum(write['files'][f]['delays'] > 0 for f in files)},
        'ganesha': {'cb_calls_sent': server['recalled'][0],
                    'cb_recall_answered': server['recalled'][1],
                    'delegreturn_run': server['ops'].get('DELEGRETURN', 0),
                    'leases_taken_returned': list(server['leases'])},
        'tshark': {'cb_recall_calls': len(recalls), 'delegreturn_calls': len(returns),
                   'recall_waits_s': [round(w, 6) for w in waits]},
    }
    with open(path, 'w') as f:
        json.dump(truth, f, indent=1)
        f.write('\n')


def report(nfscope, src):
    cmd = [nfscope, 'report', '--json'] + ([src] if src.endswith('.db') else ['-r', src])
    return json.loads(subprocess.run(cmd, capture_output=True, text=True,
                                     check=True).stdout)


def v4_findings(rep):
    return [f for f in rep['findings'] if f['kind'] in V4_KINDS]


def check_server(hold, write, server):
    """The clients' records against the server's own: ganesha's op counts,
    its log's recalls, the leases its FSAL took (leaseshim's log)."""
    files = sorted(hold['files'])
    granted = [f for f in files if hold['files'][f]['deleg_type'] == 1]
    recalled = [f for f in files if 'recall' in hold['files'][f]]
    check(granted == files, 'ganesha granted a read delegation on every file '
          'the holder opened: %s' % granted)
    if write is None:
        check(not recalled and hold['cb_compounds'] == 0,
              'silent: no CB_COMPOUND reached the holder (%d)' % hold['cb_compounds'])
    else:
        check(recalled == files, 'the holder got a CB_RECALL for each file: %s' % recalled)
        check(all(hold['files'][f]['recall']['stateid_matches'] for f in recalled),
              'each CB_RECALL named the delegation granted')
        check(all(write['files'][f]['open_status'] == 0 for f in files),
              'the writer opened every file in the end')
    check(all(hold['files'][f]['delegreturn']['status'] == 0 for f in files),
          'each DELEGRETURN answered NFS4_OK')
    check(server['ops'].get('DELEGRETURN', 0) == len(files),
          'ganesha ran %d DELEGRETURNs, the holder sent %d' % (
              server['ops'].get('DELEGRETURN', 0), len(files)))
    check(server['recalled'] == (len(recalled), len(recalled)),
          'ganesha\'s log: %d CB calls sent, %d CB_RECALLs answered OK; the holder got and answered '
          '%d CB_RECALLs' % (server['recalled'] + (len(recalled),)))
    check(server['leases'] == (len(granted), len(files)),
          'ganesha\'s FSAL took %d leases and gave back %d; delegations granted %d, '
          'returned %d' % (server['leases'] + (len(granted), len(files))))


def check_capture(a, end, pcap, hold, write, live=None):
    """nfscope's findings on one whole capture against the clients' records
    and tshark; live: the database record -i wrote of the same frames."""
    files = sorted(hold['files'])
    recalled = [f for f in files if 'recall' in hold['files'][f]]
    recalls, returns = tshark_recalls(pcap)
    check(len(recalls) == len(recalled), '%s: tshark sees %d CB_RECALLs, the holder got '
          '%d' % (end, len(recalls), len(recalled)))
    check(len(returns) == len(files), '%s: tshark sees %d DELEGRETURNs, sent %d' % (
        end, len(returns), len(files)))
    rep = report(a.nfscope, pcap)
    got = v4_findings(rep)
    if live is not None:
        lrep = report(a.nfscope, live)
        check([f['evidence'] for f in v4_findings(lrep)] == [f['evidence'] for f in got],
              '%s: record -i found what the capture shows: %s' % (
                  end, [f['kind'] for f in v4_findings(lrep)]))
    if write is None:
        check(not got, '%s: no NFSv4 finding without a conflicting opener: %s' % (
            end, [f['evidence'] for f in got]))
        return
    dr = [f for f in got if f['kind'] == 'deleg_recall']
    if not check(len(dr) == 1, '%s: one deleg_recall: %s' % (
            end, [f['evidence'] for f in dr])):
        return
    f = dr[0]
    check(f['count'] == len(recalled), '%s: deleg_recall count %d, recalls %d' % (
        end, f['count'], len(recalled)))
    check(f['client'] == labnet.CLIENT_IP and f['server'] == labnet.SERVER_IP,
          '%s: deleg_recall names the holder and ganesha: %s -> %s' % (
              end, f['client'], f['server']))
    first = min(recalled, key=lambda x: hold['files'][x]['recall']['at_ns'])
    check(f['path'] == '/lab/' + first, '%s: deleg_recall\'s file %r, the first '
          'recalled /lab/%s' % (end, f['path'], first))
    waits = recall_waits(recalls, returns)
    w = evidence_waits(f)
    check(w is not None and w[1] == len(waits) == len(recalled) and
          abs(w[0] - sum(waits)) < 0.0015 and abs(w[2] - max(waits)) < 0.0015,
          '%s: the wait to DELEGRETURN %s, tshark\'s %.4f s in all, longest %.4f s (%d)' % (
              end, w or f['evidence'], sum(waits), max(waits) if waits else -1, len(waits)))
    delays = sum(write['files'][x]['delays'] for x in files)
    delayed = [x for x in files if write['files'][x]['delays']]
    nd = [x for x in got if x['kind'] == 'nfs4_delay']
    check(len(nd) == 1 and nd[0]['count'] == delays,
          '%s: nfs4_delay %s, the writer\'s NFS4ERR_DELAYs %d' % (
              end, [(x['count'], x['client']) for x in nd], delays))
    # the writer's refused OPENs of the files interleave (one directory
    # handle): one wait measured per file, each from its own first refusal
    w = evidence_waits(nd[0]) if nd else None
    check(w is not None and w[1] == len(delayed),
          '%s: nfs4_delay measured %s waits, the writer waited on %d files' % (
              end, w and w[1], len(delayed)))
    check(not [x for x in got if x['kind'] not in ('deleg_recall', 'nfs4_delay')],
          '%s: no other NFSv4 finding: %s' % (end, [x['kind'] for x in got]))


def check_twin(a, end, pcap, whole):
    """A -s 256 twin: nfscope finds there what it finds in the whole
    capture, or says the report incomplete."""
    rep, full = report(a.nfscope, pcap), report(a.nfscope, whole)
    same = [(f['kind'], f['count']) for f in v4_findings(rep)] == \
        [(f['kind'], f['count']) for f in v4_findings(full)]
    print('note %s: %s' % (end, [f['evidence'] for f in v4_findings(rep)]))
    check(same, '%s: the same NFSv4 findings and counts as the whole capture: %s' % (
        end, [(f['kind'], f['count']) for f in v4_findings(rep)]))
    # every recalled delegation was returned (the holder's record): a
    # recall whose handle the snaplen cut is said unmatched, never unreturned
    check(not [f for f in v4_findings(rep) if 'not returned' in f['evidence']],
          '%s: no recall said not returned' % end)


def main():
    a = lab_v4.lab_args('--leaseshim', '--tapfwd')
    if a is None:
        return 77
    missing = [p for p in (GLUSTER_FSAL,) if not os.path.exists(p)] + \
        [t for t in ('glusterd', 'gluster', 'tshark') if not shutil.which(t)]
    if missing:
        print('skip: needs nfs-ganesha-gluster, glusterfs-server and tshark: '
              'missing %s' % ' '.join(missing))
        return 77
    work = os.path.join(a.work, 'v4deleg')
    # the TAP link: both captures of the client's end stamp each frame
    # alike (README, "Why TAP everywhere"), so record -i = the capture
    with LabDeleg(work, {'nfscope': a.nfscope, 'leaseshim': a.leaseshim,
                         'tapfwd': a.tapfwd}, link='tap', snaplen=0) as lab:
        quiet = ['quiet%d.txt' % i for i in range(FILES)]
        files = ['deleg%d.txt' % i for i in range(FILES)]
        c = lab.client(os.path.join(work, 'create.json'), 'create', quiet + files)
        _, err = c.communicate(120)
        if c.returncode != 0:
            raise RuntimeError('create: %s' % err)
        print('note the server up in %.1f s' % lab.timings['setup_s'])
        cases = []
        for name, names, writer in (('silent', quiet, False), ('recall', files, True)):
            t = time.time()
            before, _ = lab.v4_stats()
            leases, log = lab.leases(), lab.recalled()
            hold, write, caps = run_case(lab, work, name, names, writer)
            time.sleep(0.5)     # the last DELEGRETURN's lease given back
            after, _ = lab.v4_stats()
            server = {'ops': {k: after.get(k, 0) - before.get(k, 0) for k in after},
                      'leases': tuple(x - y for x, y in zip(lab.leases(), leases)),
                      'recalled': tuple(x - y for x, y in zip(lab.recalled(), log))}
            cases.append((name, hold, write, caps, server))
            print('note %s: run and captured in %.1f s' % (name, time.time() - t))
    t = time.time()
    for name, hold, write, caps, server in cases:
        print('-- %s' % name)
        check_server(hold, write, server)
        check_capture(a, 'client', caps['client'], hold, write,
                      live=os.path.join(work, name + '.db'))
        check_capture(a, 'server', caps['server-full'], hold, write)
        for end, whole in (('client-256', 'client'), ('server-256', 'server-full')):
            check_twin(a, end, caps[end], caps[whole])
        if write is not None:
            write_truth(caps['client'] + '.truth.json', caps['client'], hold, write, server)
    print('note the checks took %.1f s' % (time.time() - t))
    return tally.summary('lab-v4-deleg')


if __name__ == '__main__':
    sys.exit(main())
