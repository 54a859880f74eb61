"""nptest - what netproof's process tests (Python, under ctest) share.

A test puts this folder on its path and imports the module:

    sys.path.insert(0, os.path.join(os.path.dirname(
        os.path.abspath(__file__)), os.pardir, "lib"))
    import nptest

    T = nptest.Checks()
    check = T.check
    ...
    return T.done("name: ok")

- Checks: collects failed checks (one `FAIL: what` line each, on stdout or
  the stream given; with ok_prefix a line for each passed check too),
  `done()` prints the count and gives the exit code (0 all passed, 1 a
  check failed).
- run(argv, ...): a program run once under a time bound, stdin closed,
  output captured: (exit code, stdout, stderr).
- tmpdir(prefix): a fresh folder under TMPDIR (np-* names, which
  scripts/check-tmp-clean.sh watches), removed when the block ends, and
  kept, with one line naming it, when the block ends with a failed check
  or an exception.
"""
import contextlib
import os
import shutil
import subprocess
import sys
import tempfile

# the time bound of run() when the caller names none, seconds
RUN_TIMEOUT = 60


class Checks:
    """The failed checks of one test."""

    def __init__(self, stream=None, prefix="FAIL:", ok_prefix=None):
        self.fails = []
        self.stream = stream if stream is not None else sys.stdout
        self.prefix = prefix
        self.ok_prefix = ok_prefix

    def check(self, cond, what):
        """Record what as failed unless cond holds; returns cond."""
        if not cond:
            self.fail(what)
        elif self.ok_prefix is not None:
            print(self.ok_prefix, what, file=self.stream, flush=True)
        return bool(cond)

    def fail(self, what):
        self.fails.append(what)
        print(self.prefix, what, file=self.stream, flush=True)

    def done(self, ok_line=None):
        """The test's exit code: 1 and the count of failures, or 0 and
        ok_line (when given)."""
        if self.fails:
            print(f"{len(self.fails)} failure(s)", file=self.stream)
            return 1
        if ok_line:
            print(ok_line)
        return 0


def run(argv, timeout=RUN_TIMEOUT, env=None, cwd=None, text=True,
        stdin=subprocess.DEVNULL, input=None):
    """Run argv once: (exit code, stdout, stderr).  A run past timeout
    raises subprocess.TimeoutExpired (the test fails, loudly)."""
    if input is not None:
        stdin = None
    p = subprocess.run([str(a) for a in argv], capture_output=True,
                       text=text, timeout=timeout, env=env, cwd=cwd,
                       stdin=stdin, input=input)
    return p.returncode, p.stdout, p.stderr


@contextlib.contextmanager
def tmpdir(prefix="np-test-", checks=None):
    """A fresh folder, removed at the end of the block unless the block
    raised or (with checks) a check failed inside it."""
    path = tempfile.mkdtemp(prefix=prefix)
    before = len(checks.fails) if checks is not None else 0
    keep = False
    try:
        yield path
    except BaseException:
        keep = True
        raise
    finally:
        if checks is not None and len(checks.fails) > before:
            keep = True
        if keep:
            print(f"files kept in {path}", file=sys.stderr)
        else:
            shutil.rmtree(path, ignore_errors=True)
