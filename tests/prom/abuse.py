#!/usr/bin/env python3
"""The metrics endpoint under hostile clients (issue 32), a check per
defect, named after it, against `nfscope serve` of a capture with some
8,000 series (a scrape of some 35 MB):

- slow_readers_memory: 16 connections that send GET /metrics and never
  read, 16 that trickle a header line a second, and 180 idle
  connections from 3 addresses, reconnecting when closed, for 20 s:
  peak RSS stays under the bound the endpoint keeps (64 MiB of texts in
  flight + 3 texts + 96 MiB of slack over the RSS before), where it used
  to follow the readers (16 copies of the scrape).
- trickle_blinds_endpoint: a scrape from another address is answered,
  whole and equal to the one before, within 30 s of the abuse starting
  (generous for a loaded machine: the deadline is 5 s), and the server
  cut trickling connections before their requests ended.
- per_address_limit: of 12 connections from one address, at most 8 are
  answered.
- head_cheap: HEAD gives the scrape's Content-Length and no body.
- log_escaped_limited: hostile requests (escape bytes and forged
  "nfscope serve:" lines in the URL, bad methods, huge headers) leave no
  control byte on stderr and at most MX_LOG_BURST (5) + 2 lines of the
  server's log.
- input_cut_metric: nfscope_input_cut is 1 for a cut capture, 0 for a
  whole one.

No timing assertion: the bounds must hold at any load.  Under a
sanitizer (4th argument other than 'none') memory is the sanitizer's
(shadow, quarantine of freed blocks): RSS is not checked, and the capture
is smaller (some 2,000 series).

usage: abuse.py NFSCOPE NFSGEN WORKDIR [SANITIZE]
"""
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
import tally  # noqa: E402
from tally import check  # noqa: E402
from ports import free_port  # noqa: E402

NFSCOPE, NFSGEN, WORK = [os.path.abspath(a) for a in sys.argv[1:4]]
SANITIZED = len(sys.argv) > 4 and sys.argv[4] not in ('', 'none')
MIB = 1 << 20


def rss(pid, field='VmRSS'):
    with open('/proc/%d/status' % pid) as f:
        for line in f:
            if line.startswith(field + ':'):
                return int(line.split()[1]) * 1024
    return 0


def get(port, src='127.0.0.1', method='GET', timeout=10):
    """(status, headers, body) of one request from address src."""
    s = socket.create_connection(('127.0.0.1', port), timeout=timeout,
                                 source_address=(src, 0))
    try:
        s.sendall(('%s /metrics HTTP/1.1\r\nHost: x\r\nConnection: close'
                   '\r\n\r\n' % method).encode())
        parts = []
        while True:
            b = s.recv(1 << 20)
            if not b:
                break
            parts.append(b)
    finally:
        s.close()
    data = b''.join(parts)
    head, _, body = data.partition(b'\r\n\r\n')
    lines = head.decode(errors='replace').split('\r\n')
    status = int(lines[0].split()[1]) if lines and lines[0].startswith('HTTP/') else 0
    hdr = dict(l.split(': ', 1) for l in lines[1:] if ': ' in l)
    return status, hdr, body


def serve(capture, port, name):
    err = open(os.path.join(WORK, name + '.err'), 'wb')
    p = subprocess.Popen([NFSCOPE, 'serve', '-q', '-r', capture, '--metrics',
                          '127.0.0.1:%d' % port], stderr=err)
    return p


def until_done(port, p, bound=120):
    end = time.time() + bound
    while time.time() < end and p.poll() is None:
        try:
            st, _, body = get(port)
            if st == 200 and b'\nnfscope_input_done 1\n' in body:
                return body
        except OSError:
            pass
        time.sleep(0.3)
    return None


class Abuse:
    """Abusive clients on threads until stop()."""

    def __init__(self, port):
        self.port = port
        self.halt = threading.Event()
        self.cut_trickles = 0
        self.lock = threading.Lock()
        self.threads = []

    def conn(self, src):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.bind((src, 0))
        s.settimeout(5)
        s.connect(('127.0.0.1', self.port))
        return s

    def slow_reader(self, src):
        while not self.halt.is_set():
            try:
                s = self.conn(src)
                s.sendall(b'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n')
                self.halt.wait(3)       # never reads
                s.close()
            except OSError:
                self.halt.wait(0.2)

    def trickler(self, src):
        while not self.halt.is_set():
            try:
                s = self.conn(src)
                s.sendall(b'GET /metrics HTTP/1.1\r\n')
                for i in range(60):
                    if self.halt.wait(1):
                        break
                    s.sendall(b'X-Trickle-%d: yes\r\n' % i)
                s.close()
            except OSError:             # the server cut it
                with self.lock:
                    self.cut_trickles += 1
                self.halt.wait(0.2)

    def idler(self, src, n):
        socks = []
        while not self.halt.is_set():
            while len(socks) < n:
                try:
                    socks.append(self.conn(src))
                except OSError:
                    break
            self.halt.wait(1)
            for s in list(socks):       # closed by the server: again
                s.setblocking(False)
                try:
                    if s.recv(1) == b'':
                        socks.remove(s)
                        s.close()
                except BlockingIOError:
                    pass
                except OSError:
                    socks.remove(s)
                    s.close()
        for s in socks:
            s.close()

    def start(self):
        for i in range(16):
            self.spawn(self.slow_reader, '127.0.0.%d' % (2 + i % 2))
            self.spawn(self.trickler, '127.0.0.%d' % (4 + i % 2))
        for i in range(3):
            self.spawn(self.idler, '127.0.0.%d' % (10 + i), 60)

    def spawn(self, fn, *args):
        t = threading.Thread(target=fn, args=args, daemon=True)
        t.start()
        self.threads.append(t)

    def stop(self):
        self.halt.set()
        for t in self.threads:
            t.join(timeout=10)


def slow_readers_memory_and_trickle(port, p, first):
    base = rss(p.pid)
    bound = base + 64 * MIB + 3 * len(first) + 96 * MIB
    abuse = Abuse(port)
    t0 = time.time()
    abuse.start()
    peak, answered, scrape = 0, None, None
    while time.time() - t0 < 20:
        peak = max(peak, rss(p.pid))
        if answered is None:
            try:
                st, _, body = get(port, src='127.0.0.100', timeout=5)
                if st == 200:
                    answered, scrape = time.time() - t0, body
            except OSError:
                pass
        time.sleep(0.2)
    peak = max(peak, rss(p.pid))
    abuse.stop()
    print('abuse: RSS %.0f MiB before, peak %.0f MiB; a scrape answered '
          'after %s s' % (base / MIB, peak / MIB, answered and round(answered, 1)))
    check(p.poll() is None, 'serve survives the abuse')
    if SANITIZED:
        print('sanitizer build: peak RSS not checked')
    else:
        check(peak <= bound, 'slow_readers_memory: peak RSS %.0f MiB <= '
              '%.0f MiB (before: %.0f MiB, scrape %.1f MiB)' %
              (peak / MIB, bound / MIB, base / MIB, len(first) / MIB))
    check(answered is not None and answered <= 30 and scrape == first,
          'trickle_blinds_endpoint: a scrape answered whole during the '
          'abuse (after %s s)' % (answered and round(answered, 1)))
    check(abuse.cut_trickles > 0, 'trickle_blinds_endpoint: trickling '
          'connections cut by the server (%d)' % abuse.cut_trickles)


def per_address_limit(port):
    socks = []
    for _ in range(12):
        s = socket.create_connection(('127.0.0.1', port), timeout=10,
                                     source_address=('127.0.0.200', 0))
        socks.append(s)
    answered = 0
    for s in socks:
        try:
            s.sendall(b'HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n')
            if s.recv(64).startswith(b'HTTP/1.1 200'):
                answered += 1
        except OSError:
            pass
    for s in socks:
        s.close()
    check(1 <= answered <= 8, 'per_address_limit: %d of 12 connections '
          'from one address answered (at most 8)' % answered)


def head_cheap(port, first):
    st, hdr, body = get(port, method='HEAD')
    check(st == 200 and body == b'' and
          int(hdr.get('Content-Length', -1)) == len(first),
          'head_cheap: HEAD %d, Content-Length %s (scrape %d), body %d' %
          (st, hdr.get('Content-Length'), len(first), len(body)))


def log_escaped_limited(port):
    hostile = [b'POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc',
               b'GET /%1b[31mnfscope%20serve:%20forged%0a HTTP/1.1\r\nHost: x\r\n\r\n',
               b'BREW /\x1b[31m HTTP/1.1\r\nHost: x\r\n\r\n',
               b'GET /metrics?a=%1b%0anfscope%20serve:%20forged HTTP/1.1\r\n\r\n',
               b'GET /\x1b[2J\r\nnfscope serve: forged HTTP/1.1\r\n\r\n',
               b'GET /metrics HTTP/1.1\r\nX: ' + b'a' * 70000 + b'\r\n\r\n',
               b'\x1b[31mgarbage\r\n\r\n']
    for k in range(6):
        for r in hostile:
            try:
                s = socket.create_connection(('127.0.0.1', port), timeout=5,
                                             source_address=('127.0.0.%d' % (150 + k), 0))
                s.sendall(r)
                s.recv(100)
                s.close()
            except OSError:
                pass


def check_log(name, seconds):
    err = open(os.path.join(WORK, name + '.err'), 'rb').read()
    ctl = re.findall(rb'[\x00-\x09\x0b-\x1f\x7f]', err)
    lines = err.decode(errors='replace').splitlines()
    server = [l for l in lines if l.startswith('nfscope: metrics server: ')]
    check(not ctl, 'log_escaped_limited: no control byte on stderr (%r)' % ctl[:5])
    check(not [l for l in lines if l.startswith('nfscope serve: forged')],
          'log_escaped_limited: no forged line')
    # 5 lines a minute, and one counting those left out
    most = (5 + 1) * (int(seconds // 60) + 2)
    check(len(server) <= most, 'log_escaped_limited: %d lines of the '
          'server log in %.0f s (at most %d)' % (len(server), seconds, most))
    other = [l for l in lines if l not in server and
             not l.startswith('nfscope serve: findings are incomplete')]
    check(not other, 'only the server log on stderr: %s' % other[:3])


def input_cut_metric(pcap):
    data = open(pcap, 'rb').read()
    cut = os.path.join(WORK, 'cut.pcap')
    with open(cut, 'wb') as f:
        f.write(data[:len(data) * 2 // 3])
    for path, want in ((pcap, b'\nnfscope_input_cut 0\n'),
                       (cut, b'\nnfscope_input_cut 1\n')):
        port = free_port()
        p = serve(path, port, 'cut')
        try:
            body = until_done(port, p)
            check(body is not None and want in body,
                  'input_cut_metric: %s gives %r' % (os.path.basename(path),
                                                     want.strip()))
        finally:
            p.send_signal(signal.SIGTERM)
            p.wait(timeout=30)


def main():
    try:
        socket.create_connection(('127.0.0.1', 9), timeout=1,
                                 source_address=('127.0.0.2', 0)).close()
    except ConnectionRefusedError:
        pass
    except OSError as e:
        print('SKIP: cannot bind other loopback addresses: %s' % e)
        return 77
    if os.path.exists(WORK):
        shutil.rmtree(WORK)
    os.makedirs(WORK)
    pcap = os.path.join(WORK, 'many.pcap')
    subprocess.run([NFSGEN, '-o', pcap, '--clients',
                    '500' if SANITIZED else '2000', '--count',
                    '2000' if SANITIZED else '8000', '--mix', 'meta',
                    '--seed', '3'], check=True,
                   capture_output=True)
    port = free_port()
    t0 = time.time()
    p = serve(pcap, port, 'serve')
    try:
        first = until_done(port, p)
        print('the final scrape: %s bytes, after %.1f s' %
              (first and len(first), time.time() - t0))
        if not check(first is not None and len(first) > MIB,
                     'serve: the final scrape (%s bytes)' %
                     (first and len(first))):
            return tally.summary('abuse')
        slow_readers_memory_and_trickle(port, p, first)
        per_address_limit(port)
        head_cheap(port, first)
        log_escaped_limited(port)
        st, _, body = get(port, src='127.0.0.99')
        check(st == 200 and body == first, 'the scrape after the abuse')
    finally:
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=30)
    check_log('serve', time.time() - t0)
    small = os.path.join(WORK, 'small.pcap')
    subprocess.run([NFSGEN, '-o', small, '--count', '2000', '--seed', '3'],
                   check=True, capture_output=True)
    input_cut_metric(small)
    return tally.summary('abuse')


if __name__ == '__main__':
    sys.exit(main())
