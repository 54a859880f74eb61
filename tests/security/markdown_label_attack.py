#!/usr/bin/env python3
"""Attack: text from a plan or a folder label that rewrites the page.  A
label or a plan's metric label with "|" split table rows, and "<", ">"
and "&" reached the Markdown as HTML.  They are escaped (\\|, &lt; &gt;
&amp;) in labels, headings, table cells and chart alt text; MDX pages
already escaped them.  Pages of normal text are unchanged (regen-pages.sh
checks that in CI).

usage: markdown_label_attack.py BUILD_DIR SOURCE_DIR
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from jbsec import Box, args, check, copy_set, finish, fixture, run, tools

EVIL = "p|q <img src=x onerror=alert(1)> & r"


def table_rows_ok(md):
    """Every table row of md has as many unescaped | as its header."""
    lines = md.split("\n")
    for i, ln in enumerate(lines):
        if re.match(r"^\|(---:?\|)+", ln) and i > 0:
            want = len(re.findall(r"(?<!\\)\|", lines[i - 1]))
            j = i + 1
            while j < len(lines) and lines[j].startswith("|"):
                if len(re.findall(r"(?<!\\)\|", lines[j])) != want:
                    return False, lines[j]
                j += 1
    return True, ""


def main():
    build, source = args()
    t = tools(build)
    box = Box("mdlabel")
    try:
        # a plan whose metric label holds Markdown and HTML (the set then
        # fails its self-check on the plan digest; --force renders it)
        ex = copy_set(os.path.join(source, "results",
                                   "vm-20261202-exec-sockperf"),
                      os.path.join(box.inp, "exec"))
        sj = os.path.join(ex, "suite.json")
        doc = json.load(open(sj))
        doc["plan"]["exec"]["metrics"][0]["label"] = EVIL
        open(sj, "w").write(json.dumps(doc, indent=1))
        box.seal()
        cases = [
            ("--label of a udp set",
             [t["report"], "--results", fixture(source), "--label", EVIL],
             "udp"),
            ("a plan's metric label",
             [t["report"], "--results", ex, "--force"], "exec"),
        ]
        for name, argv, sub in cases:
            out_dir = os.path.join(box.out, sub)
            rc, out, err = run(argv + ["--output", out_dir])
            md = open(os.path.join(out_dir, "index.md"), encoding="utf-8") \
                .read() if os.path.exists(os.path.join(out_dir, "index.md")) \
                else ""
            check(rc == 0 and md != "", f"{name}: rendered (exit {rc}) "
                  f"{err[-200:]!r}")
            check("<img" not in md, f"{name}: no raw HTML in the page")
            check("p\\|q &lt;img src=x onerror=alert(1)&gt; &amp; r" in md,
                  f"{name}: shown escaped")
            ok, row = table_rows_ok(md)
            check(ok, f"{name}: every table row keeps its columns {row[:120]!r}")
        box.check_nothing_outside("Markdown labels")
    finally:
        box.close()
    finish("markdown_label_attack")


if __name__ == "__main__":
    main()
