#!/usr/bin/env python3
"""Attack: a file too big to read.  A 900 MB kept stdout beside a record
cost the self-check 1.85 GB of memory (read whole, then copied).  A file
larger than any a result set can hold (256 MiB: exec keeps at most 64 MiB
of a stream) is refused by its size, before it is read.  The file here is
sparse: it takes no disk.

usage: oversized_file_attack.py BUILD_DIR SOURCE_DIR
"""
import os
import resource
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from jbsec import (Box, args, check, copy_set, finish, first_record, fixture,
                   run, tools)


def main():
    build, source = args()
    t = tools(build)
    box = Box("bigfile")
    try:
        s = copy_set(fixture(source), os.path.join(box.inp, "set"))
        big = os.path.join(os.path.dirname(first_record(s)),
                           "rep-1.stdout.txt")
        with open(big, "wb") as f:
            f.truncate(900 << 20)
        box.seal()
        rc, out, err = run([t["report"], "--self-check", "--results", s])
        rss_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        check(rc == 1 and b"rep-1.stdout.txt: /: 943718400 bytes, more than "
              b"a file of a result set can hold (268435456); not read" in out,
              f"refused by size (exit {rc}): {out[:200]!r}")
        check(rss_kb < 200 * 1024,
              f"the self-check stayed small: max RSS {rss_kb // 1024} MiB "
              f"(reading it cost about 1800 MiB)")
        rc, out, err = run([t["report"], "--results", s, "--output",
                            box.out])
        rss2 = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        check(rc == 2 and b"rep-1.stdout.txt: 943718400 bytes, more than "
              b"the 268435456-byte limit of one file; not read" in err and
              os.listdir(box.out) == [],
              f"a report of it: refused by size, nothing written (exit {rc})"
              f" {err[:200]!r}")
        check(rss2 < 200 * 1024, f"the report stayed small: max RSS "
              f"{rss2 // 1024} MiB")
        box.check_nothing_outside("oversized file")
    finally:
        box.close()
    finish("oversized_file_attack")


if __name__ == "__main__":
    main()
