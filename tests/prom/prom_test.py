#!/usr/bin/env python3
"""nfscope serve scraped by a real Prometheus server (issue 19).

The test starts Prometheus on 127.0.0.1 with its own configuration
(scrape interval 1 s) and data directory, then `nfscope serve -r -
--metrics 127.0.0.1:PORT` fed the capture through a pipe in pieces over
a few seconds (so the counters rise while Prometheus scrapes), waits
until Prometheus holds the final values, and compares what its HTTP API
answers with `nfscope report --json` of the same capture:

  - sum by (op) of every counter (ops, answered, errors, retransmissions,
    duplicate replies, wire and data bytes) equals the report's figure;
  - findings by kind, packets read;
  - rate(nfscope_ops_total[1m]) is positive and no more than the total;
  - histogram_quantile(0.99, ...) per procedure with 100 calls or more
    lies in the bucket (2^k ns edges) that holds the report's p99 (whose
    own error is 1/256).

Every query of doc/grafana-dashboard.json (its variables replaced) must
be accepted by that Prometheus and answer; promtool accepts
doc/prometheus.yml.

Skipped (exit 77) only when the prometheus binary is absent.  Kills only
the processes it started.

With `live NFSGEN` (root; 77 without it or without tcpreplay): `serve -i
lo --duration 10 -w DB --metrics`, then `record -i lo -w DB --metrics`, in
a network namespace of its own while tcpreplay plays a generator capture
(whole UDP packets: CAPTURE was cut by its snaplen and cannot be
replayed) onto its lo: serve's final operations by op equal the report of
the file and its stored run; what record serves is in the run it stores.

With `top`: `top -r CAPTURE --fast --metrics` in tmux, its endpoint
scraped over HTTP and compared by op with `report --json`; then `serve
--metrics-max 5` (the series budget: series, dropped keys, "other").

usage: prom_test.py NFSCOPE CAPTURE WORKDIR DOCDIR [live NFSGEN | top]
"""
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from ports import free_port  # noqa: E402
import tally  # noqa: E402
from tally import check  # noqa: E402

NFSCOPE, CAPTURE, WORK, DOC = sys.argv[1:5]


def query(prom, q):
    url = 'http://%s/api/v1/query?%s' % (prom, urllib.parse.urlencode({'query': q}))
    with urllib.request.urlopen(url, timeout=5) as r:
        d = json.load(r)
    if d.get('status') != 'success':
        raise RuntimeError('%s: %s' % (q, d))
    return d['data']['result']


def by_label(prom, q, label):
    return {r['metric'].get(label, ''): float(r['value'][1]) for r in query(prom, q)}


def scalar(prom, q):
    res = query(prom, q)
    return float(res[0]['value'][1]) if res else None


def report_json(capture):
    return json.loads(subprocess.run([NFSCOPE, 'report', '--json', '-r', capture],
                                     capture_output=True, check=True,
                                     timeout=60).stdout)


def feed(proc, data, pieces=4, pause=0.8):
    step = (len(data) + pieces - 1) // pieces
    for k in range(pieces):
        proc.stdin.write(data[k * step:(k + 1) * step])
        proc.stdin.flush()
        time.sleep(pause)
    proc.stdin.close()


def main():
    prom_bin = shutil.which('prometheus')
    if prom_bin is None:
        print('SKIP: the prometheus binary is not installed '
              '(apt-get install prometheus; scripts/dev.sh deps)')
        return 77
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    rep = report_json(CAPTURE)
    mport, pport = free_port(), free_port()
    target = '127.0.0.1:%d' % mport
    prom = '127.0.0.1:%d' % pport
    cfg = os.path.join(WORK, 'prometheus.yml')
    with open(cfg, 'w') as f:
        f.write('global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n'
                '  evaluation_interval: 1s\n'
                'scrape_configs:\n  - job_name: nfscope\n'
                '    static_configs:\n      - targets: ["%s"]\n' % target)
    plog = open(os.path.join(WORK, 'prometheus.log'), 'w')
    pserver = subprocess.Popen(
        [prom_bin, '--config.file=' + cfg,
         '--storage.tsdb.path=' + os.path.join(WORK, 'data'),
         '--web.listen-address=' + prom, '--log.level=warn'],
        stdout=plog, stderr=plog)
    serve = None
    try:
        for _ in range(100):	# Prometheus ready (at most 10 s)
            try:
                urllib.request.urlopen('http://%s/-/ready' % prom, timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        serve = subprocess.Popen([NFSCOPE, 'serve', '-r', '-', '--metrics', target],
                                 stdin=subprocess.PIPE,
                                 stderr=open(os.path.join(WORK, 'serve.err'), 'w'))
        # serve opens its endpoint once it has read the pcap header; the
        # first scrape waits for service discovery (up to 5 s): feed the
        # packets once Prometheus scrapes, so the counters rise under it
        with open(CAPTURE, 'rb') as f:
            data = f.read()
        serve.stdin.write(data[:24])
        serve.stdin.flush()
        up = None
        for _ in range(150):
            up = scalar(prom, 'up{job="nfscope"}')
            if up == 1:
                break
            time.sleep(0.1)
        check(up == 1, 'Prometheus scrapes serve (up == 1)')
        feed(serve, data[24:], pieces=4, pause=1.0)
        total = rep['totals']['ops']
        got = None
        for _ in range(150):	# the final values scraped (at most 15 s)
            got = scalar(prom, 'sum(nfscope_ops_total)')
            if got == total and scalar(prom, 'max(nfscope_input_done)') == 1:
                break
            time.sleep(0.1)
        check(got == total, 'sum(nfscope_ops_total) %s == report ops %d' % (got, total))
        compare(prom, rep)
        dashboard(prom)
        serve.send_signal(signal.SIGTERM)
        check(serve.wait(timeout=10) == 0, 'serve ends with status 0 on SIGTERM')
    finally:
        for p in (serve, pserver):
            if p is not None and p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
    return tally.summary()


def dashboard(prom):
    with open(os.path.join(DOC, 'grafana-dashboard.json')) as f:
        dash = json.load(f)
    n = 0
    for panel in dash['panels']:
        for t in panel['targets']:
            e = t['expr'].replace('$__rate_interval', '1m').replace('$__range', '1h')
            for v in ('op', 'client', 'server'):
                e = e.replace('$' + v, '.*')
            try:
                res = query(prom, e)
            except (OSError, RuntimeError) as x:
                res = None
                print(x)
            check(bool(res), 'dashboard query answers: %s' % e[:90])
            n += 1
    check(n >= 8, '%d dashboard queries' % n)
    promtool = shutil.which('promtool')
    if promtool:
        r = subprocess.run([promtool, 'check', 'config',
                            os.path.join(DOC, 'prometheus.yml')],
                           capture_output=True, text=True, timeout=30)
        check(r.returncode == 0, 'promtool check config doc/prometheus.yml')


# each counter and the report's figure it equals, per procedure
FIELDS = [('nfscope_ops_total', 'calls'), ('nfscope_answered_total', 'answered'),
          ('nfscope_unanswered_total', 'unanswered'),
          ('nfscope_errors_total', 'errors'),
          ('nfscope_retransmissions_total', 'retrans'),
          ('nfscope_duplicate_replies_total', 'dup_replies'),
          ('nfscope_wire_bytes_total', 'bytes'),
          ('nfscope_data_bytes_total', 'data_bytes')]


def compare(prom, rep):
    procs = {p['procedure']: p for p in rep['procedures']}
    for metric, key in FIELDS:
        got = by_label(prom, 'sum by (op) (%s)' % metric, 'op')
        want = {name: float(p[key]) for name, p in procs.items()}
        # a procedure with no errors has no errors series
        got = {k: v for k, v in got.items() if v or k in want}
        want = {k: v for k, v in want.items() if v or k in got}
        check(got == want, '%s by op == report %s (%d procedures)'
              % (metric, key, len(want)))
    # prog, vers and proc beside op (issue 31): op is "PROGvVERS PROC"
    parts = query(prom, 'sum by (op, prog, vers, proc) (nfscope_ops_total)')
    bad = [r['metric'] for r in parts if r['metric'].get('op') !=
           '%sv%s %s' % tuple(r['metric'].get(k) for k in ('prog', 'vers', 'proc'))]
    check(parts and not bad, 'op == "{prog}v{vers} {proc}" in every series '
          '(%d; %s)' % (len(parts), bad[:3]))
    got = by_label(prom, 'sum by (proc) (nfscope_ops_total{prog="NFS",vers="3"})', 'proc')
    want = {name.split(' ', 1)[1]: float(p['calls']) for name, p in procs.items()
            if name.startswith('NFSv3 ') and p['calls']}
    check({k: v for k, v in got.items() if v} == want,
          'nfscope_ops_total by proc{prog="NFS",vers="3"} == report calls')
    kinds = {}
    for x in rep['findings']:
        kinds[x['kind']] = kinds.get(x['kind'], 0) + 1
    got = {k: v for k, v in by_label(prom, 'nfscope_findings_total', 'kind').items() if v}
    check(got == {k: float(v) for k, v in kinds.items()},
          'findings by kind %s == report %s' % (got, kinds))
    pk = scalar(prom, 'nfscope_packets_total')
    check(pk == rep['capture']['packets'], 'packets %s == %d' % (pk, rep['capture']['packets']))
    rate = scalar(prom, 'sum(rate(nfscope_ops_total[1m]))')
    check(rate is not None and 0 < rate <= rep['totals']['ops'],
          'rate(nfscope_ops_total[1m]) %s in (0, %d]' % (rate, rep['totals']['ops']))
    nq = 0
    for name, p in procs.items():
        if p['calls'] < 100 or p['latency_ms']['count'] == 0:
            continue
        q = scalar(prom, 'histogram_quantile(0.99, sum by (le) '
                   '(nfscope_latency_seconds_bucket{op="%s"}))' % name)
        want = p['latency_ms']['p99'] / 1e3
        # the bucket (lo, hi] that holds q: edges 2^k ns, k = 13..35
        k = max(13, math.ceil(math.log2(q * 1e9) - 1e-9))
        hi, lo = 2.0 ** k / 1e9, (2.0 ** (k - 1) / 1e9 if k > 13 else 0)
        ok = lo * (1 - 1 / 256) <= want <= hi * (1 + 1 / 256)
        check(ok, 'histogram_quantile(0.99) %s: %.6g s, bucket (%.6g, %.6g] '
              'holds the report p99 %.6g s' % (name, q, lo, hi, want))
        nq += 1
    check(nq >= 3, '%d procedures compared by quantile' % nq)


def scrape_in(ns, target):
    """The exposition text, fetched from inside namespace ns."""
    code = ('import sys, urllib.request; sys.stdout.write(urllib.request.urlopen('
            '"http://%s/metrics", timeout=5).read().decode())' % target)
    return subprocess.run(['ip', 'netns', 'exec', ns, sys.executable, '-c', code],
                          capture_output=True, text=True, timeout=30).stdout


def ops_by_op(text):
    out = {}
    for line in text.splitlines():
        if line.startswith('nfscope_ops_total{'):
            op = line.split('op="', 1)[1].split('"', 1)[0]
            out[op] = out.get(op, 0) + int(line.rsplit(' ', 1)[1])
    return out


def live_run(ns, target, pcap, want, cmd):
    """serve: --duration ends the capture, every op is delivered and the
    final figures stay served: they must equal the file's report (unless
    the kernel dropped packets, which the endpoint must then say), and
    the stored run.  record: what it serves while running is in the run
    it stores, operation for operation or fewer."""
    db = os.path.join(WORK, cmd + '.db')
    err = open(os.path.join(WORK, cmd + '.err'), 'w')
    args = ['--duration', '10'] if cmd == 'serve' else []
    proc = subprocess.Popen(['ip', 'netns', 'exec', ns, NFSCOPE, cmd, '-i', 'lo', '-w', db,
                             '--metrics', target] + args + ['not port 9464'], stderr=err)
    try:
        text = ''
        for _ in range(100):
            time.sleep(0.1)
            text = scrape_in(ns, target)
            if '\nnfscope_input_done 0\n' in text:
                break
        check('\nnfscope_input_done 0\n' in text, '%s -i lo serves its metrics' % cmd)
        time.sleep(1)	# the capture is active
        subprocess.run(['ip', 'netns', 'exec', ns, 'tcpreplay', '-q', '-i', 'lo',
                        '--pps=1500', pcap], check=True, capture_output=True)
        for _ in range(60 if cmd == 'serve' else 20):
            time.sleep(0.25)
            text = scrape_in(ns, target)
            if '\nnfscope_input_done 1\n' in text:
                break
        got = ops_by_op(text)
        drops = [l for l in text.splitlines() if l.startswith('nfscope_kernel_drops_total ')]
        print(cmd, drops)
        if cmd == 'serve':
            check('\nnfscope_input_done 1\n' in text, 'serve: input done after --duration')
            check(got == want or drops != ['nfscope_kernel_drops_total 0'],
                  'serve -i: nfscope_ops_total by op %s == report of the file '
                  '(or drops said)' % (got if got != want else len(want)))
        else:
            check(sum(got.values()) > 0, 'record -i: operations served while it runs')
        proc.send_signal(signal.SIGTERM)
        check(proc.wait(timeout=30) == 0, '%s ends with status 0 on SIGTERM' % cmd)
        r = json.loads(subprocess.run([NFSCOPE, 'report', '--json', db],
                                      capture_output=True, timeout=60).stdout)
        stored = {p['procedure']: p['calls'] for p in r['procedures']}
        # record: calls still waiting for their reply when it was served
        # are stored at the end
        check(stored == got if cmd == 'serve' else
              all(stored.get(k, 0) >= v for k, v in got.items()),
              '%s: the run stored holds the operations served' % cmd)
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait()


def live():
    if os.geteuid() != 0 or shutil.which('tcpreplay') is None:
        print('SKIP: needs root and tcpreplay')
        return 77
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    pcap = os.path.join(WORK, 'gen.pcap')
    subprocess.run([sys.argv[6], '-o', pcap, '--transport', 'udp', '--mix', 'all',
                    '--count', '500', '--seed', '19', '--clients', '3',
                    '--servers', '2'], check=True, capture_output=True, timeout=60)
    rep = report_json(pcap)
    want = {p['procedure']: p['calls'] for p in rep['procedures']}
    ns = 'nfprom%d' % os.getpid()
    target = '127.0.0.1:9464'	# inside the namespace: no one else there
    if subprocess.run(['ip', 'netns', 'add', ns]).returncode:
        print('SKIP: cannot create a network namespace')
        return 77
    try:
        subprocess.run(['ip', 'netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up'],
                       check=True)
        live_run(ns, target, pcap, want, 'serve')
        live_run(ns, target, pcap, want, 'record')
    finally:
        subprocess.run(['ip', 'netns', 'del', ns])
    return tally.summary()


def parse_text(text):
    """{(name, labels): value} of an exposition text (labels as a frozenset
    of (label, value) pairs; values without escapes, as nfscope's are)."""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith('#'):
            continue
        head, value = line.rsplit(' ', 1)
        name, _, labels = head.partition('{')
        pairs = frozenset(tuple(x.split('=', 1)) for x in
                          labels.rstrip('}').replace('"', '').split(',') if x)
        out[(name, pairs)] = float(value)
    return out


def sum_by(fig, name, label):
    out = {}
    for (n, labels), v in fig.items():
        if n == name:
            k = dict(labels).get(label, '')
            out[k] = out.get(k, 0) + v
    return out


def scrape_until_done(target, proc, what, timeout=30):
    text = ''
    end = time.time() + timeout
    while time.time() < end:
        try:
            with urllib.request.urlopen('http://%s/metrics' % target, timeout=5) as r:
                text = r.read().decode()
            if '\nnfscope_input_done 1\n' in text:
                break
        except OSError:
            pass
        if proc is not None and proc.poll() is not None:
            break
        time.sleep(0.2)
    check('\nnfscope_input_done 1\n' in text, '%s serves the final figures' % what)
    return parse_text(text)


def top():
    """`top -r CAPTURE --fast --metrics` in a terminal (tmux): its endpoint
    by op equals `report --json` of the capture; then `serve --metrics-max
    5` of it: 5 series, the rest in op="other" and counted as dropped."""
    if shutil.which('tmux') is None:
        print('SKIP: tmux is not installed')
        return 77
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    rep = report_json(CAPTURE)
    procs = {p['procedure']: p for p in rep['procedures']}
    target = '127.0.0.1:%d' % free_port()
    sock = ['tmux', '-L', 'nfscope-prom-%d' % os.getpid()]
    done = os.path.join(WORK, 'top.exit')
    cmd = ('env TERM=xterm-256color TZ=UTC %s top -r %s --fast --metrics %s '
           '2>%s/top.err; echo $? >%s; sleep 600'
           % (NFSCOPE, CAPTURE, target, WORK, done))
    subprocess.run(sock + ['new-session', '-d', '-s', 'top', '-x', '110', '-y', '36',
                           cmd], check=True, timeout=10)
    try:
        fig = scrape_until_done(target, None, 'top -r --fast --metrics')
        for metric, key in FIELDS + [('nfscope_latency_seconds_count', 'answered')]:
            got = {k: v for k, v in sum_by(fig, metric, 'op').items() if v}
            want = {k: float(p[key]) for k, p in procs.items() if p[key]}
            check(got == want, 'top: %s by op == report %s (%d procedures)'
                  % (metric, key, len(want)))
        pk = fig.get(('nfscope_packets_total', frozenset()))
        check(pk == rep['capture']['packets'], 'top: packets %s == %d'
              % (pk, rep['capture']['packets']))
        kinds = {}
        for x in rep['findings']:
            kinds[x['kind']] = kinds.get(x['kind'], 0) + 1
        got = {k: v for k, v in sum_by(fig, 'nfscope_findings_total', 'kind').items() if v}
        check(got == {k: float(v) for k, v in kinds.items()},
              'top: findings by kind %s == report %s' % (got, kinds))
        nseries = fig.get(('nfscope_series', frozenset()))
        check(fig.get(('nfscope_series_dropped_total', frozenset())) == 0,
              'top: no series dropped under the default budget')
        subprocess.run(sock + ['send-keys', '-t', 'top', 'q'], timeout=10)
        for _ in range(100):
            if os.path.exists(done) and open(done).read().strip():
                break
            time.sleep(0.1)
        rc = open(done).read().strip() if os.path.exists(done) else None
        check(rc == '0', 'top ends with status 0 on q (%s)' % rc)
    finally:
        subprocess.run(sock + ['kill-server'], capture_output=True)
    # the series budget: 4 series and "other"
    target = '127.0.0.1:%d' % free_port()
    serve = subprocess.Popen([NFSCOPE, 'serve', '-r', CAPTURE, '--quiet', '--metrics',
                              target, '--metrics-max', '5'],
                             stderr=open(os.path.join(WORK, 'serve.err'), 'w'))
    try:
        cut = scrape_until_done(target, serve, 'serve --metrics-max 5')
        other = frozenset((k, 'other') for k in
                          ('op', 'prog', 'vers', 'proc', 'client', 'server'))
        one = lambda n: cut.get((n, frozenset()))
        check(one('nfscope_series') == 5 and one('nfscope_series_max') == 5,
              'serve --metrics-max 5: 5 series')
        check(nseries is not None and one('nfscope_series_dropped_total') == nseries - 4,
              'dropped keys %s == the series of top %s less 4'
              % (one('nfscope_series_dropped_total'), nseries))
        check(one('nfscope_series_overflow_ops_total') ==
              cut.get(('nfscope_ops_total', other), 0) +
              cut.get(('nfscope_from_replies_total', other), 0),
              'overflow ops == the operations of op="other"')
        check(sum(sum_by(cut, 'nfscope_ops_total', 'op').values()) == rep['totals']['ops'],
              'serve --metrics-max 5: every operation counted (%d)' % rep['totals']['ops'])
        serve.send_signal(signal.SIGTERM)
        check(serve.wait(timeout=10) == 0, 'serve ends with status 0 on SIGTERM')
    finally:
        if serve.poll() is None:
            serve.kill()
            serve.wait()
    return tally.summary()


if __name__ == '__main__':
    mode = sys.argv[5:6]
    sys.exit(live() if mode == ['live'] else top() if mode == ['top'] else main())
