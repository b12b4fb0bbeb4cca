"""testlib.py - the one way a Python test runs a program (tests/lib/).

run(args, ...) runs args (a list) to its end with stdout and stderr
captured, as text unless text=False (errors='replace' keeps a bad byte
as U+FFFD instead of raising), waiting at most timeout seconds (None: no
limit); other keywords (cwd, env, stdin, preexec_fn, check) go to
subprocess.run.  Returns the CompletedProcess.  A suite binds its program
once:  def run(*args): return testlib.run([NFSCOPE, *args], cwd=WORK)

full_tier() is true in the full tier (NFSCOPE_TESTS=full, as CI runs):
a test that samples its sweep in the quick tier (the default) runs it
whole there (doc/testing.md, "Two tiers").

output(args, ...) is run() for a step the test cannot go on without: a
nonzero exit ends the test (sys.exit) with the command, its status and
stderr; returns stdout.  run_to(args, path, ...) runs args with stdout
into the file path (bytes as they come) and stderr captured as text;
returns the CompletedProcess.

live_netns(ns, tool) is the opening of the tests that replay (or capture,
tool tcpdump) onto a veth pair
in a namespace of their own: None once the namespace ns is made, or why
the test must be skipped (not root, no tool, no namespaces).
"""
import os
import shutil
import subprocess
import sys


def run(args, *, timeout=300, text=True, **kw):
    return subprocess.run(list(args), capture_output=True, text=text,
                          timeout=timeout, **kw)


def full_tier():
    return os.environ.get('NFSCOPE_TESTS') == 'full'


def output(args, *, timeout=None, **kw):
    r = run(args, timeout=timeout, **kw)
    if r.returncode != 0:
        sys.exit('%s: exit %d: %s' % (' '.join(map(str, args)), r.returncode,
                                      r.stderr))
    return r.stdout


def run_to(args, path, *, timeout=None, **kw):
    with open(path, 'wb') as f:
        return subprocess.run(list(args), stdout=f, stderr=subprocess.PIPE,
                              timeout=timeout, **kw)


def live_netns(ns, tool='tcpreplay'):
    if os.geteuid() != 0:
        return 'live capture needs root (CAP_NET_RAW)'
    if shutil.which(tool) is None:
        return 'no ' + tool
    if subprocess.run(['ip', 'netns', 'add', ns],
                      stderr=subprocess.DEVNULL).returncode:
        return 'cannot create a network namespace'
    return None
