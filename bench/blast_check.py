#!/usr/bin/env python3
"""blast sends exactly the frames of a capture (bench/blast.c, issue 34).

A generator capture (UDP and TCP, IPv4 and IPv6, 32 KiB READs in IP
fragments: frames of 60 to 1522 bytes) is sent twice (-n 2) by blast onto
one end of a veth pair in a network namespace of the test's own, at a
modest rate; tcpdump on the other end writes what arrives.  Checked
against the file as this script reads it (tests/lib/pcaprec.py), not as
blast counts it:

  - tcpdump's file holds the capture's frames, byte for byte, in order,
    twice over: nothing lost, added, cut or reordered;
  - blast's summary line counts those frames and bytes, 2 loops;
  - bad usage exits 2, an unknown interface or file 1, with a message.

If tcpdump says the kernel dropped frames (a loaded machine), the run
is repeated slower; no rate or time is asserted.  Needs root, network
namespaces and tcpdump (exits 77 = skipped without them).

usage: blast_check.py BLAST NFSGEN WORKDIR
"""
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'tests', 'lib'))
import pcaprec  # noqa: E402
import tally  # noqa: E402
import testlib  # noqa: E402

NS = 'nfblast-%d' % os.getpid()


def sh(*args, **kw):
    return subprocess.run(['ip', 'netns', 'exec', NS] + list(args), **kw)


def sockets():
    """Packet sockets open in the namespace."""
    out = sh('cat', '/proc/net/packet', capture_output=True, text=True).stdout
    return len(out.splitlines()) - 1


def setup():
    """The namespace and its veth pair; None, or why it cannot be made."""
    why = testlib.live_netns(NS, 'tcpdump')
    if why:
        return why
    # no frame of the kernel's own (IPv6 neighbour discovery) on the pair
    for k in ('all', 'default'):
        sh('sysctl', '-qw', 'net.ipv6.conf.%s.disable_ipv6=1' % k, check=True)
    sh('ip', 'link', 'add', 'bl0', 'type', 'veth', 'peer', 'name', 'bl1',
       check=True)
    for dev in ('bl0', 'bl1'):
        sh('ip', 'link', 'set', dev, 'mtu', '9000', 'up', check=True)
    return None


def written(path):
    """Whole frames in tcpdump's file so far."""
    try:
        with open(path, 'rb') as f:
            return pcaprec.whole_records(f.read())[0]
    except OSError:
        return 0


def capture_sent(blast, pcap, out, pps, expect):
    """blast's summary and tcpdump's drop count of one run at pps; tcpdump
    is stopped once its file holds the expect frames (or 60 s after blast
    ended: a loaded machine may take long to write them, never too
    long)."""
    if os.path.exists(out):
        os.remove(out)
    dump = subprocess.Popen(
        ['ip', 'netns', 'exec', NS, 'tcpdump', '-i', 'bl1', '-n', '-s', '0',
         '-B', '16384', '-U', '-Z', 'root', '-w', out, '--immediate-mode'],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        end = time.time() + 15
        while sockets() < 1 and time.time() < end:
            time.sleep(0.05)
        time.sleep(0.5)
        p = sh(blast, '-q', '-r', str(pps), '-n', '2', 'bl0', pcap,
               capture_output=True, text=True)
        end = time.time() + 60
        while written(out) < expect and time.time() < end:
            time.sleep(0.1)
        time.sleep(0.2)                 # anything more would show as extra
        dump.send_signal(signal.SIGINT)
        err = dump.communicate(timeout=30)[1]
    finally:
        if dump.poll() is None:
            dump.kill()
            dump.wait()
    m = re.search(r'(\d+) packets? dropped by kernel', err)
    return p, int(m.group(1)) if m else -1


def check_usage(blast, pcap):
    for args, want, what in (([], 2, 'usage'), (['-b', '0', 'bl0', pcap], 2, 'usage'),
                             (['nosuchif9', pcap], 1, 'nosuchif9'),
                             (['bl0', pcap + '.none'], 1, '.none')):
        p = sh(blast, *args, capture_output=True, text=True)
        tally.check(p.returncode == want and what in p.stderr,
                    'blast %s: exit %d (want %d), stderr %r'
                    % (' '.join(args), p.returncode, want, p.stderr))


def main():
    blast, nfsgen, work = sys.argv[1:4]
    why = setup()
    if why:
        print('SKIP: ' + why)
        return 77
    try:
        os.makedirs(work, exist_ok=True)
        pcap = os.path.join(work, 'mix.pcap')
        out = os.path.join(work, 'got.pcap')
        subprocess.run([nfsgen, '--mix', 'all', '--size', '32768',
                        '--transport', 'mix', '--ip', 'mix', '--clients', '4',
                        '--servers', '2', '--count', '200', '--seed', '5',
                        '-o', pcap], check=True, capture_output=True)
        want = [d for _, d, _ in pcaprec.read_pcap(pcap)[1]]
        for pps in (5000, 1000, 200):   # slower if tcpdump's kernel dropped
            p, dropped = capture_sent(blast, pcap, out, pps, 2 * len(want))
            if dropped == 0:
                break
            print('tcpdump: %d dropped at %d frames/s: again slower' % (dropped, pps))
        print('blast: ' + p.stdout.strip())
        tally.check(p.returncode == 0, 'blast exited %d: %s' % (p.returncode, p.stderr))
        got = [d for _, d, _ in pcaprec.read_pcap(out)[1]]
        print('frames %d (%d bytes) x 2, tcpdump read back %d'
              % (len(want), sum(map(len, want)), len(got)))
        first = next((k for k, (a, b) in enumerate(zip(got, want + want))
                      if a != b), min(len(got), 2 * len(want)))
        tally.check(got == want + want,
                    'frames read back differ from the file twice over '
                    '(%d against %d; first difference at frame %d)'
                    % (len(got), 2 * len(want), first + 1))
        m = re.match(r'sent (\d+) frames (\d+) bytes .* (\d+) loops', p.stdout)
        tally.check(m is not None and
                    (int(m.group(1)), int(m.group(2)), int(m.group(3))) ==
                    (2 * len(want), 2 * sum(map(len, want)), 2),
                    'summary %r: not %d frames, %d bytes, 2 loops'
                    % (p.stdout, 2 * len(want), 2 * sum(map(len, want))))
        check_usage(blast, pcap)
    finally:
        subprocess.run(['ip', 'netns', 'del', NS])
    return tally.summary('blast_frames')


if __name__ == '__main__':
    sys.exit(main())
