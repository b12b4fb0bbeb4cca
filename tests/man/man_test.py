#!/usr/bin/env python3
"""man_test.py NFSCOPE PAGE PCAP - keep the manual page nfscope(1) true.

Ground truth comes from the program and the database it writes, never from
parsing C:

  commands  every command `nfscope help` lists has a subsection
            (.SS "nfscope CMD") under COMMANDS and a line in SYNOPSIS
  help      every line `nfscope help` and `nfscope CMD --help` print fits
            80 columns, and every option of `nfscope CMD --help` begins a
            line of its own ("  --opt ARG  what", or "  -x, --long ...")
  options   every option `nfscope CMD --help` prints (short and long forms)
            is a .TP/.TQ tag in that command's subsection or in a subsection
            of options every command shares ("Capture options", or the text
            before the first subsection); every option `nfscope help` prints
            is a tag somewhere under COMMANDS
  thresholds every threshold `report --thresholds` lists is a tag under
            OUTPUT with its default and range
  schema    every table of a database `nfscope record` writes (sqlite_master)
            has a subsection under SQLITE SCHEMA named after it, and every
            column (PRAGMA table_info) is a bold word in that subsection
  keys      every key the dashboard's help lists is a .TP tag under KEY
            BINDINGS.  The help is `nfscope top --help` (a "keys:" line then
            one "  KEYS   description" line per binding, the keys separated
            by spaces, commas, "/" or "or", a description's continuation
            lines indented past the keys); if that lists none, the `?`
            screen of `nfscope top` in a detached tmux.  Skipped, with the
            reason, while `nfscope help` lists no `top`.
  render    groff -man -Tutf8 -ww prints no warning, also at 80 columns
            (MANWIDTH=80 man -l: lines of 78 ens)

Exit status 0 when every check passes.  Each failure names what is missing.
"""
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
import testlib  # noqa: E402
import tally  # noqa: E402
from tally import check  # noqa: E402

NFSCOPE, PAGE, PCAP = sys.argv[1:4]
TMP = tempfile.mkdtemp(prefix="nfscope-man-")


def run(args, **kw):
    return testlib.run(args, timeout=60, **kw)


# ------------------------------------------------------------- the page --

# Named characters of the page (\(xx, \[xx]) as plain text.
CHARS = {"aq": "'", "dq": '"', "->": "->", "<-": "<-", "em": "--",
         "en": "-", "bu": "*", "ti": "~", "ha": "^", "lq": '"', "rq": '"',
         "oq": "'", "cq": "'", "rs": "\\", "mi": "-", "hy": "-"}


def inline(text, font="R"):
    """Text with roff escapes -> [(string, font)], font one of R B I."""
    out, prev, buf, k = [], "R", [], 0

    def flush():
        if buf:
            out.append(("".join(buf), font))
            buf.clear()

    while k < len(text):
        ch = text[k]
        if ch != "\\" or k + 1 == len(text):
            buf.append(ch)
            k += 1
            continue
        e = text[k + 1]
        k += 2
        if e == "f":			# \fB \f(CW \f[BI]
            if text[k:k + 1] == "(":
                name, k = text[k + 1:k + 3], k + 3
            elif text[k:k + 1] == "[":
                end = text.index("]", k)
                name, k = text[k + 1:end], end + 1
            else:
                name, k = text[k:k + 1], k + 1
            flush()
            name = {"P": prev, "": prev, "CW": "R", "CR": "R",
                    "CB": "B", "BI": "B"}.get(name, name)
            prev, font = font, name if name in "RBI" else "R"
        elif e == "(":
            buf.append(CHARS.get(text[k:k + 2], ""))
            k += 2
        elif e == "[":
            end = text.index("]", k)
            buf.append(CHARS.get(text[k:end], ""))
            k = end + 1
        elif e == "*":			# predefined strings: dropped
            if text[k:k + 1] == "(":
                k += 3
            elif text[k:k + 1] == "[":
                k = text.index("]", k) + 1
            else:
                k += 1
        elif e == '"':			# comment to the end of the line
            break
        elif e in "-e":
            buf.append("-" if e == "-" else "\\")
        elif e in " ~0":
            buf.append(" ")
        elif e in "&|^%c)":
            pass
        else:
            buf.append(e)
    flush()
    return out


def macro_args(s):
    """Arguments of a macro line: blanks separate, "..." quote ("" = ")."""
    args, k = [], 0
    while k < len(s):
        if s[k] in " \t":
            k += 1
            continue
        if s[k] == '"':
            k += 1
            a = []
            while k < len(s):
                if s[k] == '"':
                    if s[k + 1:k + 2] == '"':
                        a.append('"')
                        k += 2
                        continue
                    k += 1
                    break
                a.append(s[k])
                k += 1
            args.append("".join(a))
        else:
            end = k
            while end < len(s) and s[end] not in " \t":
                end += 1
            args.append(s[k:end])
            k = end
    return args


ALTERNATING = {"BR": "BR", "RB": "RB", "BI": "BI", "IB": "IB", "IR": "IR",
               "RI": "RI"}


def parse_page(path):
    """The page as records {sh, ss, tag, segs} (one per text line)."""
    recs, sh, ss, tag_next, pending_font = [], "", None, False, None
    for raw in open(path, encoding="utf-8"):
        line = raw.rstrip("\n")
        if line.startswith(('.\\"', "'\\\"")) or line in (".", "'"):
            continue
        segs = None
        if line[:1] in ".'":
            m = re.match(r"[.'](\S+)\s*(.*)", line)
            if not m:
                continue
            name, args = m.group(1), macro_args(m.group(2))
            if name in ("SH", "SS"):
                title = " ".join("".join(t for t, _ in inline(a))
                                 for a in args)
                if name == "SH":
                    sh, ss = title, None
                else:
                    ss = title
                tag_next = False
                continue
            if name in ("TP", "TQ"):
                tag_next = True
                continue
            if name == "IP" and args:
                recs.append({"sh": sh, "ss": ss, "tag": True,
                             "segs": inline(args[0])})
                continue
            if name in ("B", "I", "SB", "SM"):
                font = "B" if name in ("B", "SB") else \
                    "I" if name == "I" else "R"
                if not args:
                    pending_font = font
                    continue
                segs = inline(" ".join(args), font)
            elif name in ALTERNATING:
                fonts, segs = ALTERNATING[name], []
                for j, a in enumerate(args):
                    segs += inline(a, fonts[j % 2])
            elif name == "OP" and args:
                segs = [("[", "R")] + inline(args[0], "B")
                if len(args) > 1:
                    segs += [(" ", "R")] + inline(" ".join(args[1:]), "I")
                segs.append(("]", "R"))
            elif name == "SY" and args:
                segs = inline(" ".join(args), "B")
            else:
                continue		# layout only: PP RS RE EX EE nf ad ...
        else:
            segs = inline(line, pending_font or "R")
            pending_font = None
        recs.append({"sh": sh, "ss": ss, "tag": tag_next, "segs": segs})
        tag_next = False
    return recs


def text_of(recs):
    return "\n".join("".join(t for t, _ in r["segs"]) for r in recs)


RECS = parse_page(PAGE)
SECTIONS = {r["sh"] for r in RECS}
for s in ("NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "KEY BINDINGS",
          "OUTPUT", "SQLITE SCHEMA", "EXIT STATUS", "ENVIRONMENT", "FILES",
          "EXAMPLES", "SEE ALSO"):
    check(s in SECTIONS, "section %s is missing" % s)


def in_section(sh, ss=None, anyss=False):
    return [r for r in RECS if r["sh"] == sh and (anyss or r["ss"] == ss)]


def tag_text(recs):
    return [("".join(t for t, _ in r["segs"])) for r in recs if r["tag"]]


def bold_words(recs):
    words = set()
    for r in recs:
        for t, f in r["segs"]:
            if f == "B":
                words.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", t))
    return words


# ------------------------------------------------------------ commands --

OPT_RE = re.compile(r"(?<![\w-])(--[A-Za-z0-9][A-Za-z0-9-]*|-[A-Za-z])(?![\w-])")

r = run([NFSCOPE, "help"])
check(r.returncode == 0, "nfscope help: exit %d" % r.returncode)
HELP = r.stdout
commands, in_list = [], False
for line in r.stdout.splitlines():
    if re.match(r"commands\s*:", line, re.I):
        in_list = True
        continue
    m = re.match(r"\s+([a-z][\w-]*)(\s|$)", line)
    if in_list and m:
        commands.append(m.group(1))
    elif in_list:
        in_list = False
check(len(commands) >= 3, "nfscope help lists no commands: %r" % r.stdout)
print("commands: " + " ".join(commands))

COLS = 80


def check_width(what, text):
    """No line of a usage text wider than COLS columns."""
    for n, line in enumerate(text.splitlines(), 1):
        check(len(line) <= COLS, "%s, line %d: %d columns (at most %d): %r"
              % (what, n, len(line), COLS, line))


def check_one_per_line(cmd, text, opts):
    """Every option of the usage begins a line of its own."""
    heads = set()
    for line in text.splitlines():
        m = re.match(r"\s+((?:-[A-Za-z], )?--?[A-Za-z0-9][\w-]*)", line)
        if m:
            heads.update(p.strip() for p in m.group(1).split(","))
    for o in opts:
        check(o in heads, "nfscope %s --help: %s has no line of its own "
              "(\"  %s ...  what it does\")" % (cmd, o, o))


check_width("nfscope help", HELP)

synopsis = text_of(in_section("SYNOPSIS"))
cmd_ss, shared = {}, []
for rec in in_section("COMMANDS", anyss=True):
    m = re.match(r"(?:nfscope\s+)?([a-z][\w-]*)", rec["ss"] or "")
    if m and m.group(1) in commands:
        cmd_ss.setdefault(m.group(1), []).append(rec)
    else:
        shared.append(rec)
shared_opts = set()
for t in tag_text(shared):
    shared_opts.update(OPT_RE.findall(t))

all_tags = set()
for t in tag_text(in_section("COMMANDS", anyss=True)):
    all_tags.update(OPT_RE.findall(t))
for o in sorted(set(OPT_RE.findall(HELP))):
    check(o in all_tags, "nfscope help prints %s: not a tag (.TP) under "
          "COMMANDS" % o)

for cmd in commands:
    check(cmd in cmd_ss, "COMMANDS has no subsection 'nfscope %s'" % cmd)
    check(re.search(r"\bnfscope %s\b" % re.escape(cmd), synopsis),
          "SYNOPSIS has no 'nfscope %s'" % cmd)
    h = run([NFSCOPE, cmd, "--help"])
    check(h.returncode == 0, "nfscope %s --help: exit %d" %
          (cmd, h.returncode))
    opts = sorted(set(OPT_RE.findall(h.stdout + h.stderr)))
    check_width("nfscope %s --help" % cmd, h.stdout + h.stderr)
    check_one_per_line(cmd, h.stdout, opts)
    own = set()
    for t in tag_text(cmd_ss.get(cmd, [])):
        own.update(OPT_RE.findall(t))
    for o in opts:
        check(o in own or o in shared_opts,
              "nfscope %s --help prints %s: not a tag (.TP) in 'nfscope "
              "%s' nor in the shared capture options" % (cmd, o, cmd))
    print("nfscope %s: %d options checked: %s" % (cmd, len(opts),
                                                  " ".join(opts)))
    # the other way: every option the page gives the command, in --help
    for o in sorted(own):
        check(o in opts, "the page gives 'nfscope %s' the option %s: "
              "`nfscope %s --help` does not list it" % (cmd, o, cmd))


def tag_paragraphs(recs):
    """{option: the text after its .TP tag, up to the next tag}."""
    out, cur = {}, None
    for rec in recs:
        text = "".join(t for t, _ in rec["segs"])
        if rec["tag"]:
            cur = OPT_RE.findall(text)
            for o in cur:
                out.setdefault(o, "")
            continue
        for o in cur or []:
            out[o] += " " + text
    return out


# --------------------------------------------------- budgets' defaults --
# `report --help` prints the budgets from the one table in ui/cli.c
# ("  --NAME ARG  what (default D, LO..HI)"), the numbers the program
# sets; the page must give the same default.
PARAS = tag_paragraphs(in_section("COMMANDS", anyss=True))
h = run([NFSCOPE, "report", "--help"])
budgets = re.findall(r"^\s+(--[a-z-]+) \S+\s.*\(default (\S+?), "
                     r"(\S+?)\.\.(\S+?)\)$", h.stdout, re.M)
check(len(budgets) >= 7, "report --help lists the budgets with defaults "
      "(found %d)" % len(budgets))
for opt, dflt, lo, hi in budgets:
    para = " ".join(PARAS.get(opt, "").split())
    check(re.search(r"default %s\b" % re.escape(dflt), para),
          "%s: --help says default %s; the page says: %s" % (
              opt, dflt, para[:160]))
print("budgets: %d defaults checked against the page" % len(budgets))

# Every "(default N" an option's line of any --help gives (N a number or a
# size, as the options take it) is the default the page gives that option.
ndef = 0
for cmd in commands:
    h = run([NFSCOPE, cmd, "--help"])
    for line in h.stdout.splitlines():
        m = re.match(r"\s+(?:-[A-Za-z], )?(--?[A-Za-z0-9][\w-]*)\b.*?"
                     r"\(default:? ([0-9][0-9.]*[kmgKMG]?)\b", line)
        if not m:
            continue
        opt, dflt = m.groups()
        # its own subsection's text, or (serve: "as for record") any
        para = " ".join((tag_paragraphs(cmd_ss.get(cmd, [])).get(opt, "")
                         + " " + PARAS.get(opt, "")).split())
        ndef += 1
        check(re.search(r"default %s\b" % re.escape(dflt), para),
              "nfscope %s --help: %s default %s; the page says: %s" % (
                  cmd, opt, dflt, para[:160]))
print("defaults: %d of the --help texts checked against the page" % ndef)

# ---------------------------------------------------------- thresholds --
# `report --thresholds` ("NAME  DEFAULT  LO..HI", from find_thr.c's table):
# each is a tag under OUTPUT with that default and range.


def man_num(v):
    """As the page writes a bound: 1e+09 -> 10^9, 1.07374e+09 -> 2^30,
    3.6e+06 -> 3600000; plain numbers as they are."""
    if "e+" not in v:
        return [v]
    f = float(v)
    if f == 1e9:
        return ["10^9"]
    for k in range(10, 64):
        if abs(f - 2 ** k) <= 2 ** k * 1e-5:
            return ["2^%d" % k]
    return [str(int(f))]


h = run([NFSCOPE, "report", "--thresholds"])
thr = re.findall(r"^([a-z_0-9]+)\s+(\S+)\s+(\S+)\.\.(\S+)\s*$", h.stdout,
                 re.M)
check(len(thr) >= 20, "report --thresholds lists %d thresholds" % len(thr))
out_tags = " ".join(tag_text(in_section("OUTPUT", anyss=True)))
for name, dflt, lo, hi in thr:
    want = r"\b%s \(%s; %s to %s\)" % (re.escape(name), re.escape(dflt),
                                       re.escape(man_num(lo)[0]),
                                       re.escape(man_num(hi)[0]))
    check(re.search(want, out_tags), "threshold %s (default %s, %s..%s): "
          "no tag '%s (%s; %s to %s)' under OUTPUT" % (
              name, dflt, lo, hi, name, dflt, man_num(lo)[0],
              man_num(hi)[0]))
print("thresholds: %d checked against the page" % len(thr))

# -------------------------------------------------------------- schema --

db = os.path.join(TMP, "x.db")
r = run([NFSCOPE, "record", "-r", PCAP, "-w", db])
check(r.returncode == 0 and os.path.exists(db),
      "nfscope record -r %s -w %s: exit %d %s" % (PCAP, db, r.returncode,
                                                 r.stderr))
if os.path.exists(db):
    con = sqlite3.connect(db)
    tables = [t for (t,) in con.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND "
        "name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")]
    check(tables, "the database has no tables")
    schema_ss = {r["ss"] for r in in_section("SQLITE SCHEMA", anyss=True)}
    ncols = 0
    for t in tables:
        check(t in schema_ss, "SQLITE SCHEMA has no subsection for table "
              "'%s'" % t)
        words = bold_words(in_section("SQLITE SCHEMA", t))
        for (_, col, *_rest) in con.execute("PRAGMA table_info(%s)" % t):
            ncols += 1
            check(col in words, "SQLITE SCHEMA: column %s.%s is not in "
                  "bold under '.SS %s'" % (t, col, t))
    con.close()
    print("schema: %d tables, %d columns checked" % (len(tables), ncols))

# ---------------------------------------------------------------- keys --

# Names of one key as a help text may spell it -> the page's spelling.
KEY_ALIASES = {"pageup": "pgup", "pagedown": "pgdn", "pgdown": "pgdn",
               "btab": "shift-tab", "s-tab": "shift-tab",
               "backtab": "shift-tab", "return": "enter", "ret": "enter",
               "escape": "esc", "bs": "backspace", "bksp": "backspace",
               "spc": "space", "<space>": "space", "left arrow": "left",
               "right arrow": "right", "up arrow": "up",
               "down arrow": "down"}
STOP = {"or", "and", "also", "then", "to", "keys", "key"}


def key_norm(k):
    k = k.strip()
    if len(k) == 1:
        return k			# g and G are different keys
    k = k.lower()
    return KEY_ALIASES.get(k, k)


def split_keys(col):
    """'Tab / Right', 'Up/Down, k/j', 'Home End (also g/G)', '[ ]' -> keys."""
    toks = [t for t in re.split(r"[\s,]+", col.strip()) if t]
    keys = []
    for t in toks:
        if len(t) > 1:
            t = t.strip("()")
        if not t or t.lower() in STOP:
            continue
        if t == "/":
            if len(toks) == 1:
                keys.append("/")	# the filter key itself
            continue			# else: 'Tab / Right'
        if "/" in t and len(t) > 1:
            keys += [p for p in t.split("/") if p]
        else:
            keys.append(t)
    return keys


def help_keys(text):
    """Key column of each '  KEYS<2+ blanks>description' line after a
    'keys:' line (or of the whole text when it has no such line)."""
    lines = text.splitlines()
    start = None
    for j, line in enumerate(lines):
        if re.match(r"\s*(dashboard\s+)?(keys|key bindings)\b[^:]*:?\s*$",
                    line, re.I):
            start = j + 1
            break
    body = lines[start:] if start is not None else lines
    keys, key_col = [], None
    for line in body:
        if start is not None and (not line.strip() or not line[:1].isspace()):
            break
        indent = len(line) - len(line.lstrip())
        if key_col is None:
            key_col = indent
        elif indent > key_col + 1:
            continue			# a description's continuation
        m = re.match(r"\s*(\S.*?)(?:\s{2,}|\t)\S", line)
        if m:
            keys += split_keys(m.group(1))
        elif start is not None:
            check(False, "cannot tell the keys from the description in the "
                  "help line %r (want 2 blanks between them)" % line)
    return keys


def top_screen_help():
    """The '?' screen of the dashboard, through tmux (or '' without it)."""
    if not shutil.which("tmux"):
        return ""
    env = dict(os.environ, TMUX_TMPDIR=TMP, TERM="xterm")
    env.pop("TMUX", None)
    sock = ["tmux", "-L", "nfscope-man"]
    subprocess.run(sock + ["new-session", "-d", "-x", "100", "-y", "50",
                           "%s top -r %s --fast" % (NFSCOPE, PCAP)],
                   env=env, capture_output=True, timeout=30)
    screen = ""
    try:
        time.sleep(1.5)
        subprocess.run(sock + ["send-keys", "?"], env=env,
                       capture_output=True, timeout=30)
        time.sleep(1.0)
        screen = subprocess.run(sock + ["capture-pane", "-p"], env=env,
                                capture_output=True, text=True,
                                timeout=30).stdout
    finally:
        subprocess.run(sock + ["kill-server"], env=env, capture_output=True,
                       timeout=30)
    return screen


if "top" not in commands:
    print("SKIP key bindings: `nfscope help` lists no 'top' command yet "
          "(the dashboard is not built); this check runs once it does")
else:
    h = run([NFSCOPE, "top", "--help"])
    keys, source = help_keys(h.stdout + h.stderr), "nfscope top --help"
    if not keys or not re.search(r"^\s*(keys|key bindings)\b",
                                 h.stdout + h.stderr, re.I | re.M):
        keys, source = help_keys(top_screen_help()), "the '?' screen"
    check(keys, "found no key bindings in `nfscope top --help` (a 'keys:' "
          "line followed by '  KEYS  description' lines) nor on its '?' "
          "screen")
    page_keys = set()
    for t in tag_text(in_section("KEY BINDINGS")):
        page_keys.update(key_norm(k) for k in split_keys(t))
    for k in keys:
        m = re.fullmatch(r"(\d)(?:-|\.\.)(\d)", k)
        ok = key_norm(k) in page_keys or (
            m is not None and all(str(d) in page_keys for d in
                                  range(int(m.group(1)),
                                        int(m.group(2)) + 1)))
        check(ok, "key '%s' (from %s) is not a tag in KEY BINDINGS" %
              (k, source))
    print("keys: %d checked (from %s): %s" % (len(keys), source,
                                               " ".join(keys)))

# -------------------------------------------------------------- render --

groff = shutil.which("groff")
check(groff, "groff is not installed (scripts/dev.sh deps installs "
      "groff-base)")
if groff:
    # groff's own width, and man's at MANWIDTH=80 (a line of 78 ens): a
    # word too long to break warns there
    for ll in ([], ["-rLL=78n"]):
        r = run([groff, "-man", "-Tutf8", "-ww", "-z"] + ll + [PAGE])
        check(r.returncode == 0 and not r.stderr.strip(),
              "groff -man -Tutf8 -ww %s: exit %d, warnings:\n%s" %
              (" ".join(ll), r.returncode, r.stderr))

shutil.rmtree(TMP, True)
sys.exit(tally.summary())
