"""pcaprec.py - records of a little-endian classic pcap file, counted by
the Python tests themselves (ground truth not computed by nfscope).
Imported like tally.py (tests/lib/)."""
import struct


def whole_records(data):
    """(packets, offset after the last whole record) of pcap bytes."""
    off, n = 24, 0
    while off + 16 <= len(data):
        incl = struct.unpack('<I', data[off + 8:off + 12])[0]
        if off + 16 + incl > len(data):
            break
        off += 16 + incl
        n += 1
    return n, off
