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
import sys
import tarfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "lib"))
import nptest  # noqa: E402

ARCHIVE, SET = sys.argv[1], sys.argv[2]
T = nptest.Checks(fatal=True)
fail = T.fail


def main():
    with nptest.tmpdir(prefix="np-triage-test-") as tmp:
        b = os.path.join(tmp, "b.tar.gz")
        rc, _, err = nptest.run([ARCHIVE, "pack", SET, "-o", b], timeout=120)
        if rc != 0:
            fail("pack: exit %d: %s" % (rc, err))
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
        rc, _, err = nptest.run([ARCHIVE, "verify", t2], timeout=120)
        lines = err.splitlines()
        print(err)
        if rc != 1:
            fail("verify of the tampered bundle: exit %d" % rc)
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
    return T.done("triage_test: the checksum mismatch first, repeats folded")


if __name__ == "__main__":
    sys.exit(main())
