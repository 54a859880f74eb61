#!/usr/bin/env python3
"""exec --interval S --interval-metric NAME=regex:PATTERN: a time series
from each line a program prints as it runs.

  - samples are the matching lines, with their values and the time each
    line was read: a program that prints a line every 0.3 s gives samples
    that far apart (at least 0.2 s: the bound holds on a loaded machine,
    and fails when lines are timed at the end of the run);
  - the intervals hold every sample once, with the right mean;
  - a matching line that is not a number fails the series check, never a
    zero; no sample at all fails it too; usage errors are one line, exit 2;
  - through a plan (series + interval) the suite self-checks clean, its
    page has the series' chart and table row, and
    the self-check catches a changed value, times that go backwards, a
    changed interval mean and a changed interval.
usage: exec_series_test.py NETPROOF_BENCH NETPROOF_REPORT NETPROOF_VALIDATE"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "lib"))
import nptest  # noqa: E402

BENCH, REPORT, VALIDATE = sys.argv[1:4]
T = nptest.Checks(stream=sys.stderr)
check = T.check
LOOP = 'for i in 1 2 3 4; do echo "rate $i.5 Mbit/s"; echo other; sleep 0.3; done'
SPEC = "rate=regex:^rate ([0-9.]+) Mbit/s$:Mbit/s"


def run(args, prog):
    return subprocess.run([BENCH, "exec"] + args + ["--"] + prog,
                          capture_output=True, text=True, timeout=60)


def single(d):
    out = os.path.join(d, "r.json")
    p = run(["--timeout", "10", "--interval", "0.5", "--interval-metric", SPEC,
             "--output", out], ["sh", "-c", LOOP])
    check(p.returncode == 0, f"series run: exit {p.returncode} {p.stderr}")
    v = subprocess.run([VALIDATE, out], capture_output=True, text=True)
    check(v.returncode == 0, f"record validates: {v.stdout}{v.stderr}")
    rec = json.load(open(out))
    m = rec["exec"]["series"]["metrics"][0]
    lines = [s[0] for s in m["samples"]]
    values = [s[2] for s in m["samples"]]
    times = [s[1] for s in m["samples"]]
    check(lines == [1, 3, 5, 7], f"sample lines {lines}")
    check(values == [1.5, 2.5, 3.5, 4.5], f"sample values {values}")
    gaps = [b - a for a, b in zip(times, times[1:])]
    check(all(g >= 0.2 for g in gaps),
          f"each line timed when it was read (0.3 s apart): gaps {gaps}")
    wall = rec["exec"]["wall_seconds"]
    check(0 <= times[0] < 0.2 and times[-1] <= wall,
          f"times within the run: {times}, wall {wall}")
    iv = m["intervals"]
    check(sum(x["count"] for x in iv) == 4, f"every sample counted once {iv}")
    check(iv[-1]["end"] == wall and iv[0]["start"] == 0, "intervals span the run")
    for x in iv:
        inside = [s[2] for s in m["samples"] if x["start"] <= s[1] < x["end"]]
        if inside:
            check(abs(x["mean"] - sum(inside) / len(inside)) < 1e-12 and
                  x["min"] == min(inside) and x["max"] == max(inside),
                  f"interval {x} against samples {inside}")
        else:
            check(x["count"] == 0 and x["mean"] is None, f"empty interval {x}")
    chk = [c for c in rec["checks"] if c["name"] == "series_rate"]
    check(len(chk) == 1 and chk[0]["passed"], f"series check {chk}")
    check("rate [0.00, 0.50) s:" in p.stderr, f"interval lines on stderr: {p.stderr}")


def failures(d):
    out = os.path.join(d, "bad.json")
    p = run(["--timeout", "5", "--interval", "1", "--interval-metric",
             "r=regex:^r (.*)$", "--output", out],
            ["sh", "-c", 'echo "r 1"; echo "r many"'])
    rec = json.load(open(out))
    m = rec["exec"]["series"]["metrics"][0]
    check(p.returncode == 1 and m["unparsed"] == 1 and
          m["unparsed_first"]["line"] == 2 and len(m["samples"]) == 1,
          f"unparsed line counted and fails: {p.returncode} {m}")
    p = run(["--timeout", "5", "--interval", "1", "--interval-metric",
             "r=regex:^r ([0-9]+)$", "--output", out], ["echo", "nothing"])
    rec = json.load(open(out))
    chk = [c for c in rec["checks"] if c["name"] == "series_r"]
    check(p.returncode == 1 and chk and not chk[0]["passed"],
          f"no sample fails: {p.returncode} {chk}")
    for args, word in [
            (["--interval-metric", "r=regex:^r (.*)$"], "needs --interval"),
            (["--interval", "1"], "needs at least one --interval-metric"),
            (["--interval", "1", "--interval-metric", "r=json:/a"],
             "only NAME=regex:PATTERN"),
            (["--interval", "1", "--interval-metric", "r=regex:^(a)$",
              "--interval-metric", "r=regex:^(b)$"], "given twice")]:
        p = run(["--timeout", "5", "--output", out] + args, ["true"])
        lines = p.stderr.strip().splitlines()
        check(p.returncode == 2 and len(lines) == 1 and word in lines[0],
              f"{args}: exit {p.returncode} {p.stderr!r}")


def selfcheck(out):
    c = subprocess.run([REPORT, "--self-check", "--results", out],
                       capture_output=True, text=True)
    return c.returncode, c.stdout + c.stderr


def suite(d):
    plan = {"schema": "netproof/plan/1", "suite": "exec-series",
            "protocol": "exec", "repetitions": 1,
            "base": {"timeout": 10}, "dimensions": {"interval": [0.5]},
            "exec": {"command": ["sh", "-c", LOOP],
                     "series": [{"name": "rate",
                                 "spec": "regex:^rate ([0-9.]+) Mbit/s$",
                                 "unit": "Mbit/s"}]}}
    pf = os.path.join(d, "plan.json")
    json.dump(plan, open(pf, "w"))
    out = os.path.join(d, "suite")
    p = subprocess.run([BENCH, "matrix", pf, "--output", out, "--quiet"],
                       capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, f"series suite: exit {p.returncode}: {p.stderr}")
    runs = os.path.join(out, "runs")
    cid = sorted(os.listdir(runs))[0]
    rp = os.path.join(runs, cid, "rep-1.json")
    code, text = selfcheck(out)
    check(code == 0, f"self-check clean: {text}")
    rep = os.path.join(d, "report")
    r = subprocess.run([REPORT, "--results", out, "--output", rep],
                       capture_output=True, text=True)
    md = open(os.path.join(rep, "index.md")).read() if r.returncode == 0 else ""
    check(r.returncode == 0 and "### Time series: rate" in md and
          os.path.exists(os.path.join(rep, "assets",
                                      "suite-series-rate-%s.svg" % cid)) and
          "| %s | %s/rep-1 | 4 |" % (cid, cid) in md,
          f"the page shows the series: {r.returncode} {r.stderr} {md[-800:]}")
    orig = open(rp).read()

    def forged(edit, word, what):
        rec = json.loads(orig)
        edit(rec["exec"]["series"])
        open(rp, "w").write(json.dumps(rec))
        code, text = selfcheck(out)
        check(code == 1 and word in text, f"self-check catches {what}: {code} {text}")
        open(rp, "w").write(orig)

    def value(s):
        s["metrics"][0]["samples"][1][2] = 9.5

    def backwards(s):
        a = s["metrics"][0]["samples"]
        a[0][1], a[1][1] = a[1][1], a[0][1]

    def mean(s):
        for x in s["metrics"][0]["intervals"]:
            if x["count"]:
                x["mean"] += 1
                break

    def interval(s):
        s["interval_seconds"] = 0.25

    forged(value, "samples/1", "a changed sample value")
    forged(backwards, "not within", "times going backwards")
    forged(mean, "rebuilt", "a changed interval mean")
    forged(interval, "asked for --interval", "a changed interval")


def main():
    with nptest.tmpdir(prefix="np-exec-series-", checks=T) as d:
        for f in (single, failures, suite):
            sub = os.path.join(d, f.__name__)
            os.mkdir(sub)
            f(sub)
    return T.done("exec series: all cases passed")


if __name__ == "__main__":
    sys.exit(main())
