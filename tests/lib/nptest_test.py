#!/usr/bin/env python3
"""tests/lib/nptest.py itself: Checks counts and exits, run() bounds and
captures, tmpdir() removes its folder or keeps it on a failure; a fatal
Checks stops at its first failure, its scratch folder kept and named;
skip() exits 77."""
import io
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nptest  # noqa: E402


def main():
    T = nptest.Checks()
    check = T.check

    inner = nptest.Checks(stream=io.StringIO())
    check(inner.check(True, "fine") is True and inner.fails == [],
          "a holding check records nothing")
    check(inner.check(0, "broken") is False and inner.fails == ["broken"],
          "a failing check is recorded")
    check(inner.stream.getvalue() == "FAIL: broken\n",
          "one FAIL line per failed check: %r" % inner.stream.getvalue())
    check(inner.done() == 1 and "1 failure(s)" in inner.stream.getvalue(),
          "done(): exit 1 and the count after a failure")
    check(nptest.Checks(stream=io.StringIO()).done() == 0,
          "done(): exit 0 with no failure")
    loud = nptest.Checks(stream=io.StringIO(), prefix="FAIL", ok_prefix="ok  ")
    loud.check(True, "a")
    loud.check(False, "b")
    check(loud.stream.getvalue() == "ok   a\nFAIL b\n",
          "ok_prefix: a line per passed check: %r" % loud.stream.getvalue())

    rc, out, err = nptest.run([sys.executable, "-c",
                               "import sys; print('o'); "
                               "sys.stderr.write('e'); sys.exit(3)"])
    check((rc, out, err) == (3, "o\n", "e"), "run(): %r" % ((rc, out, err),))
    rc, out, _ = nptest.run([sys.executable, "-c",
                             "import sys; print(sys.stdin.read() == '')"])
    check(out == "True\n", "run(): stdin is closed: %r" % out)
    try:
        nptest.run([sys.executable, "-c", "import time; time.sleep(5)"],
                   timeout=0.3)
        check(False, "run(): the time bound is kept")
    except subprocess.TimeoutExpired:
        pass

    with nptest.tmpdir(prefix="np-nptest-") as d:
        check(os.path.isdir(d) and os.path.basename(d).startswith("np-nptest-"),
              "tmpdir(): a fresh np-* folder: %s" % d)
    check(not os.path.exists(d), "tmpdir(): removed after the block")

    quiet = nptest.Checks(stream=io.StringIO())
    with nptest.tmpdir(prefix="np-nptest-", checks=quiet) as kept:
        quiet.check(False, "inside")
    check(os.path.isdir(kept), "tmpdir(): kept after a failed check")
    os.rmdir(kept)
    try:
        with nptest.tmpdir(prefix="np-nptest-") as kept:
            raise RuntimeError("boom")
    except RuntimeError:
        pass
    check(os.path.isdir(kept), "tmpdir(): kept after an exception")
    os.rmdir(kept)
    # fatal: the first failure exits 1 at once, after the at_fail hooks,
    # naming the scratch folder it keeps; a passing done() removes it
    for fatal_fn in ("fail", "check"):
        buf = io.StringIO()
        F = nptest.Checks(stream=buf, fatal=True)
        scratch = F.scratch("np-nptest-")
        stopped = []
        F.at_fail(lambda: stopped.append(1))
        try:
            if fatal_fn == "fail":
                F.fail("first")
            else:
                F.check(False, "first")
            F.fail("second")
            check(False, "fatal %s: exits" % fatal_fn)
        except SystemExit as e:
            check(e.code == 1, "fatal %s: exit 1, got %r" % (fatal_fn, e.code))
        check(buf.getvalue() == "FAIL: first (files kept in %s)\n" % scratch,
              "fatal %s: one line naming the kept folder: %r"
              % (fatal_fn, buf.getvalue()))
        check(stopped == [1], "fatal %s: at_fail ran once" % fatal_fn)
        check(os.path.isdir(scratch), "fatal %s: scratch kept" % fatal_fn)
        os.rmdir(scratch)
    P = nptest.Checks(stream=io.StringIO(), fatal=True)
    scratch = P.scratch("np-nptest-")
    open(os.path.join(scratch, "f"), "w").close()
    check(P.done() == 0 and not os.path.exists(scratch),
          "a passing done() removes the scratch folder")
    N = nptest.Checks(stream=io.StringIO())
    scratch = N.scratch("np-nptest-")
    N.check(False, "x")
    check(N.done() == 1 and os.path.isdir(scratch),
          "a failing done() keeps the scratch folder")
    os.rmdir(scratch)

    buf = io.StringIO()
    try:
        nptest.skip("no chromium", stream=buf)
        check(False, "skip(): exits")
    except SystemExit as e:
        check(e.code == 77, "skip(): exit 77, got %r" % e.code)
    check(buf.getvalue() == "SKIP: no chromium\n", "skip(): %r" % buf.getvalue())
    return T.done("nptest: ok")


if __name__ == "__main__":
    sys.exit(main())
