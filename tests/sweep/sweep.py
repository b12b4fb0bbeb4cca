#!/usr/bin/env python3
"""Snaplen sweep: one capture cut to snaplens 64, 96, 128, 200, 256, 1500 and
full (editcap -s, an independent tool), each run through `nfscope dump` in
text and JSON.  Every run must exit 0 with nothing on stderr (under the
sanitizer build a sanitizer report fails it).  Every message a cut capture
yields must be one the full capture yields, with no field that differs
(compare_truth.py --partial, the full-snaplen dump as reference).

The quick tier (the default) sweeps a capture over 4 MB (the large public
ones under ../shared) at 96, 256 and full only; NFSCOPE_TESTS=full (CI)
sweeps every snaplen of every capture.

usage: sweep.py NFSCOPE COMPARE_TRUTH_PY CAPTURE WORKDIR
"""
import bz2
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
import testlib  # noqa: E402

SNAPLENS = [64, 96, 128, 200, 256, 1500, 0]
SAMPLED = [96, 256, 0]          # the quick tier's, for large captures
LARGE = 4 << 20


def run(cmd, out):
    p = testlib.run_to(cmd, out)
    return p.returncode, p.stderr.decode(errors='replace')


def main():
    nfscope, compare, capture, work = sys.argv[1:5]
    os.makedirs(work, exist_ok=True)
    base = os.path.basename(capture)
    src = capture
    if capture.endswith('.bz2'):
        cache = os.environ.get('NFSCOPE_PCAP_CACHE') or work
        os.makedirs(cache, exist_ok=True)
        src = os.path.join(cache, base[:-4])
        if not os.path.exists(src):
            tmp = '%s.tmp%d' % (src, os.getpid())
            with bz2.open(capture, 'rb') as a, open(tmp, 'wb') as b:
                shutil.copyfileobj(a, b, 1 << 20)
            os.replace(tmp, src)
        base = base[:-4]
    bad = 0
    ran = 0
    snaplens = SNAPLENS
    if os.environ.get('NFSCOPE_TESTS') != 'full' and os.path.getsize(src) > LARGE:
        snaplens = SAMPLED
        print('%s: quick tier, snaplens %s only (NFSCOPE_TESTS=full sweeps all)'
              % (base, SAMPLED))
    full_json = os.path.join(work, base + '.full.json')
    for snap in snaplens:
        path = src
        if snap:
            path = os.path.join(work, '%s.s%d' % (base, snap))
            p = subprocess.run(['editcap', '-F', 'pcap', '-s', str(snap), src, path],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            if p.returncode != 0:
                # editcap cannot write some link types as pcap: keep pcapng
                p = subprocess.run(['editcap', '-s', str(snap), src, path],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                if p.returncode != 0:
                    print('editcap failed:', p.stderr.decode())
                    bad += 1
                    continue
        tag = 'full' if snap == 0 else 's%d' % snap
        out_txt = os.path.join(work, '%s.%s.txt' % (base, tag))
        out_json = full_json if snap == 0 else os.path.join(work, '%s.%s.json' % (base, tag))
        for cmd, out in ((['dump', '-r', path], out_txt),
                         (['dump', '--json', '-r', path], out_json)):
            rc, err = run([nfscope] + cmd, out)
            ran += 1
            if rc != 0 or err.strip():
                print('%s snaplen %s: exit %d, stderr: %s' % (base, tag, rc, err[:2000]))
                bad += 1
        if snap:
            os.remove(path)
    # field check against the full-snaplen run
    for snap in snaplens[:-1]:
        j = os.path.join(work, '%s.s%d.json' % (base, snap))
        if not os.path.exists(j) or not os.path.exists(full_json):
            continue
        p = subprocess.run([sys.executable, compare, full_json, j, '--partial',
                            '--allow-extra-truncated'],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if p.returncode != 0:
            print('%s snaplen %d differs from full:\n%s' % (base, snap, p.stdout.decode()[-3000:]))
            bad += 1
        os.remove(j)
    print('%s: %d runs, %d problems' % (base, ran, bad))
    print('%d passed, %d failed' % (0 if bad else 1, 1 if bad else 0))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
