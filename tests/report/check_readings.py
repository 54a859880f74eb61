#!/usr/bin/env python3
"""check_readings.py PAGES_DIR - a hand-written reading must not contradict
the tables generated beside it (issue 14, defect 10).

For every PAGES_DIR/<page>.reading.md whose page has its values in
PAGES_DIR/assets/<page>-report.json, each sentence of the reading that
claims a count is the same in every repetition ("identical", "every
repetition", "each repetition", "in every run", "in each run") is checked:
every whole number in it that is the median of a per-configuration count
in report.json (lost echoes, socket drops, RcvbufErrors, reassembly,
unrecoverable groups) must come from rows whose min equals their max.
A number that is no such median (a reference figure, a computed budget)
cannot be checked mechanically and is left alone.

A reading whose figures are references ({{...}}, issue 33) is read as
the report expanded it into PAGES_DIR/<page>.md.

One line per contradiction, `file: "number": reason`; exit 1 when there is
any, 0 otherwise, 2 on bad usage.
"""
import json
import os
import re
import sys

COUNT_KEYS = {"lost", "kernel_drops", "udp_rcvbuf_errors_delta",
              "ip_reasm_reqds_delta", "unrecoverable_groups"}
CLAIMS = ("identical", "every repetition", "each repetition",
          "in every run", "in each run", "in each of the")
NUMBER = re.compile(r"(?<![\d.,])(\d{1,3}(?:,\d{3})+|\d+)(?![\d.]|,\d)")


def stats(doc):
    """(median, min, max, where) of every count statistic of the tables."""
    out = []

    def walk(o, key, where):
        if isinstance(o, dict):
            if key in COUNT_KEYS and {"median", "min", "max"} <= o.keys():
                if all(isinstance(o[k], (int, float)) for k in
                       ("median", "min", "max")):
                    out.append((o["median"], o["min"], o["max"], where))
                return
            for k, v in o.items():
                walk(v, k, where)
        elif isinstance(o, list):
            for v in o:
                walk(v, key, where)

    for t in doc.get("tables", []):
        for r in t.get("rows", []):
            where = "%s %s %s" % (t.get("id", t.get("name", "?")),
                                  r.get("config", ""), "")
            if isinstance(r, dict):
                for k, v in r.items():
                    walk(v, k, where.strip() + " " + k)
    return out


def sentences(text):
    text = re.sub(r"\s+", " ", text)
    return [s for s in re.split(r"(?<=[.;])\s+", text) if s]


def check(pages):
    problems = []
    for name in sorted(os.listdir(pages)):
        if not name.endswith(".reading.md"):
            continue
        page = name[: -len(".reading.md")]
        rj = os.path.join(pages, "assets", page + "-report.json")
        if not os.path.exists(rj):
            continue
        with open(rj, encoding="utf-8") as f:
            st = stats(json.load(f))
        with open(os.path.join(pages, name), encoding="utf-8") as f:
            text = f.read()
        # a reading's figures are references (issue 33): check the text
        # the report expanded into the generated page when it is there
        gen = os.path.join(pages, page + ".md")
        if "{{" in text and os.path.exists(gen):
            with open(gen, encoding="utf-8") as f:
                g = f.read()
            m = re.search(r"^## Reading the results\n(.*?)^## ", g,
                          re.S | re.M)
            if m:
                text = m.group(1)
        for s in sentences(text):
            low = s.lower()
            if not any(c in low for c in CLAIMS):
                continue
            for m in NUMBER.finditer(s):
                n = int(m.group(1).replace(",", ""))
                rows = [x for x in st if x[0] == n]
                bad = [x for x in rows if x[1] != x[2]]
                for med, lo, hi, where in bad:
                    problems.append(
                        '%s: "%s": stated the same in every repetition, '
                        "but %s ranges %g-%g" % (name, m.group(1),
                                                 where.strip(), lo, hi))
    return problems


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        print("usage: check_readings.py PAGES_DIR", file=sys.stderr)
        return 2
    problems = check(sys.argv[1])
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
