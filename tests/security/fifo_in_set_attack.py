#!/usr/bin/env python3
"""Attack: a special file in a result set.  A FIFO (or a socket, or a
device) among a set's files was skipped in silence by the self-check of a
folder, so the set was "clean" while holding something pack refuses; an
open() of a FIFO would block.  Each is a self-check problem naming the
file, never opened.

usage: fifo_in_set_attack.py BUILD_DIR SOURCE_DIR
"""
import os
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from jbsec import (Box, args, check, copy_set, finish, first_record, fixture,
                   run, tools)


def main():
    build, source = args()
    t = tools(build)
    box = Box("fifo")
    try:
        s = copy_set(fixture(source), os.path.join(box.inp, "set"))
        cfg = os.path.dirname(first_record(s))
        os.mkfifo(os.path.join(cfg, "rep-1.stdout.txt"))
        os.mkfifo(os.path.join(s, "notes.txt"))
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.bind(os.path.join(s, "runs", "sock"))
        # a record that is a FIFO: the repetition has no record
        s2 = copy_set(fixture(source), os.path.join(box.inp, "set2"))
        r2 = first_record(s2)
        os.remove(r2)
        os.mkfifo(r2)
        box.seal()
        rc, out, err = run([t["report"], "--self-check", "--results", s],
                           timeout=30)
        check(rc == 1 and b"rep-1.stdout.txt: /: a FIFO (named pipe): a "
              b"result set holds regular files only (not opened)" in out,
              f"FIFO beside a record: exit {rc} {out[:300]!r}")
        check(b"set/notes.txt: /: a FIFO" in out,
              "FIFO at the top of the set")
        check(b"set/runs/sock: /: a socket" in out, "socket in runs/")
        rc, out, err = run([t["report"], "--self-check", "--results", s2],
                           timeout=30)
        check(rc == 1 and b"rep-1.json: /: a FIFO (named pipe)" in out and
              b"missing" in out,
              f"a record that is a FIFO: exit {rc} {out[:300]!r}")
        rc, out, err = run([t["archive"], "pack", s, "-o",
                            os.path.join(box.out, "b.tar.gz")], timeout=30)
        check(rc != 0 and not os.path.exists(os.path.join(box.out,
                                                          "b.tar.gz")),
              f"pack refuses it too (exit {rc})")
        sock.close()
        box.check_nothing_outside("special files")
    finally:
        box.close()
    finish("fifo_in_set_attack")


if __name__ == "__main__":
    main()
