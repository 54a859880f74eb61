#!/usr/bin/env python3
"""netproof-bench udp as a process: exit codes, one-line usage errors, no
partial output, SIGINT/SIGTERM -> 130/143 with an interrupted record, and
every record checked by python3-jsonschema (Draft 2020-12) and, when given,
by netproof-validate.

usage: udp_process_test.py NETPROOF_BENCH RUN_SCHEMA [NETPROOF_VALIDATE]
"""
import json
import os
import signal
import subprocess
import sys
import time

import jsonschema

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "lib"))
import nptest  # noqa: E402

BENCH, SCHEMA = sys.argv[1], sys.argv[2]
VALIDATE = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] else None
with open(SCHEMA) as f:
    VALIDATOR = jsonschema.Draft202012Validator(json.load(f))
T = nptest.Checks(stream=sys.stderr, fatal=True)
fail = T.fail
TMP = T.scratch("np-udp-test-")
FAST = ["--seconds", "0.2", "--warmup", "0.05", "--clients", "4"]


def run(args, timeout=20):
    """(exit code, stdout, stderr) of `netproof-bench udp` with args."""
    return nptest.run([BENCH, "udp"] + args, timeout=timeout)


def check_record(path, status):
    with open(path) as f:
        doc = json.load(f)
    errors = sorted(VALIDATOR.iter_errors(doc), key=lambda e: e.path)
    if errors:
        fail("%s: %s: %s" % (path, "/".join(map(str, errors[0].path)),
                             errors[0].message))
    if doc["status"] != status:
        fail("%s: status %s, expected %s" % (path, doc["status"], status))
    if VALIDATE:
        rc, sout, err = nptest.run([VALIDATE, path])
        if rc != 0:
            fail("netproof-validate %s: %s" % (path, sout + err))
    return doc


def test_usage_errors():
    cases = [
        ["--payload", "65508"], ["--payload", "65528", "--address", "::1"],
        ["--payload", "0"], ["--clients", "0"], ["--window", "x"],
        ["--io-model", "shared"], ["--backend", "asio"], ["--seconds", "0"],
        ["--warmup", "-1"], ["--address", "localhost"], ["--bogus"],
        ["--payload"], ["stray"], ["--io-threads", "2"],
        ["--udp-server-receive-buffer", "0"], ["--output", ""],
    ]
    for args in cases:
        out = os.path.join(TMP, "usage.json")
        rc, sout, err = run(args + ["--output", out]
                            if args != ["--output", ""] else args)
        lines = err.strip().splitlines()
        if rc != 2 or len(lines) != 1 or sout:
            fail("usage %s: exit %d, stderr %r" % (args, rc,
                                                   err))
        if os.path.exists(out):
            fail("usage %s left %s behind" % (args, out))
    rc, sout, err = run(["--payload", "65508"])
    if "65,535 - 20 - 8 = 65,507" not in err:
        fail("payload error does not cite the limit: " + err)
    rc, sout, err = run(["--help"])
    if rc != 0 or "--udp-server-receive-buffer" not in sout:
        fail("--help: exit %d" % rc)


def test_pass_and_stdout():
    out = os.path.join(TMP, "pass.json")
    cs = ["--count-syscalls"]
    conn = ["--io-model", "connected", "--io-threads", "2"]
    for backend, extra in (("uv", []), ("raw", []), ("raw", cs + conn),
                           ("uring", cs), ("uring", cs + conn)):
        rc, sout, err = run(FAST + ["--backend", backend, "--output", out]
                            + extra)
        if backend == "uring" and rc == 3 and \
                "--backend uring" in err:
            print("SKIP uring: " + err.strip())
            continue
        if rc != 0:
            fail("passing run (%s %s): exit %d: %s" % (
                backend, extra, rc, err))
        doc = check_record(out, "passed")
        if doc["config"]["backend"] != backend:
            fail("backend not recorded")
        if ("syscalls" in doc) != bool(extra):
            fail("syscalls section only with --count-syscalls: %s" % extra)
        if extra and (doc["syscalls"]["syscalls"] or 0) <= 0:
            fail("no system calls counted: %r" % doc["syscalls"])
        if (backend == "uring") != ("uring" in doc["config"]):
            fail("config.uring only for the uring backend")
        c = doc["counters"]
        if c["lost"] != 0 or c["sent"] != c["received"] or c["sent"] == 0:
            fail("counters: %r" % c)
    rc, sout, err = run(FAST + ["--output", "-", "--quiet"])
    if rc != 0 or err:
        fail("stdout run: exit %d, stderr %r" % (rc, err))
    path = os.path.join(TMP, "stdout.json")
    with open(path, "w") as f:
        f.write(sout)
    check_record(path, "passed")


def test_overflow_probe():
    out = os.path.join(TMP, "probe.json")
    rc, sout, err = run(["--payload", "16384", "--clients", "16",
                         "--window", "64", "--udp-server-receive-buffer",
                         "4194304", "--warmup", "0", "--seconds", "0.3",
                         "--backend", "raw", "--output", out])
    if rc != 1:
        fail("overflow probe: exit %d, want 1: %s" % (rc, err))
    doc = check_record(out, "failed")
    lost = doc["counters"]["lost"]
    if lost <= 0 or lost != doc["sockets"]["kernel_drops"]:
        fail("probe: lost %d, kernel drops %d" %
             (lost, doc["sockets"]["kernel_drops"]))
    if not any(r.startswith("no_loss") for r in doc["reasons"]):
        fail("probe: reasons %r" % doc["reasons"])


def test_signals():
    # SIGINT/SIGTERM during the measurement, and SIGINT during the warm-up
    # (the measurement is then skipped: zero round trips, null percentiles)
    for sig, code, warmup in ((signal.SIGINT, 130, "0.1"),
                              (signal.SIGTERM, 143, "0.1"),
                              (signal.SIGINT, 130, "10")):
        out = os.path.join(TMP, "sig.json")
        proc = subprocess.Popen([BENCH, "udp", "--seconds", "10", "--warmup",
                                 warmup, "--clients", "4", "--output", out],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
        time.sleep(0.6)
        proc.send_signal(sig)
        try:
            _, err = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            fail("no exit after %s" % sig.name)
        if proc.returncode != code:
            fail("%s: exit %d, want %d: %s" % (sig.name, proc.returncode,
                                              code, err))
        doc = check_record(out, "interrupted")
        if doc["measurement"]["seconds"] >= 5:
            fail("%s did not stop the run" % sig.name)
        if not any(sig.name in r for r in doc["reasons"]):
            fail("%s: reasons %r" % (sig.name, doc["reasons"]))
        if warmup == "10" and (doc["measurement"]["roundtrips"] != 0 or
                               doc["warmup"]["counters"]["sent"] == 0 or
                               doc["measurement"]["rtt_us"]["p50"] is not None):
            fail("interrupted warm-up: %r" % doc["measurement"])


def test_unwritable_output():
    # the output is opened before the run: a usage error, at once (the
    # other bad --output cases, for udp and rudp: bench_output_test.py)
    out = os.path.join(TMP, "no-such-dir", "x.json")
    t0 = time.monotonic()
    rc, sout, err = run(["--seconds", "5", "--output", out])
    took = time.monotonic() - t0
    if rc != 2 or len(err.strip().splitlines()) != 1 or \
            out not in err or took >= 1.0:
        fail("unwritable output: exit %d after %.2f s, stderr %r" %
             (rc, took, err))
    if os.listdir(TMP) and any(n.startswith("x.json") for n in
                               os.listdir(TMP)):
        fail("partial output left")


def test_failed_minimal_variant():
    """The matrix runner's record for a crashed child must validate."""
    with open(os.path.join(TMP, "pass.json")) as f:
        full = json.load(f)
    minimal = {k: full[k] for k in ("schema", "tool", "machine",
                                    "started_at", "config")}
    minimal["status"] = "failed"
    minimal["failure"] = {"reason": "child killed by SIGSEGV",
                          "exit_code": None, "signal": "SIGSEGV"}
    if list(VALIDATOR.iter_errors(minimal)):
        fail("minimal failed record rejected")
    bad = dict(minimal, measurement=full["measurement"])
    if not list(VALIDATOR.iter_errors(bad)):
        fail("failure record with measurement accepted")
    bad = dict(full)
    bad["counters"] = dict(full["counters"], invented=1)
    if not list(VALIDATOR.iter_errors(bad)):
        fail("counters with an unknown field accepted")


test_usage_errors()
test_pass_and_stdout()
test_overflow_probe()
test_signals()
test_unwritable_output()
test_failed_minimal_variant()
sys.exit(T.done("udp_process_test: all passed"))  # TMP kept on a failure
