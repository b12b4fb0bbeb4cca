#!/usr/bin/env python3
"""Run one generator scenario: nfsgen writes a capture and its ground truth,
`nfscope dump --json` reads the capture, compare_truth.py compares the two
field by field.  With --snaplens, the capture is also cut to each snaplen
(editcap -s) and every cut is compared in partial mode: nothing printed may
be wrong.

With --sampled, the quick tier (the default; NFSCOPE_TESTS=full, as CI
sets, runs it whole) divides the generator's --count and --packets by 5.

usage: run_scenario.py NFSGEN NFSCOPE WORKDIR NAME [--snaplens] [--sampled]
                       -- NFSGEN-ARGS
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'lib'))
import testlib  # noqa: E402

COMPARE = os.path.join(HERE, 'compare_truth.py')


def run(cmd, out=None):
    """Its exit status; on a failure the tail of what it said."""
    if out:
        p = testlib.run_to(cmd, out)
    else:
        p = testlib.run(cmd, text=False, timeout=None)
    if p.returncode != 0:
        sys.stdout.write((p.stderr or p.stdout).decode(errors='replace')[-3000:])
    return p.returncode


def main():
    argv = sys.argv[1:]
    sep = argv.index('--')
    nfsgen, nfscope, work, name = argv[:4]
    opts, gen_args = argv[4:sep], argv[sep + 1:]
    if '--sampled' in opts and os.environ.get('NFSCOPE_TESTS') != 'full':
        for i, a in enumerate(gen_args[:-1]):
            if a in ('--count', '--packets'):
                gen_args[i + 1] = str(int(gen_args[i + 1]) // 5)
        print('%s: quick tier, a fifth of it (NFSCOPE_TESTS=full runs it whole)' % name)
    os.makedirs(work, exist_ok=True)
    pcap = os.path.join(work, name + '.pcap')
    truth = os.path.join(work, name + '.truth')
    dump = os.path.join(work, name + '.json')
    bad = 0
    if run([nfsgen] + gen_args + ['-o', pcap, '-t', truth]) != 0:
        print('nfsgen failed')
        return 1
    if run([nfscope, 'dump', '--json', '-r', pcap], dump) != 0:
        print('nfscope failed')
        return 1
    partial = ['--partial'] if any(a.startswith('--snaplen') for a in gen_args) else []
    p = subprocess.run([sys.executable, COMPARE, truth, dump] + partial,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    print('%s: %s' % (name, p.stdout.decode().strip().replace('\n', '\n  ')))
    bad += p.returncode != 0
    if '--snaplens' in opts:
        for snap in (64, 96, 128, 200, 256, 1500):
            cut = os.path.join(work, '%s.s%d.pcap' % (name, snap))
            cdump = cut + '.json'
            if run(['editcap', '-s', str(snap), pcap, cut]) != 0 or \
               run([nfscope, 'dump', '--json', '-r', cut], cdump) != 0:
                bad += 1
                continue
            p = subprocess.run([sys.executable, COMPARE, truth, cdump, '--partial'],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            print('%s snaplen %d: %s' % (name, snap, p.stdout.decode().strip().replace('\n', '\n  ')))
            bad += p.returncode != 0
            os.remove(cut)
            os.remove(cdump)
    for f in (pcap, truth, dump):
        os.remove(f)
    print('%d passed, %d failed' % (0 if bad else 1, 1 if bad else 0))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
