#!/usr/bin/env python3
"""Print NAME|CAPTURE|REFERENCE_TSV for every golden capture: the copies
bundled in pcaps/golden first, then the rest of ../shared/pcaps/public."""
import csv
import os
import re
import sys

local, shared = sys.argv[1], sys.argv[2]
seen = set()


def name_of(fn):
    return re.sub(r'\.(pcapng|pcap)(\.bz2)?$', '', fn)


for fn in sorted(os.listdir(local)):
    if fn.endswith(('.pcap', '.pcapng')):
        ref = os.path.join(local, fn + '.rpc.tsv')
        if os.path.exists(ref):
            print('%s|%s|%s' % (name_of(fn), os.path.join(local, fn), ref))
            seen.add(fn)
manifest = os.path.join(shared, 'public', 'MANIFEST.tsv')
if os.path.exists(manifest):
    with open(manifest) as f:
        for row in csv.DictReader(f, delimiter='\t'):
            fn = row['filename']
            if fn in seen:
                continue
            ref = os.path.join(shared, 'reference', 'tshark',
                               re.sub(r'\.bz2$', '', fn) + '.rpc.tsv')
            cap = os.path.join(shared, 'public', fn)
            if os.path.exists(cap) and os.path.exists(ref):
                print('%s|%s|%s' % (name_of(fn), cap, ref))
