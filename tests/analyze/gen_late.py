#!/usr/bin/env python3
"""gen_late.py NFSGEN NFSCOPE - replies that come before their call.

Two generator scenarios (tests/gen, independent of nfscope) with the
generator's per-operation ground truth (--ops-truth), analysed by
`nfscope report --json`:

- late-calls: TCP WRITEs whose segment before the last is not captured and
  whose reply comes 50-150 us later, before the capture gives the hole up
  (200 us or 8 frames after it): the call is delivered after its reply.
  Every op must be answered with the latency the generator set (reply time
  minus call time, exactly), the replies held and matched, none orphaned.
- skew: replies stamped 1 us to 20 ms before their call, written to the file
  call first or reply first.  Within the documented tolerance (5 ms) an op
  is answered with latency 0 (the engine clamps a negative latency), beyond
  it unanswered and its reply counted as not fitting (orphan or mismatch);
  every use of the tolerance is counted.
"""
import json
import os
import subprocess
import sys
from collections import defaultdict

NFSCOPE = sys.argv[2]
SKEW_NS = 5000000          # README, "Replies must fit their call"
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally  # noqa: E402
from tally import check  # noqa: E402
import gen_scenarios  # noqa: E402
from gen_scenarios import eq  # noqa: E402


def run(name, gen_args):
    """gen_scenarios.run, plus the summary of `dump --json`."""
    truth, rep = gen_scenarios.run(name, gen_args)
    pcap = os.path.join(gen_scenarios.TMP, name + ".pcap")
    dump = subprocess.run([NFSCOPE, "dump", "-r", pcap, "--json"], check=True,
                          stdout=subprocess.PIPE).stdout.splitlines()
    return truth, rep, json.loads(dump[-1])["summary"]


def check_lat(h, vals, what):
    """Exact count, min, max and sum (the percentiles are gen_scenarios'
    business)."""
    eq(h["count"], len(vals), what + " count")
    if vals:
        eq(h.get("min_ns"), min(vals), what + " min_ns")
        eq(h.get("max_ns"), max(vals), what + " max_ns")
        eq(int(h.get("sum_ns", -1)), sum(vals), what + " sum_ns")


def check_ops(tag, truth, rep, answered):
    """Totals and per-procedure latency against the truth; answered(o) says
    which ops nfscope must answer; latency max(0, reply - call)."""
    ans = [o for o in truth if answered(o)]
    tot = rep["totals"]
    eq(tot["ops"], len(truth), tag + " ops")
    eq(tot["answered"], len(ans), tag + " answered")
    eq(tot["unanswered"], len(truth) - len(ans), tag + " unanswered")
    byproc = defaultdict(list)
    for o in truth:
        byproc[o["proc"]].append(o)
    rows = {r["proc"]: r for r in rep["procedures"] if r["prog"] == 100003}
    eq(sorted(rows), sorted(byproc), tag + " procedures")
    for p, ops in sorted(byproc.items()):
        r = rows.get(p)
        if r is None:
            continue
        a = [o for o in ops if answered(o)]
        t = "%s proc %d" % (tag, p)
        eq(r["calls"], len(ops), t + " calls")
        eq(r["answered"], len(a), t + " answered")
        check_lat(r["latency_ms"], [max(0, o["reply_ns"] - o["first_call_ns"]) for o in a],
                  t + " latency")
        check_lat(r["latency_last_ms"], [max(0, o["reply_ns"] - o["last_call_ns"]) for o in a],
                  t + " latency_last")


def t_late_calls(size, delay_us, seed):
    tag = "late-calls/%d/%dus/%d" % (size, delay_us, seed)
    truth, rep, summ = run(tag.replace("/", "-"), [
        "--scenario", "late-calls", "--count", "400", "--size", str(size),
        "--delay-us", str(delay_us), "--jitter-us", "100", "--clients", "3",
        "--rate", "200", "--seed", str(seed)])
    check(all(o["answered"] for o in truth), tag + ": the generator answered every op")
    check_ops(tag, truth, rep, lambda o: True)
    d = rep["decode"]
    writes = sum(1 for o in truth if o["proc"] == 7)
    # a WRITE's reply within 200 us of the call's last segment comes before
    # the capture gives the hole up (README, TCP): held until the call comes
    late = sum(1 for o in truth if o["proc"] == 7 and o["reply_ns"] - o["first_call_ns"] < 200000)
    check(late > writes // 2, tag + ": most WRITE replies within 200 us")
    eq(d["late_held"], late, tag + " replies held")
    eq(d["late_matched"], late, tag + " held replies matched")
    eq(d["late_expired"] + d["late_over_budget"], 0, tag + " held replies lost")
    eq(d["orphan_replies"], 0, tag + " orphan replies")
    eq(summ["late_matched"], late, tag + " dump: held replies matched")
    eq(summ["replies"], len(truth), tag + " dump: replies decoded")
    eq(rep["capture"]["tcp_gaps"], writes, tag + " TCP gaps (one per WRITE)")


def t_skew(transport, seed):
    tag = "skew/%s/%d" % (transport, seed)
    truth, rep, summ = run(tag.replace("/", "-"), [
        "--scenario", "skew", "--count", "500", "--transport", transport,
        "--clients", "3", "--seed", str(seed)])
    early = [o["first_call_ns"] - o["reply_ns"] for o in truth]
    check(min(early) < 0 < max(early) and max(early) > 4 * SKEW_NS and
          any(SKEW_NS - 30000 < e <= SKEW_NS for e in early) and
          any(SKEW_NS < e < SKEW_NS + 30000 for e in early),
          tag + ": replies on both sides of the tolerance")

    def fits(o):
        return o["first_call_ns"] - o["reply_ns"] <= SKEW_NS
    check_ops(tag, truth, rep, fits)
    d = rep["decode"]
    tolerated = sum(1 for e in early if 0 < e <= SKEW_NS)
    beyond = sum(1 for e in early if e > SKEW_NS)
    eq(d["skew_tolerated"], tolerated, tag + " uses of the tolerance")
    eq(summ["skew_tolerated"], tolerated, tag + " dump: uses of the tolerance")
    eq(summ["orphan_replies"] + summ["reply_mismatch"], beyond,
       tag + " replies beyond the tolerance: orphans or mismatches")
    eq(summ["replies"], len(truth) - beyond, tag + " dump: replies decoded")
    # the half written reply first waited for its call
    eq(d["late_held"], len(truth) // 2, tag + " replies held (written first)")
    eq(d["late_matched"] + d["late_expired"], d["late_held"],
       tag + " held replies matched or timed out")


def main():
    t_late_calls(65536, 50, 1)
    t_late_calls(32768, 20, 2)
    t_late_calls(1048576, 100, 3)    # some replies after the slack: in order
    t_skew("mix", 1)
    t_skew("udp", 2)
    t_skew("tcp", 3)
    return tally.summary()


if __name__ == "__main__":
    sys.exit(main())
