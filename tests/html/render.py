"""render.py - a page in a real browser: headless Chromium (Debian's
`chromium`) renders it to a PNG and to its DOM in one run, and collects
every console message (an error in the page, a resource it failed to
load): a page of ours logs none.  JavaScript off cannot be asked of
headless Chromium (--blink-settings=scriptEnabled=false makes
--screenshot and --dump-dom write nothing); the pages hold no script at
all, which the tests check on the DOM, so they read the same.

    ok, dom, console = render('page.html', 'out.png')

Each call starts its own browser with its own profile directory (no
state between calls), bounded by a timeout.  CHROMIUM names the binary.
"""
import os
import re
import subprocess
import tempfile

CHROMIUM = os.environ.get('CHROMIUM', 'chromium')
CONSOLE = re.compile(r':CONSOLE[:(]')


def available():
    try:
        return subprocess.run([CHROMIUM, '--version'], capture_output=True,
                              timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def render(page, png, width=1200, height=4000, timeout=120):
    """(png and DOM written, the DOM as text, console lines) of page."""
    url = 'file://' + os.path.abspath(page)
    with tempfile.TemporaryDirectory(prefix='nfscope-chromium-') as prof:
        cmd = [CHROMIUM, '--headless', '--disable-gpu', '--no-sandbox',
               '--no-first-run', '--user-data-dir=' + prof,
               '--enable-logging=stderr', '--v=0',
               '--window-size=%d,%d' % (width, height),
               '--screenshot=' + os.path.abspath(png), '--dump-dom', url]
        p = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=timeout,
                           env=dict(os.environ, DBUS_SESSION_BUS_ADDRESS=''))
    console = [l for l in p.stderr.splitlines() if CONSOLE.search(l)]
    ok = p.returncode == 0 and os.path.exists(png) and p.stdout != ''
    return ok, p.stdout, console
