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
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "lib"))
import nptest  # noqa: E402

BENCH = sys.argv[1]
T = nptest.Checks(stream=sys.stderr, fatal=True)
fail = T.fail
TMP = T.scratch("np-bench-summary-test-")
SHORT = {"udp": ["--seconds", "0.2", "--warmup", "0", "--clients", "2",
                 "--payload", "64"],
         "rudp": ["--seconds", "0.2", "--warmup", "0.1", "--rounds", "1",
                  "--clients", "1", "--profile", "none"]}


def run(kind, args):
    """(exit code, stdout, stderr) of one short run of kind."""
    e = dict(os.environ)
    e.pop("NETPROOF_RUNNER_SESSION", None)
    return nptest.run([BENCH, kind] + SHORT[kind] + args, timeout=60, env=e)


def one_object(p, kind):
    rc, out, err = p
    if rc != 0:
        fail("%s --summary json: exit %d: %s" % (kind, rc, err))
    lines = out.splitlines()
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

rc, out, err = run("udp", ["--summary", "xml"])
if rc != 2 or out or \
        err.strip().splitlines() != [
            "netproof-bench udp: --summary 'xml': expected text or json"]:
    fail("--summary xml: exit %d, stderr %r" % (rc, err))
rc, out, err = run("udp", ["--quiet"])
if rc != 0 or json.loads(out).get("schema") != "netproof/run/1":
    fail("without --summary stdout is the full record")
sys.exit(T.done("bench_summary_test: ok"))  # TMP kept only on a failure
