#!/usr/bin/env python3
"""netproof-bench udp|rudp --summary json (issue 14): a one-object summary
on stdout instead of the full record when no --output is given; with
--output FILE the record goes to FILE and the summary to stdout, its
figures those of the record; a bad value is a usage error (exit 2, one
line); without --summary stdout still carries the full record.

usage: bench_summary_test.py NETPROOF_BENCH
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

BENCH = sys.argv[1]
TMP = tempfile.mkdtemp(prefix="np-bench-summary-test-")
SHORT = {"udp": ["--seconds", "0.2", "--warmup", "0", "--clients", "2",
                 "--payload", "64"],
         "rudp": ["--seconds", "0.2", "--warmup", "0.1", "--rounds", "1",
                  "--clients", "1", "--profile", "none"]}


def fail(msg):
    print("FAIL: %s (files in %s)" % (msg, TMP), file=sys.stderr)
    sys.exit(1)


def run(kind, args):
    e = dict(os.environ)
    e.pop("NETPROOF_RUNNER_SESSION", None)
    return subprocess.run([BENCH, kind] + SHORT[kind] + args,
                          capture_output=True, text=True, timeout=60, env=e)


def one_object(p, kind):
    if p.returncode != 0:
        fail("%s --summary json: exit %d: %s" % (kind, p.returncode, p.stderr))
    lines = p.stdout.splitlines()
    if len(lines) != 1:
        fail("%s: stdout is %d lines, expected one object" % (kind,
                                                               len(lines)))
    doc = json.loads(lines[0])
    if doc.get("schema") != "netproof/run-summary/1":
        fail("%s: schema %r" % (kind, doc.get("schema")))
    for k in ("status", "protocol", "roundtrips_per_sec", "rtt_p99_us",
              "cpu_percent", "lost", "failed_checks", "started_at"):
        if k not in doc:
            fail("%s: summary has no %s: %s" % (kind, k, lines[0]))
    if "kernel" in doc or "checks" in doc:
        fail("%s: stdout is the record, not its summary" % kind)
    if doc["protocol"] != kind or doc["status"] != "passed" or \
            doc["failed_checks"] != [] or not doc["roundtrips_per_sec"] > 0:
        fail("%s: summary %s" % (kind, lines[0]))
    if len(lines[0]) > 2000:
        fail("%s: summary of %d bytes is not compact" % (kind, len(lines[0])))
    return doc


for kind in ("udp", "rudp"):
    s = one_object(run(kind, ["--summary", "json"]), kind)
    if kind == "rudp" and "median_round" not in s:
        fail("rudp summary has no median_round")
    out = os.path.join(TMP, kind + ".json")
    s = one_object(run(kind, ["--summary", "json", "--output", out]), kind)
    with open(out) as f:
        rec = json.load(f)
    if rec.get("schema") != "netproof/run/1":
        fail("%s: --output holds %r, not the record" % (kind,
                                                        rec.get("schema")))
    if s["roundtrips_per_sec"] != rec["measurement"]["roundtrips_per_sec"] \
            or s["started_at"] != rec["started_at"]:
        fail("%s: the summary's figures are not the record's" % kind)

p = run("udp", ["--summary", "xml"])
if p.returncode != 2 or p.stdout or \
        p.stderr.strip().splitlines() != [
            "netproof-bench udp: --summary 'xml': expected text or json"]:
    fail("--summary xml: exit %d, stderr %r" % (p.returncode, p.stderr))
p = run("udp", ["--quiet"])
if p.returncode != 0 or json.loads(p.stdout).get("schema") != "netproof/run/1":
    fail("without --summary stdout is the full record")
shutil.rmtree(TMP, ignore_errors=True)  # kept only on a failure
print("bench_summary_test: ok")
