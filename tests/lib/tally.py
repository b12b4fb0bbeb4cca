"""tally.py - the Python tests' tally (tests/lib/check.h is the C one).

check(cond, what) counts cond as passed or failed, prints each failure and
returns cond; summary(label) prints the tally and returns the exit status.
tally.fails and tally.checks are the counts so far.  A script in a
directory under tests/ imports it after
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
"""

checks = 0
fails = 0


def check(cond, what):
    global checks, fails
    checks += 1
    if not cond:
        fails += 1
        print('FAILED:', what)
    return cond


def summary(label=''):
    print('%s%d checks, %d failed' % (label + ': ' if label else '', checks, fails))
    return 1 if fails else 0
