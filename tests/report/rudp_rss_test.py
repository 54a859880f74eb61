#!/usr/bin/env python3
"""rudp_rss_test.py REPORT SOURCE_DIR - the rudp sustained table's Max RSS
is the maximum of everything the run measured (issue 33, item 2): each
record's ru_maxrss and every 1 s RSS sample of its series, and the table
says so.  The committed rudp-sustained set has samples above ru_maxrss
(11,878,400 B against a sample of 12,156,928 B), so ru_maxrss alone, the
old cell, reads 11.3 where the records measured 11.6 MiB."""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile


def main():
    report, src = sys.argv[1], sys.argv[2]
    sset = os.path.join(src, "results", "vm-20261202-rudp-sustained")
    want = {}
    for f in sorted(glob.glob(os.path.join(sset, "runs", "*", "rep-*.json"))):
        d = json.load(open(f))
        peak = d["measurement"]["rss_max_bytes"]
        for r in d["rudp"]["rounds"]:
            for p in r["intervals"]["points"]:
                peak = max(peak, p["rss_bytes"])
        want[d["config"]["fec"]] = (peak, d["measurement"]["rss_max_bytes"])
    assert any(p > ru for p, ru in want.values()), "fixture lost its point"
    out = tempfile.mkdtemp()
    try:
        subprocess.run([report, "--pages", "--results", sset, "--output", out],
                       check=True, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        page = open(os.path.join(out, "rudp.md"), encoding="utf-8").read()
        rep = json.load(open(os.path.join(out, "assets", "rudp-report.json")))
    finally:
        shutil.rmtree(out)
    sec = page[page.index("### Sustained test"):]
    rows = [l for l in sec.splitlines() if l.startswith("| ")]
    head = [c.strip() for c in rows[0].strip("|").split("|")]
    col = head.index("Max RSS / MiB")
    label = {"none": "ARQ only", "fixed": "fixed FEC", "adaptive": "adaptive FEC"}
    seen = 0
    for l in rows[1:]:
        cells = [c.strip() for c in l.strip("|").split("|")]
        for fec, (peak, _) in want.items():
            if cells[0].lower().startswith(label[fec].lower()):
                exp = f"{peak / 1048576:.1f}"
                if cells[col] != exp:
                    print(f"FAIL: {fec}: Max RSS {cells[col]}, want {exp} "
                          f"(max of ru_maxrss and the samples)")
                    return 1
                seen += 1
    if seen != len(want):
        print(f"FAIL: found {seen} of {len(want)} sustained rows: {rows}")
        return 1
    if not re.search(r"Max RSS is the largest resident set the run "
                     r"measured: its `ru_maxrss` or any 1 s sample", sec):
        print("FAIL: the table does not name the source of Max RSS")
        return 1
    tab = next(t for t in rep["tables"] if t["name"] == "rudp_sustained")
    got = sorted(r["rss_peak_bytes"] for r in tab["rows"])
    if got != sorted(p for p, _ in want.values()):
        print(f"FAIL: report.json rss_peak_bytes {got}")
        return 1
    print("rudp_rss_test: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
