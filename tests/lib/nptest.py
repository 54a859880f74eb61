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
  check failed).  Checks(fatal=True) is for a test whose later steps need
  the earlier ones: the first failure prints its line and exits 1 at
  once.  `scratch(prefix)` gives such a test one folder for all its
  steps, removed by a passing `done()`, kept (and named in every FAIL
  line) on a failure; `at_fail(fn)` runs fn before a fatal exit (stop
  the test's own servers).
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

    def __init__(self, stream=None, prefix="FAIL:", ok_prefix=None,
                 fatal=False):
        self.fails = []
        self.stream = stream if stream is not None else sys.stdout
        self.prefix = prefix
        self.ok_prefix = ok_prefix
        self.fatal = fatal
        self.dirs = []       # scratch folders: removed by a passing done()
        self.cleanups = []   # at_fail functions, run before a fatal exit

    def scratch(self, prefix="np-test-"):
        """A fresh folder for the whole test (see the module's text)."""
        path = tempfile.mkdtemp(prefix=prefix)
        self.dirs.append(path)
        return path

    def at_fail(self, fn):
        """Run fn() before a fatal failure exits."""
        self.cleanups.append(fn)

    def check(self, cond, what):
        """Record what as failed unless cond holds; returns cond."""
        if not cond:
            self.fail(what)
        elif self.ok_prefix is not None:
            print(self.ok_prefix, what, file=self.stream, flush=True)
        return bool(cond)

    def fail(self, what):
        self.fails.append(what)
        kept = "".join(f" (files kept in {d})" for d in self.dirs)
        print(self.prefix, what + kept, file=self.stream, flush=True)
        if self.fatal:
            for fn in self.cleanups:
                fn()
            raise SystemExit(1)

    def done(self, ok_line=None):
        """The test's exit code: 1 and the count of failures, or 0 and
        ok_line (when given); a passing test's scratch folders are
        removed."""
        if self.fails:
            print(f"{len(self.fails)} failure(s)", file=self.stream)
            return 1
        for d in self.dirs:
            shutil.rmtree(d, ignore_errors=True)
        self.dirs = []
        if ok_line:
            print(ok_line)
        return 0


def skip(why, stream=None):
    """Leave the test as skipped: one `SKIP: why` line, exit 77 (ctest's
    SKIP_RETURN_CODE)."""
    print("SKIP:", why, file=stream if stream is not None else sys.stdout,
          flush=True)
    raise SystemExit(77)


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
