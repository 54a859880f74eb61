#!/usr/bin/env python3
"""tty_pipe_test.py NETPROOF_BENCH FAKE_BENCH - what a person at a terminal
and a shell pipeline get from netproof-bench (issue 28).

Terminal (a pty made here, never the test runner's own):
- `udp` with no --output and stdout a terminal writes no JSON there: the
  one-line summary and one line saying how to get the record go to
  stderr, exit 0;
- `--summary text --quiet` does not dump JSON either;
- `--summary json` still prints its one-line summary object;
- stdout a pipe still gets the whole record (schema netproof/run/1).

A long run (3.4 s) with stderr a terminal shows a live line "1 s of 3.4 s,
3 s left", with the current rate once there are two samples ("..., 2 s
left, 41,233 round trips/s", the last second's), erased before the
summary; the record keeps no time series for it (no "intervals"); none
on a pipe, none for 0.2 s.

A reader that goes away (| head -1 closes its end):
- `udp --output F` with stderr and stdout closed pipes finishes, exit 0,
  and writes F;
- `matrix` (over the fake bench) with stdout and stderr closed pipes
  finishes the suite: suite.json is "complete" and summary.json exists,
  exit 0 (before: killed by SIGPIPE, exit 141, suite.json "running").
"""
import json
import os
import pty
import re
import select
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "lib"))
import nptest  # noqa: E402

BENCH, FAKE = sys.argv[1], sys.argv[2]
SHORT = ["--seconds", "0.2", "--warmup", "0", "--clients", "2",
         "--payload", "64"]
T = nptest.Checks()
check = T.check


def env():
    e = dict(os.environ)
    e.pop("NETPROOF_RUNNER_SESSION", None)
    return e


def on_tty(argv):
    """Run argv with stdout a fresh pty (read as it comes, so a large
    write cannot block), stderr a pipe; (exit code, tty text, stderr)."""
    master, slave = pty.openpty()
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=slave,
                         stderr=subprocess.PIPE, env=env())
    os.close(slave)
    got, deadline = b"", time.monotonic() + 60
    while time.monotonic() < deadline:
        r, _, _ = select.select([master], [], [], 0.2)
        if r:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: every slave descriptor is closed
                break
            if not chunk:
                break
            got += chunk
        elif p.poll() is not None:
            break
    os.close(master)
    try:
        err = p.communicate(timeout=max(1, deadline - time.monotonic()))[1]
    except subprocess.TimeoutExpired:
        p.kill()
        err = p.communicate()[1]
        check(False, "%s: still running at the time bound" % argv)
    return p.returncode, got.decode("utf-8", "replace"), \
        err.decode("utf-8", "replace")


def stderr_on_tty(argv):
    """Run argv with stderr a fresh pty, stdout discarded; (code, text)."""
    master, slave = pty.openpty()
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=slave, env=env())
    os.close(slave)
    got, deadline = b"", time.monotonic() + 60
    while time.monotonic() < deadline:
        r, _, _ = select.select([master], [], [], 0.2)
        if r:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            got += chunk
        elif p.poll() is not None:
            break
    os.close(master)
    try:
        p.wait(timeout=max(1, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    return p.returncode, got.decode("utf-8", "replace")


def progress(tmp):
    rec = os.path.join(tmp, "long.json")
    long_run = [BENCH, "udp", "--seconds", "3.4", "--warmup", "0",
                "--clients", "2", "--output", rec]
    rc, text = stderr_on_tty(long_run)
    check(rc == 0, "a long run on a terminal: exit %s" % rc)
    check(re.search(r"\r\033\[Knetproof-bench udp: [123] s of 3\.4 s, "
                    r"[123] s left", text),
          "the live line: elapsed, planned, left: %r" % text)
    rates = re.findall(r"s left, ([0-9,]+) round trips/s\r", text)
    check(rates and all(int(r.replace(",", "")) > 0 for r in rates),
          "the live line carries the current rate: %r" % text)
    with open(rec, encoding="utf-8") as f:
        check("intervals" not in json.load(f),
              "the live rate keeps no time series in the record")
    last = text.split("\r\033[K")[-1]
    check(last.startswith("netproof-bench udp: uv/single") and
          "round trips/s" in last,
          "the line is erased before the summary: %r" % last)
    p = subprocess.run(long_run, capture_output=True, text=True, timeout=60,
                       env=env())
    check(p.returncode == 0 and "\r" not in p.stderr and
          "s left" not in p.stderr,
          "no live line when stderr is a pipe: %r" % p.stderr)
    rc, text = stderr_on_tty([BENCH, "udp"] + SHORT + ["--output", rec])
    check(rc == 0 and "s left" not in text,
          "no live line for a short run: %r" % text)
    # rudp samples its round trips through the same seam
    rrec = os.path.join(tmp, "long-rudp.json")
    rc, text = stderr_on_tty([BENCH, "rudp", "--seconds", "3.4", "--warmup",
                              "0", "--clients", "2", "--output", rrec])
    rates = re.findall(r"s left, ([0-9,]+) round trips/s\r", text)
    check(rc == 0 and rates and
          all(int(r.replace(",", "")) > 0 for r in rates),
          "rudp's live line carries the current rate: %r" % text)
    with open(rrec, encoding="utf-8") as f:
        check("intervals" not in json.load(f),
              "rudp's live rate keeps no time series in the record")


def closed_pipes(argv):
    """Run argv with stdout and stderr pipes whose read ends are closed at
    once (what `| head -1` leaves once head has exited)."""
    rout, wout = os.pipe()
    rerr, werr = os.pipe()
    os.close(rout)
    os.close(rerr)
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=wout,
                         stderr=werr, env=env())
    os.close(wout)
    os.close(werr)
    try:
        return p.wait(timeout=90)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        check(False, "%s: still running at the time bound" % argv)
        return None


def terminal():
    rc, tty, err = on_tty([BENCH, "udp"] + SHORT)
    check(rc == 0, "udp on a terminal: exit %s: %s" % (rc, err))
    check("{" not in tty, "udp on a terminal: no JSON on the terminal, "
          "got %d bytes: %r" % (len(tty), tty[:120]))
    lines = err.splitlines()
    check(any(l.startswith("netproof-bench udp: ") and "round trips/s" in l
              for l in lines), "udp on a terminal: summary line: %r" % err)
    # the stream line (the echo line is re-derived by the self-check of
    # every committed set: its wording stays)
    p = subprocess.run([BENCH, "udp", "--mode", "stream", "--backend", "raw",
                        "--io-model", "split", "--seconds", "0.2", "--warmup",
                        "0", "--summary", "json"], capture_output=True,
                       text=True, timeout=60, env=env())
    check(re.search(r"lost \d+ of \d+ \([0-9.]+ %, receiver drops \d+\), "
                    r"out of order \d+, jitter [0-9.]+ μs, one-way p50 "
                    r"[0-9.]+ μs", p.stderr),
          "the stream line: the loss as a count and a percentage, μs: %r"
          % p.stderr)
    check(any("record not shown on a terminal" in l and "--output FILE" in l
              for l in lines),
          "udp on a terminal: says how to get the record: %r" % err)

    rc, tty, err = on_tty([BENCH, "udp"] + SHORT +
                          ["--summary", "text", "--quiet"])
    check(rc == 0, "udp --quiet on a terminal: exit %s: %s" % (rc, err))
    check("{" not in tty, "udp --summary text --quiet on a terminal: no "
          "JSON, got %r" % tty[:120])
    check("round trips/s" not in err, "--quiet: no summary line: %r" % err)

    rc, tty, err = on_tty([BENCH, "udp"] + SHORT + ["--summary", "json"])
    check(rc == 0, "udp --summary json on a terminal: exit %s" % rc)
    try:
        doc = json.loads(tty.strip())
    except ValueError:
        doc = {}
    check(doc.get("schema") == "netproof/run-summary/1",
          "--summary json on a terminal: the summary object: %r" % tty[:200])
    check("record not shown" not in err, "--summary json: no note: %r" % err)

    p = subprocess.run([BENCH, "udp"] + SHORT, capture_output=True,
                       text=True, timeout=60, env=env())
    check(p.returncode == 0, "udp | cat: exit %d" % p.returncode)
    try:
        rec = json.loads(p.stdout)
    except ValueError:
        rec = {}
    check(rec.get("schema") == "netproof/run/1",
          "udp | cat: the whole record on the pipe: %r" % p.stdout[:120])
    check("record not shown" not in p.stderr, "pipe: no note: %r" % p.stderr)


def sigpipe(tmp):
    rec = os.path.join(tmp, "run.json")
    rc = closed_pipes([BENCH, "udp"] + SHORT + ["--output", rec])
    check(rc == 0, "udp with closed stdout/stderr pipes: exit %s (141 = "
          "killed by SIGPIPE)" % rc)
    check(os.path.exists(rec), "udp with closed pipes wrote its record")

    plan = os.path.join(tmp, "plan.json")
    with open(plan, "w") as f:
        json.dump({"schema": "netproof/plan/1", "suite": "pipe",
                   "protocol": "udp", "repetitions": 2,
                   "timeout_seconds": 10,
                   "configurations": [{"payload": 64}, {"payload": 128}]}, f)
    out = os.path.join(tmp, "suite")
    rc = closed_pipes([BENCH, "matrix", plan, "--output", out,
                       "--bench-binary", FAKE])
    check(rc == 0, "matrix with closed stdout/stderr pipes: exit %s (141 = "
          "killed by SIGPIPE)" % rc)
    try:
        with open(os.path.join(out, "suite.json")) as f:
            status = json.load(f).get("status")
    except (OSError, ValueError) as e:
        status = str(e)
    check(status == "complete", "matrix with closed pipes: suite.json "
          "status %r" % status)
    check(os.path.exists(os.path.join(out, "summary.json")),
          "matrix with closed pipes: summary.json written")


def main():
    with nptest.tmpdir(prefix="np-tty-pipe-test-", checks=T) as tmp:
        terminal()
        progress(tmp)
        sigpipe(tmp)
    return T.done("tty_pipe_test: terminal gets the summary, pipes the "
                  "record; closed pipes do not kill a run or a suite")


if __name__ == "__main__":
    sys.exit(main())
