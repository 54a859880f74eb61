"""`netproof-bench udp --mode stream`, loopback only, every run bounded.

- A paced stream at a rate this machine sustains: the record validates,
  every datagram sent is received once, in order, checks pass, and the
  one-way delay and transit-difference histograms reproduce their
  summaries (independent reader, hdr_reader.py).
- Overload into a small receive buffer: loss > 0 equals the receiving
  socket's kernel drops (exit 1, the attribution check passes).
- GSO and GRO: what the kernel accepted is recorded; with GSO the send
  calls carry whole buffers of segments.
- --interval for streams; several streams at once.
- Bad option combinations: exit 2 with one line naming the option
  (--gso not a whole number of --payload segments among them).

usage: stream_test.py BENCH RUN_SCHEMA
"""
import json
import os
import sys

import jsonschema

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "lib"))
from hdr_reader import check_summary  # noqa: E402
import nptest  # noqa: E402

BENCH, SCHEMA = sys.argv[1:3]
with open(SCHEMA) as f:
    VALIDATOR = jsonschema.Draft202012Validator(json.load(f))
T = nptest.Checks(stream=sys.stderr, fatal=True)
fail = T.fail
TMP = T.scratch("np-stream-test-")
BASE = ["udp", "--mode", "stream", "--backend", "raw", "--io-model",
        "split", "--clients", "1", "--warmup", "0.05"]



def run(args, name, want_rc):
    out = os.path.join(TMP, name + ".json")
    rc, _, err = nptest.run([BENCH] + BASE + ["--output", out] + args,
                            timeout=60)
    if rc != want_rc:
        fail("%s: exit %d, want %d: %s" % (name, rc, want_rc, err))
    with open(out) as f:
        doc = json.load(f)
    errs = sorted(VALIDATOR.iter_errors(doc), key=str)
    if errs:
        fail("%s: schema: %s at %s" % (name, errs[0].message,
                                       list(errs[0].path)))
    if doc["config"]["protocol"] != "udp-stream":
        fail("%s: protocol %s" % (name, doc["config"]["protocol"]))
    return doc, err


def checks(doc):
    return {c["name"]: c["passed"] for c in doc["checks"]}


def test_paced():
    doc, err = run(["--payload", "1200", "--packet-rate", "5000",
                    "--seconds", "0.4"], "paced", 0)
    c = doc["stream"]["counters"]
    if c["sent"] != c["unique"] or c["lost"] != 0 or c["duplicates"] or \
            c["out_of_order"] or c["bytes"] != c["received"] * 1200:
        fail("paced: counters %s" % c)
    if not 1500 <= c["sent"] <= 2100:  # 0.4 s at 5000/s, paced
        fail("paced: %d datagrams in 0.4 s at 5000/s" % c["sent"])
    check_summary(doc, "/stream/one_way_delay_histogram")
    check_summary(doc, "/stream/transit_delta_histogram")
    # one delay per datagram, or a count of those received before their
    # send time (the realtime clock stepped), never clamped into it
    if doc["stream"]["one_way_delay_histogram"]["count"] + \
            c["negative_delay"] != c["unique"]:
        fail("paced: one delay per datagram")
    if "stream 1200 B x 1 streams" not in err:
        fail("paced: summary line %s" % err)


def test_overload():
    doc, _ = run(["--payload", "8000", "--seconds", "0.3",
                  "--udp-receive-buffer", "65536"], "overload", 1)
    c, s = doc["stream"]["counters"], doc["sockets"]
    k = checks(doc)
    if c["lost"] <= 0 or c["lost"] != s["server_drops"] or \
            k["no_loss"] or not k["loss_matches_receiver_drops"]:
        fail("overload: lost %d, receiver drops %d, checks %s" %
             (c["lost"], s["server_drops"], k))


def test_gso_gro():
    doc, _ = run(["--payload", "1472", "--gso", "64768", "--packet-rate",
                  "20000", "--seconds", "0.3"], "gso", 0)
    ka, c = doc["stream"]["kernel_accepted"], doc["stream"]["counters"]
    if not ka["gso"] or ka["gso_segments_per_send"] != 44 or \
            c["sent"] % 44 != 0:
        fail("gso: %s, sent %d" % (ka, c["sent"]))
    doc, _ = run(["--payload", "1472", "--gso", "64768", "--gro", "1",
                  "--packet-rate", "20000", "--seconds", "0.3"], "gro", 0)
    ka, c = doc["stream"]["kernel_accepted"], doc["stream"]["counters"]
    if not ka["gro"] or c["gro_receives"] == 0 or c["lost"] != 0:
        fail("gro: %s, counters %s" % (ka, c))


def test_interval_streams():
    doc, err = run(["--payload", "512", "--clients", "3", "--packet-rate",
                    "6000", "--seconds", "0.5", "--interval", "0.1"],
                   "interval", 0)
    pts = doc["intervals"]["points"]
    if not 4 <= len(pts) <= 5 or doc["intervals"]["missed"]:
        fail("interval: %d points" % len(pts))
    if sum(p["ops"] for p in pts) > doc["stream"]["counters"]["unique"]:
        fail("interval: more datagrams than received")
    if err.count("netproof-bench udp: [") != len(pts):
        fail("interval: stderr lines")


def test_usage():
    cases = [
        (["udp", "--mode", "stream"], "--backend raw --io-model split"),
        (["udp", "--gso", "2000"], "--gso: only with --mode stream"),
        (["udp", "--gro", "1"], "--gro: only with --mode stream"),
        (["udp"] + BASE[1:] + ["--payload", "16"],
         "--payload 16"),
        (["udp"] + BASE[1:] + ["--payload", "1472", "--gso", "1000"],
         "--gso 1000"),
        # not a multiple of --payload: refused, not cut to 2 segments
        (["udp"] + BASE[1:] + ["--payload", "1472", "--gso", "3000"],
         "--gso 3000: 1 to 64 whole --payload (1472 B) segments"),
        (["udp"] + BASE[1:] + ["--payload", "1000", "--gso", "65000"],
         "--gso 65000"),
        (["udp"] + BASE[1:] + ["--bitrate", "1000", "--packet-rate", "10"],
         "--packet-rate"),
        (["udp"] + BASE[1:] + ["--rate", "100"], "--mode stream"),
    ]
    for args, want in cases:
        rc, _, err = nptest.run([BENCH] + args, timeout=20)
        lines = err.strip().splitlines()
        if rc != 2 or len(lines) != 1 or want not in lines[0]:
            fail("%s: exit %d, stderr %r (want 2 and one line with %r)" %
                 (args, rc, err, want))


test_usage()
test_paced()
test_overload()
test_gso_gro()
test_interval_streams()
sys.exit(T.done("stream_test: all passed"))  # TMP kept only on a failure
