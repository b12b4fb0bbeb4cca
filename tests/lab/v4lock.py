#!/usr/bin/env python3
"""v4lock.py SERVER EXPORT FILE hold SECONDS | try TIMES INTERVAL_MS

An NFSv4.0 lock client on libnfs 4.0 (ctypes: libnfs-dev is not needed):
`hold` opens FILE read-write, takes a write lock on it (nfs_lockf
F_TLOCK), prints "locked", holds it SECONDS and unlocks; `try` asks for
the same lock (F_TLOCK: a LOCK that does not wait) up to TIMES times,
INTERVAL_MS apart, until granted.  Prints one JSON line: the attempts
denied, whether it was granted, and the times (ns, CLOCK_REALTIME) of the
first attempt and of the grant: the ground truth of lab_v41.py's lock
case."""
import ctypes
import json
import os
import sys
import time

F_TLOCK, F_ULOCK = 1, 2


def main():
    server, export, path, mode = sys.argv[1:5]
    lib = ctypes.CDLL('libnfs.so.13')
    lib.nfs_init_context.restype = ctypes.c_void_p
    lib.nfs_get_error.restype = ctypes.c_char_p
    for f in ('nfs_set_version', 'nfs_mount', 'nfs_open', 'nfs_lockf',
              'nfs_get_error', 'nfs_close'):
        getattr(lib, f).argtypes = None
    nfs = ctypes.c_void_p(lib.nfs_init_context())
    if not nfs or lib.nfs_set_version(nfs, 4) != 0:
        sys.exit('libnfs: no context or no NFSv4')
    if lib.nfs_mount(nfs, server.encode(), export.encode()) != 0:
        sys.exit('mount: %s' % lib.nfs_get_error(nfs).decode())
    fh = ctypes.c_void_p()
    if lib.nfs_open(nfs, path.encode(), os.O_RDWR, ctypes.byref(fh)) != 0:
        sys.exit('open: %s' % lib.nfs_get_error(nfs).decode())
    lock = lambda op: lib.nfs_lockf(nfs, fh, ctypes.c_int(op),  # noqa: E731
                                    ctypes.c_uint64(100))  # 0 is INVAL on v4
    if mode == 'hold':
        if lock(F_TLOCK) != 0:
            sys.exit('lock: %s' % lib.nfs_get_error(nfs).decode())
        print('locked', flush=True)
        time.sleep(float(sys.argv[5]))
        lock(F_ULOCK)
        print(json.dumps({'held': True}), flush=True)
        return
    times, ivl = int(sys.argv[5]), int(sys.argv[6]) / 1000.0
    out = {'denied': 0, 'granted': False, 'first_ns': time.time_ns()}
    for _ in range(times):
        if lock(F_TLOCK) == 0:
            out.update(granted=True, granted_ns=time.time_ns())
            lock(F_ULOCK)
            break
        out['denied'] += 1
        out['error'] = lib.nfs_get_error(nfs).decode(errors='replace')
        time.sleep(ivl)
    print(json.dumps(out), flush=True)


if __name__ == '__main__':
    main()
