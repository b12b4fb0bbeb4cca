"""ports.py - a free TCP port on 127.0.0.1 for a test's server (the
kernel's choice: bound, read, closed).  Imported like tally.py (tests/lib/)."""
import socket


def free_port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port
