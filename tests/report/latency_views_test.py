"""The report's issue-19 views on a real set made here: a short matrix of a
capacity run and three open-loop fractions with --interval (loopback,
bounded), reported: index.md has the latency-under-load section with its
table, the percentile distribution and one time series per
configuration with a trend sentence; the three SVGs carry their <title>;
report.json validates against report.schema.json and lists every point
with its configuration; a udp-stream set gets the one-way delay
distribution and a streams table instead of round trips; a rudp set with --interval its time series.  The same
sets through --pages: udp.md (rudp.md) carries the views under the
suite's heading, charts under its asset prefix (the
suite name for a set named after its suite).

usage: latency_views_test.py BENCH REPORT REPORT_SCHEMA
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import jsonschema

BENCH, REPORT, SCHEMA = sys.argv[1:4]
TMP = tempfile.mkdtemp(prefix="np-latency-views-")


def fail(msg):
    print("FAIL: %s (files kept in %s)" % (msg, TMP), file=sys.stderr)
    sys.exit(1)


def run(args, timeout=180, ok=(0,)):
    r = subprocess.run(args, stderr=subprocess.PIPE, stdout=subprocess.PIPE,
                       text=True, timeout=timeout)
    if r.returncode not in ok:
        fail("%s: exit %d: %s" % (args[:2], r.returncode, r.stderr))
    return r


def matrix(name, plan):
    path = os.path.join(TMP, name + ".json")
    with open(path, "w") as f:
        json.dump(plan, f)
    out = os.path.join(TMP, name)
    # exit 1: a configuration failed its checks (the loaded machine may
    # lose replies at the highest fraction); the views still draw it
    run([BENCH, "matrix", path, "--output", out], ok=(0, 1))
    rep = os.path.join(TMP, name + "-report")
    run([REPORT, "--results", out, "--output", rep])
    with open(os.path.join(rep, "index.md")) as f:
        md = f.read()
    with open(os.path.join(rep, "report.json")) as f:
        rj = json.load(f)
    with open(SCHEMA) as f:
        errs = list(jsonschema.Draft202012Validator(json.load(f))
                    .iter_errors(rj))
    if errs:
        fail("%s: report.json: %s" % (name, errs[0].message))
    return rep, md, rj, out


def passed_configs(out):
    """Configurations of a matrix output with a passed status."""
    with open(os.path.join(out, "summary.json")) as f:
        summ = json.load(f)
    return sum(1 for c in summ["configurations"] if c["status"] == "passed")


def pages(name, results, wants, svgs):
    """--pages over one set: udp.md has every heading in wants and each
    asset stem in svgs (drawn, titled) is linked from the page."""
    pg = os.path.join(TMP, name + "-pages")
    run([REPORT, "--pages", "--results", results, "--output", pg])
    with open(os.path.join(pg, "udp.md")) as f:
        md = f.read()
    for want in wants:
        if want not in md:
            fail("pages %s: udp.md lacks %r" % (name, want))
    for stem, title in svgs:
        if "assets/%s.svg" % stem not in md:
            fail("pages %s: udp.md does not link %s.svg" % (name, stem))
        svg_title(pg, stem, title)
    return md


def svg_title(rep, stem, want):
    path = os.path.join(rep, "assets", stem + ".svg")
    if not os.path.exists(path):
        fail("no %s" % path)
    with open(path) as f:
        svg = f.read()
    if "<title>%s" % want not in svg or "<polyline" not in svg and \
            "<path" not in svg:
        fail("%s: no title %r or nothing drawn" % (stem, want))


def test_open_loop():
    rep, md, rj, out = matrix("ll", {
        "schema": "netproof/plan/1", "suite": "udp-latency-load",
        "protocol": "udp",
        "repetitions": 1,
        "base": {"payload": 256, "clients": 4, "backend": "raw",
                 "warmup": 0.05, "seconds": 0.4, "interval": 0.1},
        "capacity": {"match": {"rate": 0}},
        "configurations": [{"window": 1}, {"rate-fraction": 0.1},
                           {"rate-fraction": 0.3}, {"rate-fraction": 0.6}]})
    for want in ("### Latency under load (open loop)",
                 "| Offered / s | of capacity |",
                 "### Latency: percentile distribution",
                 "### Time series (--interval)"):
        if want not in md:
            fail("index.md lacks %r" % want)
    npass = passed_configs(out)
    if md.count("slices; median p99 of the first third") != npass:
        fail("one trend sentence per passed configuration expected")
    svg_title(rep, "ll-latency-load", "UDP latency under load")
    svg_title(rep, "ll-latency-distribution", "Latency against percentile")
    svg_title(rep, "ll-timeseries-udp-p256-c4-w1-single-raw-rf0.3",
              "Time series")
    load = [c for c in rj["charts"] if c["file"].endswith("latency-load.svg")]
    if len(load) != 1 or len(load[0]["series"]) < 9 or \
            {p["series"] for p in load[0]["series"]} != {"p50", "p99",
                                                         "p99.9"}:
        fail("report.json latency-load chart: %s" % load)
    pmd = pages("ll", out, ("## Latency under load\n",
                            "### Latency under load (open loop)",
                            "### Latency: percentile distribution",
                            "### Time series (--interval)"),
                (("udp-latency-load-latency-load", "UDP latency under load"),
                 ("udp-latency-load-latency-distribution",
                  "Latency against percentile")))
    if pmd.count("slices; median p99 of the first third") != npass:
        fail("pages: one trend sentence per passed configuration expected")
    if "| Backend | Offered / s |" not in pmd:
        fail("pages: the throughput table does not tell the rates apart")


def test_stream():
    rep, md, _, out = matrix("st", {
        "schema": "netproof/plan/1", "suite": "udp-stream",
        "protocol": "udp",
        "repetitions": 1,
        "base": {"mode": "stream", "backend": "raw", "io-model": "split",
                 "clients": 1, "payload": 1472, "warmup": 0.05,
                 "seconds": 0.3, "packet-rate": 5000},
        "dimensions": {"gso": [0, 14720]}})
    if "### One-way delay: percentile distribution" not in md:
        fail("stream: no one-way delay distribution")
    svg_title(rep, "st-latency-distribution", "One-way delay against")
    pmd = pages("st", out, ("## One-way streams\n",
                            "### One-way delay: percentile distribution"),
                (("udp-stream-latency-distribution",
                  "One-way delay against"),))
    if "### Latency under load" in pmd or "Round trips / s" in pmd:
        fail("pages st: a stream set has no latency-under-load view and "
             "no round trips")
    rows = [l for l in pmd.splitlines()
            if l.startswith("| udp-stream-p1472-c1-w1-split-raw-gso")]
    if "### Streams: rate, loss, jitter and one-way delay" not in pmd or \
            len(rows) != 2 or any(" - |" in r for r in rows):
        fail("pages st: streams table: %s" % rows)
    if "### Streams: rate, loss" not in md:
        fail("stream: index.md has no streams table")
    # a jitter from shared send stamps (two or more datagrams per send
    # call) is marked, by the row's own datagrams / send call; GSO of 10
    # segments always is
    for r in rows:
        cells = [c.strip() for c in r.strip("|").split("|")]
        per_call = float(cells[-1].replace(",", ""))
        if cells[5].endswith(" †") != (per_call >= 2):
            fail("pages st: jitter mark against %s per call: %s" %
                 (per_call, r))
        if "gso14720" in r and per_call < 10:
            fail("pages st: GSO 14720 row sends %s per call: %s" %
                 (per_call, r))
    if "† Not a path's jitter: every datagram of one send call" not in pmd:
        fail("pages st: no caption for the marked jitter")
    if "These records' clock text says" in pmd:
        fail("pages st: the pre-per-call clock note on new records")
    # the committed set (0.3.0) was written with the per-call send
    # stamps: no clock note on it
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       os.pardir, os.pardir)
    cur = os.path.join(src, "results", "vm-20261202-udp-stream")
    if not os.path.isdir(cur):
        fail("no committed udp-stream set at %s" % cur)
    else:
        o = os.path.join(TMP, "cur-stream")
        run([REPORT, "--results", cur, "--output", o])
        text = open(os.path.join(o, "index.md")).read()
        if "These records' clock text says" in text:
            fail("committed udp-stream set: a pre-per-call clock note")


def test_rudp():
    """A rudp set with --interval: its section (index and pages) carries
    the time series of its first round, nothing else of these views."""
    rep, md, _, out = matrix("ru", {
        "schema": "netproof/plan/1", "suite": "rudp-ts", "protocol": "rudp",
        "repetitions": 1,
        "base": {"payload": 512, "clients": 2, "window": 8,
                 "profile": "none", "warmup": 0.1, "seconds": 0.4,
                 "rounds": 1, "interval": 0.1},
        "dimensions": {"fec": ["none", "fixed"]}})
    for text in (md,):
        if "### Time series (--interval)" not in text or \
                text.count("slices; median p99 of the first third") != 2:
            fail("rudp: index.md: no time series per configuration")
    svg_title(rep, "ru-timeseries-rudp-p512-c2-w8-single-fecnone-bbr-none",
              "Time series")
    pg = os.path.join(TMP, "ru-pages")
    run([REPORT, "--pages", "--results", out, "--output", pg])
    with open(os.path.join(pg, "rudp.md")) as f:
        pmd = f.read()
    if pmd.count("slices; median p99 of the first third") != 2 or \
            "### Latency under load" in pmd:
        fail("rudp: rudp.md: one series per configuration, no load chart")


test_open_loop()
test_stream()
test_rudp()
shutil.rmtree(TMP)
print("latency_views_test: all passed")
