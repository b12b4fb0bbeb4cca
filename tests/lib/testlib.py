"""testlib.py - the one way a Python test runs a program (tests/lib/).

run(args, ...) runs args (a list) to its end with stdout and stderr
captured, as text unless text=False (errors='replace' keeps a bad byte
as U+FFFD instead of raising), waiting at most timeout seconds (None: no
limit); other keywords (cwd, env, stdin, preexec_fn, check) go to
subprocess.run.  Returns the CompletedProcess.  A suite binds its program
once:  def run(*args): return testlib.run([NFSCOPE, *args], cwd=WORK)
"""
import subprocess


def run(args, *, timeout=300, text=True, **kw):
    return subprocess.run(list(args), capture_output=True, text=text,
                          timeout=timeout, **kw)
