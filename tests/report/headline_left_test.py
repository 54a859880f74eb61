#!/usr/bin/env python3
"""headline_left_test.py REPORT SOURCE_DIR - a plan's headline whose title
says "on each backend" over rows of two of the set's three backends says
which values the set also ran (issue 33, item 5: the udp-io-models
headline left out io_uring, the fastest backend)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "lib"))
import nptest  # noqa: E402


def main():
    report, src = sys.argv[1], sys.argv[2]
    sset = os.path.join(src, "results", "vm-20261202-udp-io-models")
    T = nptest.Checks(fatal=True)
    with nptest.tmpdir(prefix="np-headline-left-test-") as out:
        rc, _, err = nptest.run([report, "--pages", "--results", sset,
                                 "--plans", os.path.join(src, "bench", "plans"),
                                 "--output", out], timeout=50)
        T.check(rc == 0, f"netproof-report --pages: exit {rc}: {err}")
        page = open(os.path.join(out, "udp.md"), encoding="utf-8").read()
    head = page[page.index("### Headline:"):page.index("The full grid follows.")]
    want = ["The headline's rows show backend uv and raw only; the set also "
            "ran uring, in the full grid below.",
            "The headline's rows show io-model single and pool only; the set "
            "also ran split, reuseport and connected, in the full grid below."]
    for w in want:
        T.check(w in head, f"missing '{w}' in the headline section")
    return T.done("headline_left_test: ok")


if __name__ == "__main__":
    sys.exit(main())
