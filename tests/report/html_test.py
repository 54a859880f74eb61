#!/usr/bin/env python3
"""netproof-report --format html in a real browser (Debian's chromium,
headless; exit 77 = skipped, only when chromium is not installed).

  - every table cell of index.html equals report.json: numbers by their
    exact data-value, text, yes/no; one row group per report.json row;
  - every run link resolves to a file in OUT (copied), or into the results
    folder with --link-runs relative;
  - nothing outside OUT is loaded: no src/href/url() leaves the page's
    folder, and the Content-Security-Policy allows no remote load and no
    script but the page's own (chromium runs it: data-js="ready"), and
    in the browser no load was refused by it (a first script counts CSP
    violations; a copy with a planted remote image shows the count work);
  - sort and filter work in the browser: a page state given in the URL
    fragment (#sort=, #filter=, #dim=), read back with --dump-dom;
  - a hostile label (<script>...) shows as text; a failing set is refused
    unless --force, which puts the banner on the page;
  - a screenshot is not blank;
  - compare --format html: the gate (inconclusive at 3 runs a side) at
    the top, a row per configuration, escaped labels, held by --check.
usage: html_test.py NETPROOF_REPORT SOURCE_DIR"""
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zlib

REPORT, SRC = sys.argv[1:3]
SET = os.path.join(SRC, "results", "vm-20261202-udp-size-limits")
CHROMIUM = shutil.which("chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]
FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL: " + what, file=sys.stderr)


class Page(html.parser.HTMLParser):
    """Tables (id -> heads, row groups of cells), links, loads, scripts."""

    def __init__(self):
        super().__init__()
        self.tables, self.links, self.loads = {}, [], []
        self.scripts, self.csp = 0, None
        self.stack = []  # open data tables
        self.cell = None
        self.tbody = None
        self.hidden = {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for k in ("src", "href"):
            if k in a and tag != "a":
                self.loads.append(a[k])
        if tag == "a" and "href" in a:
            self.links.append(a["href"])
        if tag == "script":
            self.scripts += 1
            if "src" in a:
                self.loads.append(a["src"])
        if tag == "meta" and a.get("http-equiv") == "Content-Security-Policy":
            self.csp = a.get("content")
        if tag == "table":
            if "data" in (a.get("class") or "").split():
                t = {"heads": [], "groups": [], "sorted": a.get("data-sorted"),
                     "hidden": 0}
                self.tables[a["id"]] = t
                self.stack.append(t)
            else:
                self.stack.append(None)
        t = self.stack[-1] if self.stack else None
        if t is None:
            return
        if tag == "th" and not t["groups"] and self.tbody is None:
            kind = next((k for k in ("data-dim", "data-stat", "data-key")
                         if k in a), None)
            t["heads"].append((kind, a.get(kind)))
        if tag == "tbody":
            self.tbody = {"cells": [], "hidden": "hidden" in a}
            t["groups"].append(self.tbody)
        if tag == "td" and self.tbody is not None and \
                len(self.tbody.get("rows", [])) == 0:
            self.cell = {"value": a.get("data-value"), "text": ""}
        if tag == "tr" and self.tbody is not None:
            self.tbody.setdefault("rows", [])
            if self.tbody["cells"]:
                self.tbody["rows"].append(1)

    def handle_endtag(self, tag):
        if tag == "td" and self.cell is not None:
            self.tbody["cells"].append(self.cell)
            self.cell = None
        if tag == "tbody":
            self.tbody = None
        if tag == "table" and self.stack:
            self.stack.pop()

    def handle_data(self, data):
        if self.cell is not None:
            self.cell["text"] += data


def parse(path_or_text, text=False):
    p = Page()
    p.feed(path_or_text if text else open(path_or_text, encoding="utf-8").read())
    return p


def report(args):
    return subprocess.run([REPORT] + args, capture_output=True, text=True,
                          timeout=120)


def leaf(row, key):
    v = row
    for k in key.split("."):
        v = v.get(k) if isinstance(v, dict) else None
    return v


def cells_match(page, rj):
    for tab in rj["tables"]:
        tid = "t-" + tab["id"]
        t = page.tables.get(tid)
        check(t is not None, f"table {tid} in the page")
        if t is None:
            continue
        check(len(t["groups"]) == len(tab["rows"]),
              f"{tid}: {len(t['groups'])} row groups, report.json {len(tab['rows'])}")
        for g, row in zip(t["groups"], tab["rows"]):
            for (kind, key), c in zip(t["heads"], g["cells"]):
                if kind in ("data-dim", None):
                    continue  # summary.json's options; the marks column
                want = leaf(row, key + ".median" if kind == "data-stat" else key)
                if isinstance(want, bool):
                    ok = c["text"] == ("yes" if want else "no")
                elif isinstance(want, (int, float)):
                    ok = c["value"] is not None and float(c["value"]) == want
                elif isinstance(want, str):
                    ok = c["text"] == want
                elif want is None:
                    ok = c["text"] in ("-", "")
                else:
                    ok = json.loads(c["text"]) == want
                check(ok, f"{tid} {row.get('config', row.get('item', ''))} "
                          f"{key}: page {c}, report.json {want!r}")


def chromium(args, url):
    p = subprocess.run([CHROMIUM] + FLAGS + args + [url], capture_output=True,
                       text=True, timeout=120)
    return p


def main():
    if CHROMIUM is None:
        print("html_test: skipped: chromium is not installed "
              "(scripts/install-deps.sh --test installs it)")
        return 77
    tmp = tempfile.mkdtemp(prefix="np-html-test-")
    try:
        out = os.path.join(tmp, "out")
        hostile = "<script>alert(1)</script>"
        p = report(["--results", SET, "--label", hostile, "--output", out,
                    "--format", "md,html"])
        check(p.returncode == 0, f"report: {p.returncode} {p.stderr}")
        idx = os.path.join(out, "index.html")
        page = parse(idx)
        rj = json.load(open(os.path.join(out, "report.json")))
        cells_match(page, rj)
        text = open(idx, encoding="utf-8").read()
        check(hostile not in text and
              "&lt;script&gt;alert(1)&lt;/script&gt;" in text,
              "a hostile label shows as text")
        check(page.scripts == 2, f"two scripts, the page's own ({page.scripts})")
        check(page.csp is not None and "default-src 'none'" in page.csp and
              re.search(r"script-src 'sha256-[A-Za-z0-9+/=]+'", page.csp),
              f"CSP: {page.csp}")
        outside = [u for u in page.loads + page.links
                   if re.match(r"^[a-z]+:", u) or u.startswith("/") or
                   u.startswith("..")]
        check(not outside, f"nothing outside OUT: {outside[:5]}")
        check("url(" not in re.sub(r"url\(#", "", text),
              "no url() loads but fragment references")
        runs = [u for u in page.links if u.startswith("runs/")]
        check(len(runs) > 0 and all(os.path.isfile(os.path.join(out, u))
                                    for u in runs),
              f"{len(runs)} run links, all resolve")
        check(any(u.endswith(".json") for u in runs) and
              any("kernel-before" in u or "/kernel-snapshots/" in u
                  for u in runs) and
              any(u.endswith("cmd.txt") for u in runs),
              "each run links its record, command and kernel snapshots")
        data = [u for u in page.links if u.startswith("data/") or
                u.startswith("tables/")]
        check(data and all(os.path.isfile(os.path.join(out, u)) for u in data),
              "every data / CSV link resolves")

        # the browser: script ran, sort and filter by the fragment
        tab = next(t for t in rj["tables"] if t["name"] ==
                   "throughput_latency_cpu")
        tid = "t-" + tab["id"]
        heads = page.tables[tid]["heads"]
        col = next(i for i, (k, key) in enumerate(heads)
                   if key == "roundtrips_per_sec")
        url = "file://" + idx
        d = chromium(["--dump-dom"], url + f"#sort={tid}:{col}:desc")
        dom = parse(d.stdout, text=True)
        check('data-js="ready"' in d.stdout, "the page's script ran under its CSP")
        check('data-csp-violations="0"' in d.stdout,
              "no load refused by the page's CSP (none attempted)")
        # the detector can fail: a copy with a remote image gets it refused
        # by the CSP (no request is made) and counted
        evil = os.path.join(out, "evil.html")
        open(evil, "w", encoding="utf-8").write(text.replace(
            "<main>", '<main><img src="http://127.0.0.1:9/x.png" alt="">', 1))
        e = chromium(["--dump-dom"], "file://" + evil)
        check('data-csp-violations="1"' in e.stdout and
              'data-csp-blocked="http://127.0.0.1:9/x.png"' in e.stdout,
              "a remote load planted in a copy is refused by the CSP and "
              "counted")
        os.remove(evil)
        t = dom.tables.get(tid)
        vals = [float(g["cells"][col]["value"]) for g in t["groups"]
                if g["cells"][col]["value"] is not None]
        want = sorted((leaf(r, "roundtrips_per_sec.median") for r in tab["rows"]
                       if leaf(r, "roundtrips_per_sec.median") is not None),
                      reverse=True)
        check(t["sorted"] == f"{col}:desc" and vals == want,
              f"sorted by round trips/s, descending: {t['sorted']} {vals} {want}")
        first = tab["rows"][0]["config"]
        d = chromium(["--dump-dom"], url + f"#filter={tid}:{first}")
        t = parse(d.stdout, text=True).tables.get(tid)
        shown = [g for g in t["groups"] if not g["hidden"]]
        check(len(shown) == 1 and len(t["groups"]) == len(tab["rows"]),
              f"filter '{first}': {len(shown)} of {len(t['groups'])} shown")
        dcol = next((i for i, (k, key) in enumerate(heads) if k == "data-dim"
                     and key == "payload"), None)
        if dcol is not None:
            v = page.tables[tid]["groups"][0]["cells"][dcol]["value"]
            d = chromium(["--dump-dom"], url + f"#dim={tid}:{dcol}:{v}")
            t = parse(d.stdout, text=True).tables.get(tid)
            shown = [g for g in t["groups"] if not g["hidden"]]
            check(shown and all(g["cells"][dcol]["value"] == v for g in shown)
                  and len(shown) < len(t["groups"]),
                  f"dimension filter payload={v}: {len(shown)} shown")
        png = os.path.join(tmp, "shot.png")
        chromium([f"--screenshot={png}", "--window-size=1280,1600"], url)
        raw = open(png, "rb").read() if os.path.exists(png) else b""
        idat, at = b"", 8  # PNG chunks: length, type, data, CRC
        while at + 8 <= len(raw):
            n = int.from_bytes(raw[at:at + 4], "big")
            if raw[at + 4:at + 8] == b"IDAT":
                idat += raw[at + 8:at + 8 + n]
            at += 12 + n
        try:
            pixels = zlib.decompress(idat)
        except zlib.error:
            pixels = b""
        check(len(set(pixels[::97])) > 8, f"screenshot not blank "
              f"({len(raw)} bytes, {len(set(pixels[::97]))} byte values)")

        # links into the results folder instead of copies
        rel = os.path.join(tmp, "rel")
        p = report(["--results", SET, "--output", rel, "--format", "html",
                    "--link-runs", "relative"])
        page = parse(os.path.join(rel, "index.html"))
        runs = [u for u in page.links if "/runs/" in u]
        check(p.returncode == 0 and runs and not os.path.exists(
            os.path.join(rel, "runs")) and all(os.path.isfile(
                os.path.normpath(os.path.join(rel, u))) for u in runs),
            f"--link-runs relative: {p.returncode} {runs[:2]}")

        # a failing set: refused, or stamped with --force
        bad = os.path.join(tmp, "bad")
        shutil.copytree(SET, bad)
        rec = next(os.path.join(dp, n) for dp, _, ns in os.walk(bad)
                   for n in sorted(ns) if n.endswith(".json") and "rep-" in n)
        doc = json.load(open(rec))
        doc["measurement"]["roundtrips_per_sec"] *= 2
        json.dump(doc, open(rec, "w"))
        p = report(["--results", bad, "--output", os.path.join(tmp, "b1"),
                    "--format", "html"])
        check(p.returncode == 1 and not os.path.exists(
            os.path.join(tmp, "b1", "index.html")), f"failing set refused: {p.returncode}")
        p = report(["--results", bad, "--output", os.path.join(tmp, "b2"),
                    "--format", "html", "--force"])
        text = open(os.path.join(tmp, "b2", "index.html")).read() \
            if p.returncode == 0 else ""
        check("SELF-CHECK FAILED" in text, f"--force stamps the page: {p.returncode}")

        # compare --format html: the gate's state at the top, inconclusive
        # visible (3 runs a side), labels escaped, --check holds the page
        cmp = os.path.join(tmp, "cmp")
        p = subprocess.run([REPORT, "compare", SET, SET, "--output", cmp,
                            "--format", "html", "--new-label", hostile],
                           capture_output=True, text=True, timeout=120)
        page = os.path.join(cmp, "compare.html")
        text = open(page, encoding="utf-8").read() if os.path.exists(page) else ""
        head = text[:text.find("<main>")]
        check(p.returncode == 5 and "Gate: inconclusive" in head and
              "Inconclusive:" in head and "need" in head,
              f"compare page: the inconclusive gate at the top ({p.returncode})")
        check(hostile not in text and "&lt;script&gt;" in text,
              "compare page: a hostile label as text")
        cp = parse(page)
        cj = json.load(open(os.path.join(cmp, "compare.json")))
        t = cp.tables.get("t-compare-roundtrips_per_sec")
        check(t is not None and len(t["groups"]) == len(cj["configurations"]),
              "compare page: a row per compared configuration")
        p = subprocess.run([REPORT, "compare", SET, SET, "--check", cmp],
                           capture_output=True, text=True, timeout=120)
        check(p.returncode == 0, f"compare --check holds the page: {p.stdout}")
        open(page, "a").write("<!-- edited -->")
        p = subprocess.run([REPORT, "compare", SET, SET, "--check", cmp],
                           capture_output=True, text=True, timeout=120)
        check(p.returncode == 1 and "compare.html" in p.stdout,
              f"compare --check catches an edited page: {p.stdout}")
    finally:
        shutil.rmtree(tmp)
    if FAILS:
        print(f"{len(FAILS)} failed")
        return 1
    print("html report: all cases passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
