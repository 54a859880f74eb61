#!/usr/bin/env python3
"""compare_common_test.py REPORT BASE NEW - compare's charts shorten the
configuration names to the tokens that differ; the tokens every
configuration shares (payload, clients, window ...) are then named in the
chart's subtitle and the Markdown alt text, not lost (issue 33, item 5:
compare charts omitted the payload)."""
import glob
import os
import shutil
import subprocess
import sys
import tempfile


def main():
    report, base, new = sys.argv[1:4]
    out = tempfile.mkdtemp()
    try:
        subprocess.run([report, "compare", base, new, "--output", out,
                        "--allow-inconclusive"],
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        md = open(os.path.join(out, "compare.md"), encoding="utf-8").read()
        svgs = sorted(glob.glob(os.path.join(out, "assets", "compare-*.svg")))
        svg = open(svgs[0], encoding="utf-8").read() if svgs else ""
    finally:
        shutil.rmtree(out)
    alts = [l for l in md.splitlines() if l.startswith("![")]
    if not alts:
        print("FAIL: no chart in compare.md")
        return 1
    for a in alts:
        if "(every configuration: udp, p1024, c4, w1, single)" not in a:
            print(f"FAIL: alt text lacks the shared tokens: {a}")
            return 1
    if "every configuration: udp, p1024, c4, w1, single" not in svg:
        print("FAIL: the chart's subtitle lacks the shared tokens")
        return 1
    print("compare_common_test: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
