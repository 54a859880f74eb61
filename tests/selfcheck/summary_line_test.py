#!/usr/bin/env python3
"""The udp summary line in both forms the self-check holds: today's
(`p50 ... μs`, `lost N of M (P %; kernel drops K)`) for a set made now,
0.2's (`us`, `lost N (kernel drops K)`) for the committed sets (the
corpus covers those).  A set made now self-checks clean; a changed count
or percentage in its kept line is named.

usage: summary_line_test.py NETPROOF_BENCH NETPROOF_REPORT"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "lib"))
import nptest  # noqa: E402

BENCH, REPORT = sys.argv[1:3]
T = nptest.Checks(stream=sys.stderr)
check = T.check


def selfcheck(out):
    p = subprocess.run([REPORT, "--self-check", "--results", out],
                       capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout + p.stderr


def main():
    tmp = tempfile.mkdtemp(prefix="np-summary-line-")
    try:
        plan = {"schema": "netproof/plan/1", "suite": "line", "protocol": "udp",
                "repetitions": 1, "timeout_seconds": 20,
                "base": {"clients": 2, "warmup": 0.1, "seconds": 0.2},
                "configurations": [{"backend": "raw"}]}
        pf = os.path.join(tmp, "plan.json")
        json.dump(plan, open(pf, "w"))
        out = os.path.join(tmp, "set")
        p = subprocess.run([BENCH, "matrix", pf, "--output", out, "--quiet"],
                           capture_output=True, text=True, timeout=60)
        check(p.returncode == 0, f"matrix: {p.returncode} {p.stderr}")
        cfg = os.listdir(os.path.join(out, "runs"))[0]
        err = os.path.join(out, "runs", cfg, "rep-1.stderr.txt")
        text = open(err, encoding="utf-8").read()
        m = re.search(r"p50 [0-9.]+ μs, p99 [0-9.]+ μs, lost (\d+) of (\d+) "
                      r"\(([0-9.]+) %; kernel drops (\d+)\)", text)
        check(m is not None, f"today's line: {text!r}")
        code, out_text = selfcheck(out)
        check(code == 0, f"a set made now self-checks clean: {out_text}")
        if m:
            for what, new in (("the sent count", m.group(0).replace(
                    f"of {m.group(2)}", f"of {int(m.group(2)) + 1}")),
                              ("the percentage", m.group(0).replace(
                                  f"({m.group(3)} %", "(1.00 %"))):
                open(err, "w", encoding="utf-8").write(
                    text.replace(m.group(0), new))
                code, out_text = selfcheck(out)
                check(code == 1 and "lacks the line the record implies"
                      in out_text, f"a changed {what} is named: {code} "
                      f"{out_text[-400:]}")
            open(err, "w", encoding="utf-8").write(text)
    finally:
        shutil.rmtree(tmp)
    if T.fails:
        print(f"{len(T.fails)} failed")
        return 1
    print("summary line: all cases passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
