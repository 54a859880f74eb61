#!/usr/bin/env python3
"""balance_na_test.py REPORT SOURCE_DIR - the correctness line of a set
whose records carry no server counters (a one-way stream, an external
server) says the request-leg and echo balances do not apply, instead of
"lost request leg in 0 and server replies in 0 of them" (issue 33, item
5), and a set that has them keeps its counts."""
import os
import shutil
import subprocess
import sys
import tempfile


def main():
    report, src = sys.argv[1], sys.argv[2]
    res = os.path.join(src, "results")
    out = tempfile.mkdtemp()
    try:
        cmd = [report, "--pages", "--output", out]
        for s in ("udp-stream", "udp-two-namespace", "udp-stress"):
            cmd += ["--results", os.path.join(res, "vm-20261201-" + s)]
        subprocess.run(cmd, check=True, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        page = open(os.path.join(out, "udp.md"), encoding="utf-8").read()
    finally:
        shutil.rmtree(out)
    lines = {l.split(":")[0][2:]: l for l in page.splitlines()
             if l.startswith("- udp-") and "content errors" in l}
    na = "the request-leg and echo balances do not apply (no server " \
         "counters in these records)."
    for s in ("udp-stream", "udp-two-namespace"):
        if not lines.get(s, "").endswith(na) or "in 0 of them" in lines[s]:
            print(f"FAIL: {s}: {lines.get(s)}")
            return 1
    if not lines.get("udp-stress", "").endswith(
            "lost request leg in 2 and server receives = server replies "
            "in 2 of them."):
        print(f"FAIL: udp-stress: {lines.get('udp-stress')}")
        return 1
    print("balance_na_test: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
