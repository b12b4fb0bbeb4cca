#!/usr/bin/env python3
"""check_demo.py - nfscope's report on the bundled lab capture
(pcaps/lab-demo.pcap, made by make_demo.sh) against the ground truth the
lab recorded beside it (pcaps/lab-demo.truth.json): the client's calls and
re-sends per procedure, the xids it re-sent, the link's drop log, the
transfer sizes, the export's caps, the COMMIT storm.  Needs no privilege.

usage: check_demo.py NFSCOPE PCAP TRUTH
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import truth  # noqa: E402


def nfscope_xids(nfscope, pcap, work):
    """Retransmitted xids from nfscope's own ops table (record -r)."""
    import sqlite3
    db = os.path.join(work, 'demo.db')
    subprocess.run([nfscope, 'record', '-r', pcap, '-w', db, '--force', '--quiet'],
                   check=True, capture_output=True)
    con = sqlite3.connect(db)
    rows = con.execute('SELECT xid, retrans FROM ops WHERE retrans > 0').fetchall()
    con.close()
    os.unlink(db)
    return {int(x): n for x, n in rows}


def main():
    nfscope, pcap, tpath = sys.argv[1:4]
    t = json.load(open(tpath))
    r = subprocess.run([nfscope, 'report', '-r', pcap, '--json'], capture_output=True,
                       text=True, check=True)
    rep = json.loads(r.stdout)
    c = truth.Checker('lab-demo')
    client, drops = t['client'], t['drops']
    truth.check_client_counts(c, rep, client)
    truth.check_sizes(c, rep, client, t['caps'], t['prefs'])
    work = os.environ.get('TMPDIR', '/tmp')
    truth.check_retrans_xids(c, nfscope_xids(nfscope, pcap, work), client, drops)
    truth.check_storms(c, rep, t['storms'])
    c.ok('the demo has retransmissions', rep['totals']['retrans'] > 0)
    for what, got, want in c.table:
        print('  %-44s nfscope %-24s truth %s' % (what, str(got)[:24], str(want)[:60]))
    if c.failures:
        print('FAIL:')
        for f in c.failures:
            print('  ' + f)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
