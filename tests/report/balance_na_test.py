#!/usr/bin/env python3
"""balance_na_test.py REPORT SOURCE_DIR - the correctness line of a set
whose records carry no server counters (a one-way stream, an external
server) says the request-leg and echo balances do not apply, instead of
"lost request leg in 0 and server replies in 0 of them" (issue 33, item
5), and a set that has them keeps its counts."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "lib"))
import nptest  # noqa: E402


def main():
    report, src = sys.argv[1], sys.argv[2]
    res = os.path.join(src, "results")
    T = nptest.Checks(fatal=True)
    with nptest.tmpdir(prefix="np-balance-na-test-") as out:
        cmd = [report, "--pages", "--output", out]
        for s in ("udp-stream", "udp-two-namespace", "udp-stress"):
            cmd += ["--results", os.path.join(res, "vm-20261202-" + s)]
        rc, _, err = nptest.run(cmd, timeout=50)
        T.check(rc == 0, f"netproof-report --pages: exit {rc}: {err}")
        page = open(os.path.join(out, "udp.md"), encoding="utf-8").read()
    lines = {l.split(":")[0][2:]: l for l in page.splitlines()
             if l.startswith("- udp-") and "content errors" in l}
    na = "the request-leg and echo balances do not apply (no server " \
         "counters in these records)."
    for s in ("udp-stream", "udp-two-namespace"):
        T.check(lines.get(s, "").endswith(na) and
                "in 0 of them" not in lines[s], f"{s}: {lines.get(s)}")
    T.check(lines.get("udp-stress", "").endswith(
            "lost request leg in 2 and server receives = server replies "
            "in 2 of them."), f"udp-stress: {lines.get('udp-stress')}")
    return T.done("balance_na_test: ok")


if __name__ == "__main__":
    sys.exit(main())
