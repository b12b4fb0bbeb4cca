#!/usr/bin/env python3
"""Compare `nfscope dump --json` with a generator's ground truth (NDJSON).

Messages are matched by (src, sport, dst, dport, xid, type, n) where n counts
earlier messages with the same key (retransmissions, duplicate replies).

Full mode (default): every ground-truth message not marked "lost" must be in
the dump, every field the generator recorded must equal the dump's value
(objects compared key by key for the keys the generator recorded, lists
element by element), and the dump must hold no message the generator did not
send.  Partial mode (--partial, for captures cut to a snaplen): every message
in the dump must be one the generator sent, and every field that both record
must be equal; messages may be missing (their header was not captured), fields
may be missing (cut off), but nothing printed may be wrong.

With --allow-extra-truncated (partial mode, for a cut of a real capture
compared with its full-length run), a message only the cut run shows is
accepted if its decode is 'truncated': the bytes that made the full run
reject it were not captured.

usage: compare_truth.py TRUTH.ndjson DUMP.ndjson [--partial]
       [--allow-extra-truncated] [--max-errors N]
"""
import json
import sys

# keys describing how nfscope saw the capture, not what was sent, and the
# generator's annotations (handled below, not compared as fields)
CAPTURE_KEYS = {'caplen', 'flags', 'decode', 'err_off', 'first_frame',
                'prog_name', 'proc_name', 'status_name', 'call_frame',
                'lost', 'after_gap', 'truncated', 'orphan', 'call_lost',
                'hidden'}


def expected_absent(m):
    """The generator says a correct analyzer cannot show this message:
    bytes of it were lost, it is a reply whose call was never sent, or
    every transmission of its call was lost."""
    return m.get('lost') or m.get('orphan') or m.get('call_lost')


def load(path):
    msgs, summary = [], None
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            m = json.loads(line)
            if 'summary' in m:
                summary = m['summary']
            else:
                msgs.append(m)
    return msgs, summary


def ident(m):
    return (m.get('src'), m.get('sport'), m.get('dst'), m.get('dport'),
            m.get('xid'), m.get('type'))


def keyed(msgs):
    """(src, sport, dst, dport, xid, type, frame, n).  Messages of the same
    identity completing in the same frame (a duplicate reply, an xid reused
    at once) are told apart by n, counted in order of length: both sides
    list them in stream order, but a reply's position can differ when it
    was held back behind a hole."""
    groups = {}
    for m in msgs:
        groups.setdefault(ident(m) + (m.get('frame'),), []).append(m)
    out = {}
    for k, ms in groups.items():
        ms.sort(key=lambda m: (m.get('len', 0), m.get('proc', -1)))
        for n, m in enumerate(ms):
            out[k + (n,)] = m
    return out


def v4_unknown(key, want, got):
    """NFSv4: proc is the COMPOUND's main op, 1 (COMPOUND) while it is not
    known (the snaplen cut the call before it): no wrong value."""
    return key == 'proc' and got.get('proc') == 1 and \
        want.get('proc', 0) > 1 and \
        (want.get('prog'), want.get('vers')) in ((100003, 4), (0x40000000, 1))


def diff(path, want, got, partial, errs):
    if isinstance(want, dict):
        if not isinstance(got, dict):
            errs.append('%s: want object, got %r' % (path, got))
            return
        for k, v in want.items():
            if k in CAPTURE_KEYS or k == 'lost':
                continue
            if k not in got:
                if not partial:
                    errs.append('%s.%s: missing (want %r)' % (path, k, v))
                continue
            diff(path + '.' + k, v, got[k], partial, errs)
    elif isinstance(want, list):
        if not isinstance(got, list):
            errs.append('%s: want list, got %r' % (path, got))
            return
        if len(want) != len(got) and not (partial and len(got) < len(want)):
            errs.append('%s: want %d items, got %d' % (path, len(want), len(got)))
            return
        for i, (a, b) in enumerate(zip(want, got)):
            diff('%s[%d]' % (path, i), a, b, partial, errs)
    elif want != got:
        errs.append('%s: want %r, got %r' % (path, want, got))


def main():
    argv = sys.argv[1:]
    partial = '--partial' in argv
    allow_extra_cut = '--allow-extra-truncated' in argv
    extra_cut = 0
    max_errors = 20
    if '--max-errors' in argv:
        max_errors = int(argv[argv.index('--max-errors') + 1])
    files = [a for a in argv if not a.startswith('--') and not a.isdigit()]
    truth, _ = load(files[0])
    dump, _ = load(files[1])
    t = keyed([m for m in truth if not expected_absent(m)])
    # Messages matched without their frame: those the generator says cannot
    # be shown (lost bytes, no call), and the first message after a gap
    # (how a reader picks the stream up again, and so in which frame the
    # message completes when segments around the gap are also reordered, is
    # not the generator's to say).
    loose = {}
    for k, m in t.items():
        if m.get('after_gap'):
            loose.setdefault(k[:6], []).append((k, m))
    for m in truth:
        if expected_absent(m):
            loose.setdefault(ident(m), []).append((None, m))
    d = keyed(dump)
    matched = set()
    errs = []
    compared = 0
    by_shape = 0
    for k, m in d.items():
        if k in t and k not in matched:
            matched.add(k)
            e = []
            if partial:
                # only fields both recorded: nothing printed may be wrong
                diff('msg%r' % (k,), {x: v for x, v in t[k].items()
                                      if x in m and not v4_unknown(x, t[k], m)},
                     m, True, e)
            else:
                diff('msg%r' % (k,), t[k], m, False, e)
            errs.extend(e)
            compared += 1
            continue
        cand = [c for c in loose.get(k[:6], []) if c[0] not in matched]
        holed = bool(set(m.get('flags', [])) & {'hole'})
        # a message shown with a hole is one with lost bytes; otherwise
        # prefer the first message after a gap; then the nearest frame
        cand.sort(key=lambda c: (bool(c[1].get('lost')) != holed,
                                 abs(c[1].get('frame', 0) - m.get('frame', 0))))
        if not cand:
            if allow_extra_cut and m.get('decode') == 'truncated':
                # seen only because the snaplen hid what made the full
                # capture reject it (e.g. a corrupt credential)
                extra_cut += 1
                continue
            errs.append('dump has a message the generator did not send: %r' % (k,))
            continue
        tk, a = cand[0]
        loose[k[:6]].remove(cand[0])
        if tk is not None:
            matched.add(tk)
        if m.get('call_not_seen'):
            # decoded by its shape (decode/shape.c): the generator's
            # procedure, or none recorded for an orphan; the reply's
            # fields are checked against the generator in tests/shape
            if a.get('orphan'):
                by_shape += 1
            elif (m.get('prog'), m.get('vers'), m.get('proc')) != \
                    (a.get('prog'), a.get('vers'), a.get('proc')):
                errs.append('reply by shape of another procedure: %r %r' %
                            (k, (a.get('prog'), a.get('vers'), a.get('proc'))))
            else:
                by_shape += 1
            compared += 1
        elif a.get('orphan'):
            errs.append('reply without a call in the capture was decoded: %r' % (k,))
        elif a.get('lost') and not partial and not (
                set(m.get('flags', [])) & {'hole', 'after_gap'}):
            errs.append('message with lost bytes decoded without a hole: %r' % (k,))
        elif a.get('call_lost') and 'call_frame' not in m:
            errs.append('reply decoded though its call was lost: %r' % (k,))
        else:
            skip = ('frame', 'ts', 'call_frame')
            if tk is None:
                skip += ('caplen', 'args', 'res', 'len')
            if partial and v4_unknown('proc', a, m):
                skip += ('proc',)
            e = []
            diff('msg%r' % (k,), {x: v for x, v in a.items() if x not in skip},
                 m, partial or tk is None, e)
            errs.extend(e)
            compared += 1
    missing = 0
    resync_missed = 0
    if not partial:
        # After lost bytes a reader must find the next record boundary by a
        # heuristic: the messages of a TCP direction from the first one after
        # a gap ("after_gap") up to the first one it finds may be skipped.
        # They are counted and bounded; the replies to skipped calls cannot
        # be decoded either.  Every other message must be there.
        skipped_calls = set()
        in_gap = {}
        excused = set()
        for k, m in t.items():
            flow = k[:4]
            if m.get('after_gap'):
                in_gap[flow] = True
            if k in matched:
                in_gap[flow] = False
            elif in_gap.get(flow):
                excused.add(k)
                if m.get('type') == 'call':
                    skipped_calls.add((m['dst'], m['dport'], m['src'], m['sport'], m['xid']))
        for k, m in t.items():
            if k in matched:
                continue
            if k in excused or (m.get('type') == 'reply' and (
                    m['src'], m['sport'], m['dst'], m['dport'], m['xid']) in skipped_calls):
                resync_missed += 1
                continue
            missing += 1
            errs.append('missing from dump: %r' % (k,))
        gaps = sum(1 for m in t.values() if m.get('after_gap'))
        if resync_missed > max(8, 3 * gaps):
            errs.append('%d messages around %d gaps were not found' % (
                resync_missed, gaps))
    for e in errs[:max_errors]:
        print(e)
    if len(errs) > max_errors:
        print('... %d more' % (len(errs) - max_errors))
    print('truth %d messages (%d absent by design), dump %d, compared %d, missing %d, '
          'not found after a gap %d, extra truncated %d, by shape %d, errors %d' % (
              len(truth), len(truth) - len(t), len(d), compared, missing,
              resync_missed, extra_cut, by_shape, len(errs)))
    if compared == 0 and not partial:
        print('nothing compared: refusing to pass')
        return 1
    return 1 if errs else 0


if __name__ == '__main__':
    sys.exit(main())
