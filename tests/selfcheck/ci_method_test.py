#!/usr/bin/env python3
"""The interval method of a result set (summary.json "intervals"/"ci_method").

usage: ci_method_test.py BUILD_DIR SOURCE_SET WORK_DIR

- A set written now (bench/scripts/large_set.py: the matrix runner writes
  its summary) states "ci_method": "exact", and every ci95 of round
  trips/s equals the exact percentile interval of the bootstrap median
  computed here independently, in rational arithmetic (odd and even run
  counts: 7 and 8 repetitions).
- Its self-check is clean; the same summary with ci_method removed (so the
  self-check applies the resampler) is not, so the self-check re-derives
  the intervals by the method the summary states.
- Committed sets state no ci_method and keep the resampler: results_selfcheck
  and results_pages hold them byte for byte.
"""
import json
import os
import shutil
import sys
from fractions import Fraction
from math import comb

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "lib"))
import nptest  # noqa: E402

BUILD, SOURCE, WORK = (os.path.abspath(a) for a in sys.argv[1:4])
SRC = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
REPORT = os.path.join(BUILD, "report", "netproof-report")
T = nptest.Checks(prefix="FAIL", ok_prefix="ok  ")  # a line per check
check = T.check


def exact_ci(values, level=0.95):
    """Smallest medians whose bootstrap probability of median <= it reaches
    (1 - level) / 2 and (1 + level) / 2 (np_stats_exact.c's definition)."""
    s = sorted(values)
    n, h = len(s), len(s) // 2

    def tail(j, m):  # P(Binomial(n, j / n) >= m)
        p = Fraction(j, n)
        return sum(comb(n, c) * p**c * (1 - p)**(n - c) for c in range(m, n + 1))

    masses = []
    if n % 2:
        at = [tail(j, h + 1) for j in range(n + 1)]
        masses = [(s[j - 1], at[j] - at[j - 1]) for j in range(1, n + 1)]
    else:
        at = [tail(j, h) for j in range(n + 1)]
        g = lambda m: Fraction(m, n)**h - Fraction(m - 1, n)**h
        for i in range(1, n + 1):
            off = 0
            for k in range(i + 1, n + 1):
                masses.append(((s[i - 1] + s[k - 1]) / 2, comb(n, h) * g(i) * g(n - k + 1)))
                off += comb(n, h) * g(i) * g(n - k + 1)
            masses.append((s[i - 1], at[i] - at[i - 1] - off))
    masses.sort(key=lambda m: m[0])
    a = (1 - Fraction(level).limit_denominator(1000)) / 2
    out = []
    for q in (a, 1 - a):
        acc = 0
        for v, p in masses:
            acc += p
            if acc >= q:
                out.append(v)
                break
    return out


def self_check(folder):
    rc, out, err = nptest.run([REPORT, "--self-check", "--results", folder],
                              timeout=120)
    return rc, out + err


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
for runs in (161, 154):  # the source's 7 configurations x 23 (odd), x 22 (even)
    out = os.path.join(WORK, f"set-{runs}")
    rc, sout, err = nptest.run([sys.executable, os.path.join(SRC, "bench", "scripts", "large_set.py"),
                                BUILD, out, "--runs", str(runs), "--source", SOURCE],
                               timeout=300)
    check(rc == 0 and "self-check clean" in sout,
          f"{runs} runs: a new set, self-check clean ({sout.strip()[-200:]} {err[-300:]})")
    if rc != 0:
        continue
    spath = os.path.join(out, "summary.json")
    summ = json.load(open(spath))
    check(summ["intervals"].get("ci_method") == "exact", f"{runs} runs: ci_method exact")
    compared = 0
    for c in summ["configurations"]:
        st = c["stats"]["roundtrips_per_sec"]
        vals = [r["roundtrips_per_sec"] for r in c["repetitions"]
                if r.get("status") == "passed" and isinstance(r.get("roundtrips_per_sec"), (int, float))]
        if st.get("ci95") is None or len(vals) != st["n"]:
            continue
        want = exact_ci(vals)
        got = [st["ci95"]["lo"], st["ci95"]["hi"]]
        check(all(abs(w - g) <= 1e-9 * abs(w) for w, g in zip(want, got)),
              f"{runs} runs, {c['id']}: ci95 {got} is the exact interval {want}")
        compared += 1
    check(compared > 0, f"{runs} runs: {compared} intervals compared")
    # the same summary without ci_method: the self-check applies the
    # resampler, and finds the stated intervals are not its own
    del summ["intervals"]["ci_method"]
    json.dump(summ, open(spath, "w"), indent="\t")
    rc, text = self_check(out)
    check(rc == 1 and "/ci95/" in text,
          f"{runs} runs: ci_method removed, the resampler's intervals differ: exit {rc} "
          f"{text.strip()[:300]}")
shutil.rmtree(WORK, ignore_errors=True)
sys.exit(T.done())
