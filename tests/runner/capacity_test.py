"""A udp plan's "capacity" and "rate-fraction" through the matrix runner:
the closed-loop configuration runs first, each fraction's --rate is
round(fraction x the capacity's median round trips/s) as its record shows,
the runner says so on stderr, the set self-checks clean; bad plans (no
capacity, both rate and rate-fraction, a fraction out of range, a match
that selects nothing or comes after a fraction) are refused at load with
exit 2 and one line naming the pointer; --shard of a plan with a capacity
(the cut would part the capacity from its fractions) is refused the same
way, naming /capacity.

usage: capacity_test.py BENCH REPORT
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "lib"))
import nptest  # noqa: E402

BENCH, REPORT = sys.argv[1:3]
T = nptest.Checks(stream=sys.stderr, fatal=True)
fail = T.fail
TMP = T.scratch("np-capacity-test-")


def plan(name, **kw):
    d = {"schema": "netproof/plan/1", "suite": name, "protocol": "udp",
         "repetitions": 2,
         "base": {"payload": 256, "clients": 4, "backend": "raw",
                  "warmup": 0.05, "seconds": 0.3},
         "capacity": {"match": {"rate": 0}},
         "configurations": [{"window": 1}, {"rate-fraction": 0.1},
                            {"rate-fraction": 0.3}]}
    d.update(kw)
    d = {k: v for k, v in d.items() if v is not None}
    path = os.path.join(TMP, name + ".json")
    with open(path, "w") as f:
        json.dump(d, f)
    return path


def test_run():
    out = os.path.join(TMP, "ll")
    rc, _, err = nptest.run([BENCH, "matrix", plan("ll"), "--output", out],
                            timeout=120)
    if rc != 0:
        fail("matrix exit %d: %s" % (rc, err))
    ref = os.path.join(out, "runs", "udp-p256-c4-w1-single-raw")
    caps = []
    for k in (1, 2):
        with open(os.path.join(ref, "rep-%d.json" % k)) as f:
            caps.append(json.load(f)["measurement"]["roundtrips_per_sec"])
    cap = sorted(caps)[0] / 2 + sorted(caps)[1] / 2
    for frac in (0.1, 0.3):
        rate = max(1, round(frac * cap))
        cid = "udp-p256-c4-w1-single-raw-rf%g" % frac
        if not re.search(r"%s: --rate %d = %g x capacity" %
                         (re.escape(cid), rate, frac), err):
            fail("no resolution line for %s (rate %d): %s" %
                 (cid, rate, err))
        for k in (1, 2):
            with open(os.path.join(out, "runs", cid, "rep-%d.json" % k)) as f:
                doc = json.load(f)
            if doc["config"]["rate"] != rate or "open_loop" not in doc:
                fail("%s rep %d: config.rate %s, want %d" %
                     (cid, k, doc["config"].get("rate"), rate))
    rc, _, err = nptest.run([REPORT, "--results", out, "--self-check"],
                            timeout=60)
    if rc != 0:
        fail("self-check: %s" % err)


def test_bad():
    cases = [
        ("nocap", {"capacity": None}, "unknown udp option \"rate-fraction\""),
        ("both", {"configurations": [{"window": 1},
                                     {"rate-fraction": 0.1, "rate": 5}]},
         "give \"rate\" or \"rate-fraction\", not both"),
        ("range", {"configurations": [{"window": 1}, {"rate-fraction": 11}]},
         "rate-fraction: a fraction of the capacity in (0, 10]"),
        ("zero", {"configurations": [{"window": 1}, {"rate-fraction": 0}]},
         "rate-fraction: a fraction of the capacity in (0, 10]"),
        ("nomatch", {"capacity": {"match": {"clients": 99}},
                     "configurations": [{"window": 1}]},
         "/capacity/match: matches no configuration"),
        ("nomatch2", {"capacity": {"match": {"clients": 99}}},
         "/capacity/match: no configuration before the first"),
        ("after", {"configurations": [{"rate-fraction": 0.1}, {"window": 1}]},
         "/capacity/match: no configuration before the first"),
        ("stable", {"repetitions": None,
                    "until_stable": {"ci_percent": 3, "min_repetitions": 5,
                                     "max_repetitions": 6}},
         "/capacity: not with until_stable"),
    ]
    cases = [c + ([],) for c in cases]
    cases.append(("shard", {}, "--shard 0/2: the plan's /capacity "
                  "configuration udp-p256-c4-w1-single-raw must run in the "
                  "same process", ["--shard", "0/2"]))
    for name, kw, want, extra in cases:
        rc, _, err = nptest.run([BENCH, "matrix", plan(name, **kw),
                                 "--output", os.path.join(TMP, name),
                                 "--dry-run"] + extra, timeout=20)
        lines = err.strip().splitlines()
        if rc != 2 or len(lines) != 1 or want not in lines[0]:
            fail("%s: exit %d, stderr %r (want 2, one line with %r)" %
                 (name, rc, err, want))


test_bad()
test_run()
sys.exit(T.done("capacity_test: all passed"))  # TMP kept only on a failure
