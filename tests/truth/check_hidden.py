#!/usr/bin/env python3
"""Header-only TCP captures (issue 15.1): records the snaplen hid.

The generator's `pipeline` scenario sends runs of large READs or WRITEs
back to back on TCP, so the record after a large one begins inside a
segment.  Its truth marks every message whose record mark was not captured
("hidden").  For snaplen 256 and 512 `report --json` must say
complete:false with incomplete.hidden, estimate the hidden calls and
replies each within 10% of the generator's count, know at least one record
per span and no more than the truth; the text report must say INCOMPLETE
with the snaplen before any section.  The full-size capture must have no
such warning.

usage: check_hidden.py NFSGEN NFSCOPE WORKDIR
"""
import json
import os
import subprocess
import sys

gen, nfscope, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
bad = 0


def fail(msg):
    global bad
    bad += 1
    print('FAIL', msg)


for size in (8192, 32768):
    for snap in (256, 512, 0):
        pcap = os.path.join(work, 'hidden-%d-%d.pcap' % (size, snap))
        truth = pcap + '.json'
        args = [gen, '--scenario', 'pipeline', '--count', '1800', '--size',
                str(size), '--seed', '3', '-o', pcap, '-t', truth]
        if snap:
            args += ['--snaplen', str(snap)]
        subprocess.run(args, check=True, stderr=subprocess.DEVNULL)
        hid = {'call': 0, 'reply': 0}
        with open(truth) as f:
            for line in f:
                m = json.loads(line)
                if m.get('hidden'):
                    hid[m['type']] += 1
        rep = json.loads(subprocess.run([nfscope, 'report', '--json', '-r',
                                         pcap], check=True, capture_output=True,
                                        text=True).stdout)
        text = subprocess.run([nfscope, 'report', '-r', pcap], check=True,
                              capture_output=True, text=True).stdout
        h = rep['incomplete']['hidden']
        first = text.split('\n==', 1)[0]
        name = 'size %d snaplen %s' % (size, snap or 'full')
        if not snap:
            if h is not None or not rep['complete'] or 'INCOMPLETE' in first:
                fail('%s: a warning on a full capture' % name)
            print('%s: no warning' % name)
            continue
        if h is None or rep['complete']:
            fail('%s: nothing said although %d calls and %d replies hid'
                 % (name, hid['call'], hid['reply']))
            continue
        print('%s: truth hidden calls %d replies %d; nfscope ~%d ~%d, '
              '%d known' % (name, hid['call'], hid['reply'], h['calls'],
                            h['replies'], h['records_known']))
        for k, t in (('calls', hid['call']), ('replies', hid['reply'])):
            if abs(h[k] - t) > 0.10 * t:
                fail('%s: %s estimate %d, truth %d' % (name, k, h[k], t))
        if not 1 <= h['records_known'] <= hid['call'] + hid['reply']:
            fail('%s: records_known %d' % (name, h['records_known']))
        # the generator answers every call: none may be called unanswered
        # (the hidden replies are 'reply not seen')
        t = rep['totals']
        if t['unanswered'] != 0 or t['reply_not_seen'] == 0:
            fail('%s: unanswered %d reply_not_seen %d' % (name, t['unanswered'],
                                                         t['reply_not_seen']))
        if h['snaplen'] != snap or h['reason'] != 'snaplen':
            fail('%s: snaplen %s reason %s' % (name, h['snaplen'], h['reason']))
        if ('INCOMPLETE: about %d calls' % h['calls']) not in first or \
                ('snaplen %d' % snap) not in first:
            fail('%s: the text does not say it first' % name)


def hidden_reply_ops(truth):
    """Operations whose call was captured and whose reply the snaplen hid
    (the generator's record of every message, 'hidden' marked)."""
    calls, replies = {}, {}
    with open(truth) as f:
        for line in f:
            m = json.loads(line)
            if m.get('type') == 'call':
                calls[(m['src'], m['sport'], m['xid'])] = m
            elif m.get('type') == 'reply':
                replies[(m['dst'], m['dport'], m['xid'])] = m
    return sum(1 for k, c in calls.items() if not c.get('hidden') and
               k in replies and replies[k].get('hidden'))


# A span still open when its flow ends (here: the end of the input, the
# last replies of a direction hidden) feeds 'reply not seen' as a closed
# span does: every unanswered operation is one whose reply was hidden.
for count, seed in ((5, 1), (5, 3), (20, 1), (20, 2), (40, 2)):
    pcap = os.path.join(work, 'hidden-end-%d-%d.pcap' % (count, seed))
    truth = pcap + '.json'
    subprocess.run([gen, '--scenario', 'pipeline', '--count', str(count),
                    '--size', '32768', '--seed', str(seed), '--snaplen',
                    '256', '-o', pcap, '-t', truth], check=True,
                   stderr=subprocess.DEVNULL)
    want = hidden_reply_ops(truth)
    e = json.loads(subprocess.run([nfscope, 'report', '--json', '-r', pcap],
                                  check=True, capture_output=True,
                                  text=True).stdout)['engine']
    name = 'hidden at the end, count %d seed %d' % (count, seed)
    if e['unanswered'] != want or e['reply_not_seen'] != want:
        fail('%s: unanswered %d reply_not_seen %d, truth %d hidden replies'
             % (name, e['unanswered'], e['reply_not_seen'], want))
    print('%s: %d replies hidden, %d not seen' % (name, want,
                                                  e['reply_not_seen']))
sys.exit(1 if bad else 0)
