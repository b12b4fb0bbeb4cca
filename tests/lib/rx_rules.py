"""rx_rules.py - what nfscope must call each scripted retransmission cause
of nfsgen's vantage scenario (tests/gen/README.md) at each end of the
link, and the causes' words: the rule table of doc/report.md
(`retransmits`), written here for the tests, not taken from nfscope.

RULES[scripted cause][end]: the JSON key of nfscope's cause (None: not a
retransmission at that end).  A lost reply is "lost call or reply" at the
client (the two look alike there) and "lost reply" at the server (its
reply went out before the resend came in); a lost call is not a
retransmission at the server at all (it saw one transmission).
WORDS[key]: the cause in the retransmits finding's evidence and on
report --html's chart.
"""

RULES = {
    'lost_call': {'client': 'lost_call_or_reply', 'server': None},
    'lost_reply': {'client': 'lost_call_or_reply', 'server': 'lost_reply'},
    'slow_server': {'client': 'slow_server', 'server': 'slow_server'},
    'short_timeout': {'client': 'client_timeout_under_usual_latency',
                      'server': 'client_timeout_under_usual_latency'},
    'lost_reply_fragment': {'client': 'lost_ip_fragments', 'server': 'lost_reply'},
    'never_answered': {'client': 'never_answered', 'server': 'never_answered'},
    'tcp_resend': {'client': 'tcp_reconnect', 'server': 'tcp_reconnect'},
}
WORDS = {'lost_reply': 'lost reply', 'lost_call_or_reply': 'lost call or reply',
         'slow_server': 'slow server',
         'client_timeout_under_usual_latency':
             "client timeout under the server's usual latency",
         'lost_ip_fragments': 'lost IP fragments', 'tcp_reconnect': 'TCP reconnect',
         'never_answered': 'never answered'}
