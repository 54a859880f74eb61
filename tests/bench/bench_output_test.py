#!/usr/bin/env python3
"""netproof-bench udp and rudp as processes: the record envelope and the
output opened first.

- a bad --output (missing folder, read-only folder, a folder as the file)
  exits 2 within 1 s for a run asked to measure 5 s, with one stderr line
  naming the path, and leaves no file behind;
- records carry started_at and ended_at in the millisecond form, ended_at
  >= started_at, runner.session when NETPROOF_RUNNER_SESSION holds a
  session id and no runner when it is unset or malformed; they validate
  (python3-jsonschema and, when given, netproof-validate);
- a rudp run interrupted by SIGTERM still writes its record (status
  interrupted) and exits 143 (udp's signal cases: udp_process_test.py).

The read-only folder is a read-only tmpfs this test mounts (and unmounts)
where it may mount; otherwise a chmod 555 folder when not root, else a path
under /sys (which root cannot write either).

usage: bench_output_test.py NETPROOF_BENCH RUN_SCHEMA [NETPROOF_VALIDATE]
"""
import datetime
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
TMP = T.scratch("np-bench-output-test-")
SESSION = "0123456789abcdef0123456789abcdef"
SHORT = {"udp": ["--seconds", "0.2", "--warmup", "0", "--clients", "2"],
         "rudp": ["--seconds", "0.2", "--warmup", "0.1", "--rounds", "1",
                  "--clients", "1"]}


def run(kind, args, env=None, timeout=30):
    """(exit code, stdout, stderr) of kind with args."""
    e = dict(os.environ)
    e.pop("NETPROOF_RUNNER_SESSION", None)
    e.update(env or {})
    return nptest.run([BENCH, kind] + args, timeout=timeout, env=e)


def ms_time(doc, key):
    s = doc.get(key)
    if not isinstance(s, str) or len(s) != 24 or s[19] != "." or \
            not s.endswith("Z"):
        fail("%s %r is not YYYY-MM-DDTHH:MM:SS.mmmZ" % (key, s))
    return datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ")


def check_record(path, status):
    with open(path) as f:
        doc = json.load(f)
    errors = sorted(VALIDATOR.iter_errors(doc), key=lambda e: e.path)
    if errors:
        fail("%s: %s: %s" % (path, "/".join(map(str, errors[0].path)),
                             errors[0].message))
    if VALIDATE:
        rc, out, err = nptest.run([VALIDATE, path])
        if rc != 0:
            fail("netproof-validate %s: %s" % (path, out + err))
    if doc["status"] != status:
        fail("%s: status %s, expected %s" % (path, doc["status"], status))
    if ms_time(doc, "ended_at") < ms_time(doc, "started_at"):
        fail("%s: ended_at %s before started_at %s" %
             (path, doc["ended_at"], doc["started_at"]))
    return doc


def readonly_folder():
    """(folder, cleanup) that nobody running this test can write."""
    mnt = os.path.join(TMP, "ro-mount")
    os.mkdir(mnt)
    rc, _, _ = nptest.run(["mount", "-t", "tmpfs", "-o", "ro,size=64k",
                           "tmpfs", mnt])
    if rc == 0:
        return mnt, lambda: (nptest.run(["umount", mnt]), os.rmdir(mnt))
    os.rmdir(mnt)
    if os.geteuid() != 0:
        ro = os.path.join(TMP, "ro")
        os.mkdir(ro, 0o555)
        os.chmod(ro, 0o555)
        return ro, lambda: os.rmdir(ro)
    print("mount not permitted: read-only case uses /sys", file=sys.stderr)
    return "/sys", lambda: None


def listing(folder):
    return sorted(os.listdir(folder)) if os.path.isdir(folder) else None


def test_bad_output(kind):
    ro, cleanup = readonly_folder()
    isdir = os.path.join(TMP, "a-folder")
    os.mkdir(isdir)
    cases = [("missing folder", os.path.join(TMP, "no-such", "run.json"),
              TMP, "does not exist"),
             ("read-only folder", os.path.join(ro, "run.json"), ro,
              "folder %s is " % ro),
             ("a folder as the file", isdir, TMP, "is a folder")]
    try:
        for what, out, folder, reason in cases:
            before = listing(folder)
            t0 = time.monotonic()
            rc, sout, err = run(kind, ["--seconds", "5", "--warmup", "1",
                                       "--output", out])
            took = time.monotonic() - t0
            lines = err.strip().splitlines()
            print("%s %s: exit %d in %.3f s: %s" %
                  (kind, what, rc, took, err.strip()), file=sys.stderr)
            if rc != 2:
                fail("%s %s: exit %d, want 2" % (kind, what, rc))
            if took >= 1.0:
                fail("%s %s: took %.2f s" % (kind, what, took))
            if len(lines) != 1 or out not in lines[0] or \
                    reason not in lines[0] or sout:
                fail("%s %s: stderr %r" % (kind, what, err))
            if listing(folder) != before or listing(isdir) != []:
                fail("%s %s: left files behind: %r" %
                     (kind, what, listing(folder)))
    finally:
        cleanup()
        os.rmdir(isdir)


def test_envelope(kind):
    out = os.path.join(TMP, kind + ".json")
    for env, want in (({}, None),
                      ({"NETPROOF_RUNNER_SESSION": SESSION}, SESSION),
                      ({"NETPROOF_RUNNER_SESSION": SESSION.upper()}, None),
                      ({"NETPROOF_RUNNER_SESSION": SESSION[:-1]}, None)):
        rc, _, err = run(kind, SHORT[kind] + ["--quiet", "--output", out], env)
        if rc != 0:
            fail("%s run: exit %d: %s" % (kind, rc, err))
        doc = check_record(out, "passed")
        got = doc.get("runner", {}).get("session")
        if got != want:
            fail("%s with %r: runner %r" % (kind, env, doc.get("runner")))
        if kind == "rudp":
            ms_time(doc["rudp"]["rounds"][0], "started_at")
        if sorted(os.listdir(TMP)) != sorted([kind + ".json"]):
            fail("%s: extra files %r" % (kind, os.listdir(TMP)))
        os.unlink(out)


def test_rudp_interrupted():
    out = os.path.join(TMP, "rudp-sig.json")
    proc = subprocess.Popen([BENCH, "rudp", "--seconds", "10", "--warmup",
                             "0.1", "--rounds", "3", "--clients", "1",
                             "--output", out], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    time.sleep(0.6)
    proc.send_signal(signal.SIGTERM)
    try:
        _, err = proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        fail("rudp: no exit after SIGTERM")
    if proc.returncode != 143:
        fail("rudp SIGTERM: exit %d, want 143: %s" % (proc.returncode, err))
    doc = check_record(out, "interrupted")
    if len(doc["rudp"]["rounds"]) != 1 or \
            doc["reasons"][0] != "interrupted by SIGTERM":
        fail("rudp SIGTERM: rounds %d, reasons %r" %
             (len(doc["rudp"]["rounds"]), doc["reasons"]))
    os.unlink(out)


for k in ("udp", "rudp"):
    test_bad_output(k)
    test_envelope(k)
test_rudp_interrupted()
sys.exit(T.done("bench_output_test: all passed"))  # TMP kept on a failure
