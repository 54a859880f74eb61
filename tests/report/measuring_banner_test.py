#!/usr/bin/env python3
"""measuring_banner_test.py REPORT FIXTURE - the pages say which measuring
code their sets carry (docs/report.md, "Measuring code"):

- without --measuring-changes, one line names the set's hash (a set from
  before 0.3: "no measuring source hash", its source hash) and no banner;
- with a changes file whose tree hash differs, a banner lists the
  measuring files changed since, in the file's order, with their count;
  "HASH ?" says the changes are not known;
- a set carrying the tree's measuring hash gets no banner, one carrying
  another gets one;
- an unreadable changes file is one line and exit 2.
"""
import glob
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "lib"))
import nptest  # noqa: E402

report, fixture = sys.argv[1], sys.argv[2]
T = nptest.Checks()
check = T.check
TREE = "7" * 64
MEAS = "8" * 64


def pages(tmp, name, d, changes=None):
    out = os.path.join(tmp, name)
    argv = [report, "--pages", "--results", d, "--output", out]
    if changes is not None:
        p = os.path.join(tmp, name + ".changes")
        open(p, "w").write(changes)
        argv += ["--measuring-changes", p]
    rc, _, err = nptest.run(argv, timeout=60)
    check(rc == 0, f"{name}: exit {rc}: {err[-800:]}")
    return open(os.path.join(out, "udp.md")).read() if rc == 0 else ""


def with_measuring(d, h):
    """Every record and suite.json of d given measuring hash h."""
    for p in [os.path.join(d, "suite.json")] + glob.glob(
            os.path.join(d, "runs", "*", "rep-*.json")):
        doc = json.load(open(p))
        doc["tool"]["measuring_source_sha256"] = h
        json.dump(doc, open(p, "w"), indent="\t")


def main():
    src = json.load(open(os.path.join(fixture, "suite.json")))["tool"][
        "source_sha256"]
    with nptest.tmpdir("np-measuring-", T) as tmp:
        md = pages(tmp, "plain", fixture)
        check(f"Measuring code: 1 set with no measuring source hash (written "
              f"before 0.3), source hash `{src}`." in md,
              f"plain: no measuring line: {md[:1200]}")
        check("Measured by other code" not in md, "plain: a banner")
        md = pages(tmp, "changed", fixture,
                   f"tree {TREE}\n{src} bench/b.c\n{src} common/a.h\n")
        check(f"(`{TREE}`, scripts/source-hash.sh --measuring); 2 measuring "
              "files changed since the commit with that hash: `bench/b.c`, "
              "`common/a.h`." in md, f"changed: banner: {md[:1500]}")
        md = pages(tmp, "unknown", fixture, f"tree {TREE}\n{src} ?\n")
        check("no commit of this history has their hash, so the changes "
              "since are not known." in md, f"unknown: banner: {md[:1500]}")
        d = os.path.join(tmp, "meas")
        shutil.copytree(fixture, d)
        with_measuring(d, MEAS)
        md = pages(tmp, "same", d, f"tree {MEAS}\n")
        check(f"1 set with measuring source hash `{MEAS}`." in md and
              "Measured by other code" not in md,
              f"same: want the hash and no banner: {md[:1500]}")
        md = pages(tmp, "other", d, f"tree {TREE}\n{MEAS} runner/r.c\n")
        check(f"Sets with measuring source hash `{MEAS}` were not measured "
              "by this tree's measuring code" in md and
              "1 measuring file changed since the commit with that hash: "
              "`runner/r.c`." in md, f"other: banner: {md[:1500]}")
        rc, _, err = nptest.run([report, "--pages", "--results", fixture,
                                 "--output", os.path.join(tmp, "bad"),
                                 "--measuring-changes",
                                 os.path.join(tmp, "nope")], timeout=60)
        check(rc == 2 and err.count("\n") == 1 and
              "--measuring-changes" in err,
              f"unreadable changes file: exit {rc}: {err}")
    return T.done("measuring_banner_test: ok")


if __name__ == "__main__":
    sys.exit(main())
