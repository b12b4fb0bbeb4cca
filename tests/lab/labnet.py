"""labnet.py - the lab's machinery: network namespaces, the link between
them (a veth pair, or two TAP devices joined by tapfwd), nfs-ganesha with a
private rpcbind and D-Bus, and the captures (nfscope record -i and
tcpdump -w of the client's interface, and tcpdump twins at other snaplens
and at the server's end of the link where a scenario asks for them).

Every process the lab starts is remembered by PID and stopped by PID, in
reverse order of start, whatever happens (Lab is a context manager).
Nothing here reads nfscope's output: see scenarios.py for the checks.
"""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import ctypes
import time

CLIENT_IP = '10.99.0.1'
SERVER_IP = '10.99.0.2'
IFACE = 'lab0'
EXPORT_DIR = 'export'
SO_TIMESTAMPNS = getattr(socket, 'SO_TIMESTAMPNS', 35)

GANESHA_CONF = """\
NFS_CORE_PARAM {{
    Protocols = 3;
    NFS_Port = 2049;
    MNT_Port = 20048;
    Enable_NLM = false;
    Enable_RQUOTA = false;
    Bind_addr = {server};
    Enable_FULLV3_Stats = true;
}}
NFSV4 {{ Graceless = true; }}
EXPORT {{
    Export_Id = 1;
    Path = {path};
    Pseudo = /lab;
    Access_Type = RW;
    Squash = No_Root_Squash;
    SecType = sys;
    Protocols = 3;
    Transports = UDP, TCP;
    MaxRead = {maxread};
    MaxWrite = {maxwrite};
    PrefRead = {prefread};
    PrefWrite = {prefwrite};
    NFS_Commit = {nfs_commit};
    FSAL {{ Name = VFS; }}
}}
LOG {{ Default_Log_Level = EVENT; }}
"""

# A system bus of our own: the host's bus (if any) is never touched.
DBUS_CONF = """\
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path={sock}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
"""

# Runs inside `ip netns exec SERVER unshare -m`: /run is a private tmpfs so
# rpcbind's socket and ganesha's /var/run files never reach the host's.
# The last command is exec'd, so the PID the lab holds is ganesha's; only
# ganesha gets LAB_PRELOAD as its LD_PRELOAD (a slow disk, slowshim.c).
SERVER_SH = """\
set -e
mount -t tmpfs lab-run /run
mkdir -p /run/rpcbind /run/ganesha /run/dbus
dbus-daemon --config-file="$1/dbus.conf" --fork --print-pid=3 3>"$1/dbus.pid"
rpcbind -f -w & echo $! > "$1/rpcbind.pid"
for i in $(seq 50); do [ -S /run/rpcbind.sock ] && break; sleep 0.05; done
export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$1/dbus.sock"
exec env LD_PRELOAD="${LAB_PRELOAD:-}" ganesha.nfsd -F -f "$1/ganesha.conf" -L "$1/ganesha.log" -p /run/ganesha/ganesha.pid
"""

NEEDED = ['ip', 'unshare', 'ethtool', 'tcpdump', 'ganesha.nfsd', 'rpcbind',
          'dbus-daemon', 'dbus-send', 'nfs-ls', 'nfs-cp', 'nfs-cat']


class Skip(Exception):
    """The lab cannot run here for want of privilege: exit 77."""


def need_privilege():
    """Raise Skip with the reason if namespaces cannot be made."""
    if os.geteuid() != 0:
        raise Skip('the lab needs root (CAP_SYS_ADMIN for network and mount '
                   'namespaces, CAP_NET_ADMIN for TAP/veth, CAP_NET_RAW to capture)')
    probe = subprocess.run(['unshare', '-n', 'true'], capture_output=True)
    if probe.returncode != 0:
        raise Skip('cannot create a network namespace here: %s' %
                   probe.stderr.decode().strip())
    missing = [t for t in NEEDED if not shutil.which(t)]
    if missing:
        # root but no tools: that is a broken setup, not a skip
        raise RuntimeError('missing lab tools (scripts/dev.sh deps installs '
                           'them): %s' % ' '.join(missing))


def sh(*args, check=True, ns=None):
    cmd = (['ip', 'netns', 'exec', ns] if ns else []) + [str(a) for a in args]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if check and r.returncode != 0:
        raise RuntimeError('%s: %s' % (' '.join(cmd), r.stderr.strip()))
    return r.stdout


class Lab:
    """One lab instance: namespaces, link, server, captures.

    link: 'veth' or 'tap'; impair: {'ab': spec, 'ba': spec} for tapfwd
    (ab = client to server).  caps: the export's MaxRead/MaxWrite (Pref* the
    same unless given).  nfs_commit: the export's NFS_Commit (ganesha
    4.3's nfs3_write then writes every WRITE stable and answers FILE_SYNC,
    whatever the client asked: a synchronous export).  slowdisk: ganesha
    runs with tools['slowshim'] preloaded, sleeping that many ms before
    each read, write and sync of a file (its log: slowdisk.jsonl)."""

    def __init__(self, work, tools, link='veth', impair=None, seed=1,
                 caps=(1048576, 1048576), prefs=None, snaplen=512, nfs_commit=False,
                 slowdisk=0):
        self.work = os.path.abspath(work)
        self.tools = tools
        self.link = link
        self.impair = impair or {}
        self.seed = seed
        self.caps = caps
        self.prefs = prefs or caps
        self.snaplen = snaplen
        self.nfs_commit = nfs_commit
        self.slowdisk = slowdisk
        self.shimlog = os.path.join(self.work, 'slowdisk.jsonl')
        tag = '%d' % os.getpid()
        self.cns, self.sns = 'nfl-c-' + tag, 'nfl-s-' + tag
        self.procs = []          # (name, Popen) in start order
        self.namespaces = []
        self.veth = None
        self.export = os.path.join(self.work, EXPORT_DIR)
        self.droplog = os.path.join(self.work, 'drops.jsonl')
        self.timings = {}
        self.twins = []          # (name, Popen) of the twin tcpdumps
        self.record_paused = False

    # ---------------------------------------------------------- life --
    def __enter__(self):
        # orphans of our children (rpcbind, dbus-daemon after ganesha
        # exits) come to us to be reaped, not to a PID 1 that may not reap
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
        if os.path.isdir(self.work):
            shutil.rmtree(self.work)
        os.makedirs(self.export)
        t = time.time()
        try:
            self._namespaces()
            self._link()
            self._server()
        except BaseException:
            self.close()
            raise
        self.timings['setup_s'] = time.time() - t
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        for name, p in reversed(self.procs):
            self._stop(name, p)
        self.procs = []
        for pidfile in ('rpcbind.pid', 'dbus.pid'):
            self._kill_pidfile(pidfile)
        for ns in reversed(self.namespaces):
            subprocess.run(['ip', 'netns', 'del', ns], capture_output=True)
        self.namespaces = []

    def _stop(self, name, p, sig=signal.SIGTERM, wait=10):
        if p.poll() is None:
            p.send_signal(sig)
            try:
                p.wait(wait)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    def _kill_pidfile(self, pidfile):
        """Stop a daemon that forked away from us (rpcbind, dbus-daemon): we
        are their subreaper, so they become our children and are reaped."""
        path = os.path.join(self.work, pidfile)
        try:
            pid = int(open(path).read().strip())
        except (OSError, ValueError):
            return
        os.unlink(path)
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        for _ in range(250):
            try:
                if os.waitpid(pid, os.WNOHANG)[0] == pid:
                    return
            except ChildProcessError:   # not ours after all: poll for it
                if not os.path.exists('/proc/%d' % pid):
                    return
            time.sleep(0.02)
        os.kill(pid, signal.SIGKILL)

    def start(self, name, cmd, ns=None, **kw):
        full = (['ip', 'netns', 'exec', ns] if ns else []) + [str(c) for c in cmd]
        p = subprocess.Popen(full, **kw)
        self.procs.append((name, p))
        return p

    # ---------------------------------------------------- namespaces --
    def _namespaces(self):
        for ns in (self.cns, self.sns):
            sh('ip', 'netns', 'add', ns)
            self.namespaces.append(ns)
            sh('ip', 'link', 'set', 'lo', 'up', ns=ns)
            # no IPv6 chatter (router solicitations, MLD) in the captures
            for k in ('all', 'default'):
                sh('sysctl', '-qw', 'net.ipv6.conf.%s.disable_ipv6=1' % k, ns=ns)

    def _link(self):
        if self.link == 'veth':
            sh('ip', 'link', 'add', 'nflv%d' % os.getpid(), 'netns', self.cns,
               'type', 'veth', 'peer', 'name', 'nflp%d' % os.getpid(), 'netns', self.sns)
            sh('ip', 'link', 'set', 'nflv%d' % os.getpid(), 'name', IFACE, ns=self.cns)
            sh('ip', 'link', 'set', 'nflp%d' % os.getpid(), 'name', IFACE, ns=self.sns)
        else:
            cmd = [self.tools['tapfwd'], '--ns-a', '/run/netns/' + self.cns,
                   '--dev-a', IFACE, '--ns-b', '/run/netns/' + self.sns,
                   '--dev-b', IFACE, '--seed', self.seed, '--log', self.droplog]
            for d in ('ab', 'ba'):
                if d in self.impair:
                    cmd += ['--' + d, self.impair[d]]
            p = self.start('tapfwd', cmd, stdout=subprocess.PIPE)
            if p.stdout.readline().strip() != b'ready':
                raise RuntimeError('tapfwd did not start')
        for ns, ip in ((self.cns, CLIENT_IP), (self.sns, SERVER_IP)):
            sh('ip', 'addr', 'add', ip + '/24', 'dev', IFACE, ns=ns)
            sh('ip', 'link', 'set', IFACE, 'up', ns=ns)
            self._offloads_off(ns)
        peer = {self.cns: SERVER_IP, self.sns: CLIENT_IP}
        # static neighbours: no ARP in the captures or the drop log
        for ns in (self.cns, self.sns):
            other = self.sns if ns == self.cns else self.cns
            mac = re.search(r'link/ether (\S+)', sh('ip', 'link', 'show', IFACE, ns=other))
            sh('ip', 'neigh', 'replace', peer[ns], 'lladdr', mac.group(1), 'dev', IFACE,
               'nud', 'permanent', ns=ns)

    def _offloads_off(self, ns):
        """A wire tap sees frames <= MTU with real checksums: no TSO/GSO/GRO,
        no checksum offload (LAB-NOTES)."""
        for feat in ('tso', 'gso', 'gro', 'tx', 'rx', 'sg'):
            sh('ethtool', '-K', IFACE, feat, 'off', check=False, ns=ns)
        k = sh('ethtool', '-k', IFACE, ns=ns)
        for feat in ('tcp-segmentation-offload', 'generic-segmentation-offload',
                     'generic-receive-offload', 'tx-checksumming'):
            m = re.search(r'^%s: (\w+)' % feat, k, re.M)
            if m and m.group(1) != 'off':
                raise RuntimeError('%s still on for %s in %s' % (feat, IFACE, ns))

    # -------------------------------------------------------- server --
    def _server(self):
        mr, mw = self.caps
        pr, pw = self.prefs
        with open(os.path.join(self.work, 'ganesha.conf'), 'w') as f:
            f.write(GANESHA_CONF.format(server=SERVER_IP, path=self.export, maxread=mr,
                                        maxwrite=mw, prefread=pr, prefwrite=pw,
                                        nfs_commit='true' if self.nfs_commit else 'false'))
        with open(os.path.join(self.work, 'dbus.conf'), 'w') as f:
            f.write(DBUS_CONF.format(sock=os.path.join(self.work, 'dbus.sock')))
        with open(os.path.join(self.work, 'server.sh'), 'w') as f:
            f.write(SERVER_SH)
        log = open(os.path.join(self.work, 'server.out'), 'w')
        env = dict(os.environ)
        if self.slowdisk:
            env.update(LAB_PRELOAD=os.path.abspath(self.tools['slowshim']),
                       SLOWSHIM_MS=str(self.slowdisk), SLOWSHIM_LOG=self.shimlog)
        self.ganesha = self.start('ganesha', ['unshare', '-m', '--propagation', 'private',
                                              'sh', os.path.join(self.work, 'server.sh'),
                                              self.work],
                                  ns=self.sns, stdout=log, stderr=subprocess.STDOUT, env=env)
        deadline = time.time() + 20
        glog = os.path.join(self.work, 'ganesha.log')
        while time.time() < deadline:
            if self.ganesha.poll() is not None:
                raise RuntimeError('ganesha exited: see %s' % glog)
            if os.path.exists(glog) and 'NFS SERVER INITIALIZED' in open(glog).read():
                break
            time.sleep(0.05)
        else:
            raise RuntimeError('ganesha did not start in 20 s')
        self.wait_listen(2049)

    def wait_listen(self, port):
        """Until the server's TCP port accepts (ganesha logs INITIALIZED a
        moment before its listeners are up)."""
        for _ in range(200):
            out = sh('ss', '-Hltn', 'sport = :%d' % port, ns=self.sns, check=False)
            if out.strip():
                return
            time.sleep(0.05)
        raise RuntimeError('ganesha is not listening on %d' % port)

    def ganesha_stats(self):
        """Per-procedure counts from ganesha's own statistics (FULLV3 over
        D-Bus): {proc: {'total', 'errors', 'dups', 'avg_ms', 'min_ms', 'max_ms'}}."""
        out = subprocess.run(
            ['dbus-send', '--bus=unix:path=' + os.path.join(self.work, 'dbus.sock'),
             '--print-reply', '--dest=org.ganesha.nfsd', '/org/ganesha/nfsd/ExportMgr',
             'org.ganesha.nfsd.exportstats.GetFULLV3Stats'],
            capture_output=True, text=True, check=True).stdout
        stats = {}
        for m in re.finditer(r'string "(\w+)"\s+uint64 (\d+)\s+uint64 (\d+)\s+uint64 (\d+)'
                             r'\s+double ([\d.e+-]+)\s+double ([\d.e+-]+)\s+double ([\d.e+-]+)',
                             out):
            stats['NFSv3 ' + m.group(1)] = {
                'total': int(m.group(2)), 'errors': int(m.group(3)), 'dups': int(m.group(4)),
                'avg_ms': float(m.group(5)), 'min_ms': float(m.group(6)),
                'max_ms': float(m.group(7))}
        if '"OK"' not in out:
            raise RuntimeError('ganesha stats: %s' % out)
        return stats

    # ------------------------------------------------------ captures --
    def _packet_sockets(self, ns):
        # /proc/net is per network namespace: our capture sockets there
        return len(sh('cat', '/proc/net/packet', ns=ns).splitlines()) - 1

    def _tcpdump(self, name, ns, snaplen, path):
        return self.start(name, [
            'tcpdump', '-i', IFACE, '-s', snaplen, '-B', 16384, '-n',
            # immediate: a packet waiting in a half-full ring block when
            # SIGINT comes would be counted "received" but never written
            '--immediate-mode', '-U',
            '--time-stamp-precision=nano', '-w', path], ns=ns,
            stdout=subprocess.DEVNULL, stderr=open(path + '.log', 'w'))

    def _wait_sockets(self, ns, want, procs):
        for _ in range(200):
            if self._packet_sockets(ns) >= want:
                return
            for p in procs:
                if p.poll() is not None:
                    raise RuntimeError('a capture exited: %s' % p.args)
            time.sleep(0.05)
        raise RuntimeError('the captures did not open their sockets')

    def start_captures(self, db, pcap, twins=None, pause_record=False, record_kib=16384):
        """nfscope record -i and tcpdump -w on the client's interface, both
        running before this returns.  twins (a dict {name: (end, snaplen)},
        end 'client' or 'server', snaplen 0 for whole frames; the file is
        NAME.pcap next to pcap): more tcpdumps of the same frames, at either
        end of the link, started alongside.  pause_record: record is stopped
        (SIGSTOP) as soon as its socket is open, and gets its SIGINT while
        still stopped: the whole run stays in the kernel's buffer, which
        record must read after the stop request.  record_kib: record's
        buffer (-B); whole frames at tens of MB/s on a loaded machine need
        more than tcpdump, which only writes them."""
        # Both captures must stamp a frame with the same time, or their
        # latencies differ by a few hundred ns.  The kernel stamps a frame
        # once for all packet sockets only while some socket asked for
        # receive timestamps (netstamp_needed); otherwise each socket reads
        # the clock as the frame reaches it.  Hold such a socket meanwhile.
        self.stamp_sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.stamp_sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        time.sleep(0.05)   # the kernel enables stamping from a work queue
        twins = twins or {}
        ends = {'client': self.cns, 'server': self.sns}
        before = {ns: self._packet_sockets(ns) for ns in ends.values()}
        self.tcpdump = self._tcpdump('tcpdump', self.cns, self.snaplen, pcap)
        self.record = self.start('nfscope-record', [
            self.tools['nfscope'], 'record', '-i', IFACE, '-s', self.snaplen, '-B', record_kib,
            '-w', db, '--force'], ns=self.cns,
            stdout=subprocess.DEVNULL, stderr=open(db + '.log', 'w'))
        self.twins = []
        want = {self.cns: before[self.cns] + 2, self.sns: before[self.sns]}
        for name, (end, snaplen) in sorted(twins.items()):
            path = os.path.join(os.path.dirname(pcap), name + '.pcap')
            self.twins.append((name, self._tcpdump('tcpdump-' + name, ends[end],
                                                   snaplen, path)))
            want[ends[end]] += 1
        procs = [self.tcpdump, self.record] + [p for _, p in self.twins]
        self.record_paused = pause_record
        if pause_record:
            # record creates its database once its capture is open, then
            # reads: stopped here, it is still setting up or just reading
            for _ in range(200):
                if os.path.exists(db):
                    break
                time.sleep(0.005)
            self.record.send_signal(signal.SIGSTOP)
        for ns, n in want.items():
            self._wait_sockets(ns, n, procs)
        # record creates its database after opening its capture and just
        # before reading: on a loaded machine that can take seconds
        for _ in range(400):
            if os.path.exists(db) or self.record.poll() is not None:
                break
            time.sleep(0.05)
        else:
            raise RuntimeError('the captures did not open their sockets')
        # nfscope says when its capture is active (filter set), as tcpdump
        # does; a fixed pause raced a slow start on a busy machine
        for _ in range(400):
            if 'listening on' in open(db + '.log').read():
                break
            if self.record.poll() is not None:
                raise RuntimeError('nfscope record exited: %s' %
                                   open(db + '.log').read())
            time.sleep(0.05)
        else:
            raise RuntimeError('nfscope record did not start listening')
        time.sleep(0.3)   # tcpdump's ring and filter follow its socket

    def stop_captures(self):
        time.sleep(0.3)   # the last replies reach both captures
        if self.record_paused:
            self.record.send_signal(signal.SIGINT)
            time.sleep(0.1)
            self.record.send_signal(signal.SIGCONT)
        for name, p in [('nfscope record', self.record), ('tcpdump', self.tcpdump)] + \
                self.twins:
            self._stop(name, p, signal.SIGINT)
            if p.returncode != 0:
                raise RuntimeError('%s exited %d after SIGINT' % (name, p.returncode))
        self.stamp_sock.close()

    def stop_link(self):
        """Stop tapfwd (its drop log is complete only then)."""
        for name, p in self.procs:
            if name == 'tapfwd':
                self._stop(name, p)
        return self.drops()

    def shim_log(self):
        """The slow disk's own record: {function: calls delayed}, and the
        delay in ms (slowshim.c); None without one."""
        if not self.slowdisk:
            return None
        calls = {}
        if os.path.exists(self.shimlog):
            for line in open(self.shimlog):
                fn = json.loads(line)['fn']
                calls[fn] = calls.get(fn, 0) + 1
        return {'ms': self.slowdisk, 'calls': calls}

    def drops(self):
        if self.link != 'tap':
            return {'drops': [], 'summary': {}}
        out = {'drops': [], 'summary': {}}
        for line in open(self.droplog):
            d = json.loads(line)
            if 'summary' in d:
                out['summary'][d['summary']] = d
            else:
                out['drops'].append(d)
        return out

    # ------------------------------------------------------- clients --
    def labclient(self, out, phases, proto='tcp', timeo=300, rsize=32768, wsize=32768,
                  seed=1, timeout=120, depth=8, stable='unstable', nocap=False,
                  nagle=False, pieces=1):
        """stable: what every WRITE asks (unstable, data, file); nocap: keep
        rsize/wsize above the server's rtmax/wtmax; nagle: Nagle left on,
        pieces: writes per TCP call."""
        cmd = ['timeout', timeout, self.tools['labclient'], '--server', SERVER_IP,
               '--export', self.export, '--proto', proto, '--timeo', timeo,
               '--rsize', rsize, '--wsize', wsize, '--depth', depth, '--seed', seed,
               '--stable', stable, '--nocap', int(nocap), '--nagle', int(nagle),
               '--pieces', pieces, '--out', out] + phases
        r = subprocess.run(['ip', 'netns', 'exec', self.cns] + [str(c) for c in cmd],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError('labclient failed (%d): %s' % (r.returncode, r.stderr))
        return json.load(open(out))

    def nfs_url(self, path=''):
        return 'nfs://%s%s/%s?version=3' % (SERVER_IP, self.export, path)

    def libnfs(self, tool, *args):
        """Run a libnfs utility in the client namespace (under timeout: libnfs
        4.0 can loop forever after a reset, LAB-NOTES)."""
        r = subprocess.run(['ip', 'netns', 'exec', self.cns, 'timeout', '60', tool] +
                           [str(a) for a in args], capture_output=True)
        if r.returncode != 0:
            raise RuntimeError('%s %s: %s' % (tool, ' '.join(map(str, args)),
                                               r.stderr.decode(errors='replace')))
        return r.stdout
