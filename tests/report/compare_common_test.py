#!/usr/bin/env python3
"""compare_common_test.py REPORT BASE NEW - compare's charts shorten the
configuration names to the tokens that differ; the tokens every
configuration shares (payload, clients, window ...) are then named in the
chart's subtitle and the Markdown alt text, not lost (issue 33, item 5:
compare charts omitted the payload)."""
import glob
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "lib"))
import nptest  # noqa: E402


def main():
    report, base, new = sys.argv[1:4]
    T = nptest.Checks(fatal=True)
    with nptest.tmpdir(prefix="np-compare-common-test-") as out:
        # its exit code is compare's verdict (inconclusive here), not ours
        nptest.run([report, "compare", base, new, "--output", out,
                    "--allow-inconclusive"], timeout=50)
        md = open(os.path.join(out, "compare.md"), encoding="utf-8").read()
        svgs = sorted(glob.glob(os.path.join(out, "assets", "compare-*.svg")))
        svg = open(svgs[0], encoding="utf-8").read() if svgs else ""
    alts = [l for l in md.splitlines() if l.startswith("![")]
    T.check(alts, "no chart in compare.md")
    for a in alts:
        T.check("(every configuration: udp, p1024, c4, w1, single)" in a,
                f"alt text lacks the shared tokens: {a}")
    T.check("every configuration: udp, p1024, c4, w1, single" in svg,
            "the chart's subtitle lacks the shared tokens")
    return T.done("compare_common_test: ok")


if __name__ == "__main__":
    sys.exit(main())
