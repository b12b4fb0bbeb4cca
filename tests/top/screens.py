#!/usr/bin/env python3
"""screens.py - text captures of every `nfscope top` panel, for the README.

usage: screens.py NFSCOPE PCAP [COLSxLINES] [KEYS-BEFORE]
Replays PCAP with --fast --window all in a private tmux and prints each
panel (1-7) as the terminal shows it.
"""
import subprocess
import sys
import time

nfscope, pcap = sys.argv[1:3]
x, y = (sys.argv[3] if len(sys.argv) > 3 else '100x30').split('x')
sock = 'nfscope-screens'


def tmux(*a):
    return subprocess.run(['tmux', '-L', sock] + list(a), capture_output=True,
                          text=True).stdout


tmux('kill-server')
tmux('new-session', '-d', '-x', x, '-y', y, 'env TZ=UTC %s top -r %s --fast '
     '--window all --refresh 200; sleep 60' % (nfscope, pcap))
for _ in range(100):
    if 'end of input' in tmux('capture-pane', '-p'):
        break
    time.sleep(0.2)
for k in sys.argv[4:]:
    tmux('send-keys', k)
for p in '1234567':
    tmux('send-keys', p)
    time.sleep(0.6)
    print('```\n' + tmux('capture-pane', '-p').rstrip('\n ') + '\n```\n')
tmux('kill-server')
