#!/usr/bin/env python3
"""headline_left_test.py REPORT SOURCE_DIR - a plan's headline whose title
says "on each backend" over rows of two of the set's three backends says
which values the set also ran (issue 33, item 5: the udp-io-models
headline left out io_uring, the fastest backend)."""
import os
import shutil
import subprocess
import sys
import tempfile


def main():
    report, src = sys.argv[1], sys.argv[2]
    sset = os.path.join(src, "results", "vm-20261201-udp-io-models")
    out = tempfile.mkdtemp()
    try:
        subprocess.run([report, "--pages", "--results", sset, "--plans",
                        os.path.join(src, "bench", "plans"), "--output", out],
                       check=True, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        page = open(os.path.join(out, "udp.md"), encoding="utf-8").read()
    finally:
        shutil.rmtree(out)
    head = page[page.index("### Headline:"):page.index("The full grid follows.")]
    want = ["The headline's rows show backend uv and raw only; the set also "
            "ran uring, in the full grid below.",
            "The headline's rows show io-model single and pool only; the set "
            "also ran split, reuseport and connected, in the full grid below."]
    for w in want:
        if w not in head:
            print(f"FAIL: missing '{w}' in the headline section")
            return 1
    print("headline_left_test: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
