#!/usr/bin/env python3
"""triage_test.py ARCHIVE RESULTS_SET - a bundle tampered with and re-tarred
by plain tar (issue 28): its one real error, the checksum mismatch, comes
first, and the entries plain tar put "out of order" are one line with
their count (they were 56 lines above it).

The set is packed, unpacked, one run's stderr file gets a line appended,
and the tree is tarred again in another order than pack's (as plain
`tar czf` does, in the folder's own order).
"""
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

ARCHIVE, SET = sys.argv[1], sys.argv[2]


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def main():
    tmp = tempfile.mkdtemp(prefix="np-triage-test-")
    try:
        b = os.path.join(tmp, "b.tar.gz")
        p = subprocess.run([ARCHIVE, "pack", SET, "-o", b],
                           capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            fail("pack: exit %d: %s" % (p.returncode, p.stderr))
        x = os.path.join(tmp, "x")
        with tarfile.open(b) as t:
            t.extractall(x, filter="tar")
        victim = None
        for d, _, files in sorted(os.walk(x)):
            for f in sorted(files):
                if f.endswith(".stderr.txt"):
                    victim = os.path.join(d, f)
                    break
            if victim:
                break
        if victim is None:
            fail("no stderr file in the set")
        with open(victim, "a") as f:
            f.write("tampered\n")
        t2 = os.path.join(tmp, "t.tar.gz")
        paths = []
        for d, dirs, files in os.walk(x):
            paths += [os.path.join(d, n) for n in dirs + files]
        # another order than pack's bytewise one (plain tar follows the
        # folder's own order): here, each folder's entries reversed
        with tarfile.open(t2, "w:gz") as t:
            for path in sorted(paths, reverse=True):
                t.add(path, arcname=os.path.relpath(path, x), recursive=False)
        p = subprocess.run([ARCHIVE, "verify", t2], capture_output=True,
                           text=True, timeout=120)
        lines = p.stderr.splitlines()
        print(p.stderr)
        if p.returncode != 1:
            fail("verify of the tampered bundle: exit %d" % p.returncode)
        if not lines or "checksum mismatch" not in lines[0]:
            fail("the checksum mismatch is the first line: %r" % lines[:3])
        order = [l for l in lines if "out of order" in l]
        if len(order) != 1 or " entries: " not in order[0]:
            fail("the out-of-order entries are one folded line, got %d "
                 "lines" % len(order))
        if len(lines) > 12:
            fail("%d lines for a handful of distinct problems" % len(lines))
        if not lines[-1].startswith("netproof-archive: ") or \
                "problem" not in lines[-1]:
            fail("the count comes last: %r" % lines[-1])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("triage_test: the checksum mismatch first, repeats folded")
    return 0


if __name__ == "__main__":
    sys.exit(main())
