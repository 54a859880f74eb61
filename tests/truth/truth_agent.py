#!/usr/bin/env python3
"""The truth matrix's `udp --agent` row: the far host's relay and serve.

Two network namespaces joined by a veth pair (tests/agent/netns.py:
addresses on its own veths only, removed afterwards, also on failure;
skips with 77 without root).  `netproof-bench agent` in one, `udp --agent
--agent-relay LIST` in the other: the agent starts serve and, in front of
it, an impairing relay on its host; the clients send through the relay
across the veth.  The udp record carries both far records (far.server and
far.relay).  One relay impairment per row (loss 5 %, reorder 10 %/2 ms,
duplicate 5 %, delay 20 ms +- 5, burst 3/100) and all combined, each in
closed loop and in open loop (--rate), without warm-up so the client's
counters cover the relay's and serve's whole lives.

Each row is held to truth_test.py's rules (tests/truth/truth_rules.py,
imported: the same functions), the client's counts against the far
relay's per-direction counters and the far serve's own; then the far
part's own split of the loss: which side lost what (the request leg, the
server, the reply leg), with the relay's share re-derived from its record.
The record validates against the schema, and `netproof-report
--self-check` of a set made of the rows passes; a tampered relay count is
named by it.

usage: truth_agent.py NETPROOF_BENCH RUN_SCHEMA NETPROOF_REPORT [ROW ...]
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import jsonschema

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "agent"))
import agentproto as ap  # noqa: E402
import netns  # noqa: E402
from truth_rules import IMPAIRMENTS, KINDS, check_row, \
    relay_drops  # noqa: E402

BENCH, SCHEMA, REPORT = sys.argv[1:4]
ONLY = set(sys.argv[4:])
with open(SCHEMA) as f:
    VALIDATOR = jsonschema.Draft202012Validator(json.load(f))
TMP = tempfile.mkdtemp(prefix="np-truth-agent-")


def fail(msg):
    # the namespaces and their processes go with the Topology (atexit)
    print("FAIL: %s (files kept in %s)" % (msg, TMP), file=sys.stderr)
    sys.exit(1)


def load(path):
    with open(path) as f:
        doc = json.load(f)
    errors = sorted(VALIDATOR.iter_errors(doc), key=lambda e: list(e.path))
    if errors:
        fail("%s: /%s: %s" % (path, "/".join(map(str, errors[0].path)),
                              errors[0].message))
    return doc


def relay_list(impairment):
    """The relay's command-line options as --agent-relay's NAME=VALUE
    list."""
    pairs = zip(impairment[0::2], impairment[1::2])
    return ",".join("%s=%s" % (k[2:], v) for k, v in pairs)


def run_row(t, agent, token, name, kind, impairment, extra):
    out = os.path.join(TMP, "%s-%s.json" % (name, kind))
    r = t.run(0, [BENCH, "udp", "--agent", agent, "--token-file", token,
                  "--agent-relay", relay_list(impairment), "--clients", "4",
                  "--seconds", "1", "--warmup", "0", "--output", out]
              + extra, capture_output=True, text=True, timeout=60)
    if r.returncode not in (0, 1) or not os.path.exists(out):
        fail("%s/%s: udp --agent exit %d: %s" % (name, kind, r.returncode,
                                                  r.stderr))
    return load(out), r


def check_far(name, kind, d):
    """Which side lost what: the far part's split of the whole run, the
    relay's share of each leg from its own record."""
    f = d["far"]
    L, relay, serve = f["legs"], f["relay"]["record"], f["server"]["record"]
    c2s, s2c = relay["relay"]["totals"]["c2s"], relay["relay"]["totals"]["s2c"]
    rdrops = relay["sockets"]["kernel_drops"]

    def rule(ok, text, *nums):
        if not ok:
            fail("%s/%s: %s (%s)" % (name, kind, text,
                                     ", ".join(str(n) for n in nums)))

    verdicts = {c["name"]: c["passed"] for c in d["checks"]}
    for ch in ("far_two_stacks", "far_server_served_run", "far_server_passed",
               "far_relay_passed", "far_legs_attributed"):
        rule(verdicts.get(ch) is True, "check %s passed" % ch,
             verdicts.get(ch))
    # the relay's share of each leg is its record's, per direction
    rule(L["request_leg"]["relay_dropped"] == relay_drops(c2s) and
         L["request_leg"]["relay_duplicated"] == c2s["duplicated"],
         "request leg: relay_dropped / duplicated = the relay's c2s",
         L["request_leg"], c2s)
    rule(L["reply_leg"]["relay_dropped"] == relay_drops(s2c) and
         L["reply_leg"]["relay_duplicated"] == s2c["duplicated"],
         "reply leg: relay_dropped / duplicated = the relay's s2c",
         L["reply_leg"], s2c)
    # the server's record: it echoed all it read, and read what the relay
    # forwarded (its socket dropped the rest)
    sv = serve["serve"]["counters"]
    rule(L["server_received"] == sv["received"] and
         L["server_echoed"] == sv["echoed"] and
         L["at_server"]["lost"] == 0,
         "server_received / echoed are serve's, nothing lost at the server",
         L["server_received"], L["server_echoed"], L["at_server"])
    # the request leg: what the relay neither dropped nor copied crossed the
    # veth and reached serve; the rest, in_network, is at most what the
    # relay's own sockets dropped (a veth at this rate drops nothing)
    qin = L["request_leg"]["in_network"]
    rule(0 <= qin <= rdrops, "0 <= request_leg.in_network <= relay socket "
         "drops", qin, rdrops)
    # the reply leg: everything echoed reached our sockets, but for the
    # relay's drops (less its copies) and copies still on their way when
    # the client closed (the drain waits for the originals only)
    pin = L["reply_leg"]["in_network"]
    rule(0 <= pin <= s2c["duplicated"] + rdrops, "0 <= reply_leg.in_network "
         "<= reply copies + relay socket drops", pin, s2c["duplicated"],
         rdrops)
    # the target was the relay, in front of the far server
    rule(relay["config"]["forward"] == f["server"]["listening"],
         "the relay forwarded to the far server", relay["config"]["forward"],
         f["server"]["listening"])


def test_refused(t, agent, token):
    """A relay option the agent's allowlist refuses: exit 2, one line
    naming the option, no record."""
    out = os.path.join(TMP, "refused.json")
    r = t.run(0, [BENCH, "udp", "--agent", agent, "--token-file", token,
                  "--agent-relay", "loss-percent=5,stats-lines=/etc/x",
                  "--seconds", "0.2", "--warmup", "0", "--output", out],
              capture_output=True, text=True, timeout=30)
    lines = r.stderr.splitlines()
    if r.returncode != 2 or len(lines) != 1 or \
            "options/stats-lines: " not in lines[0] or os.path.exists(out):
        fail("a refused relay option: exit %d, stderr %r" % (r.returncode,
                                                             r.stderr))


def self_check(out):
    p = subprocess.run([REPORT, "--self-check", "--results", out],
                       capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout + p.stderr


def test_selfcheck(t, agent, token):
    """A suite through the matrix whose base has the far relay: the set
    self-checks, and a relay count changed in the record is named."""
    plan = {"schema": "netproof/plan/1", "suite": "truth-agent-relay",
            "protocol": "udp", "repetitions": 1,
            "base": {"agent": agent, "token-file": token,
                     "agent-relay": "loss-percent=5,duplicate-percent=5",
                     "seconds": 0.5, "warmup": 0.1, "clients": 2,
                     "window": 4},
            "dimensions": {"payload": [64]}}
    path = os.path.join(TMP, "plan.json")
    with open(path, "w") as f:
        json.dump(plan, f)
    out = os.path.join(TMP, "suite")
    r = t.run(0, [BENCH, "matrix", path, "--output", out, "--quiet"],
              capture_output=True, text=True, timeout=120)
    runs = os.path.join(out, "runs")
    cids = os.listdir(runs) if os.path.isdir(runs) else []
    if len(cids) != 1:
        fail("matrix with the far relay: exit %d: %s" % (r.returncode,
                                                          r.stderr))
    rec = os.path.join(runs, cids[0], "rep-1.json")
    load(rec)
    rc, text = self_check(out)
    if rc != 0:
        fail("self-check of the far-relay suite: exit %d: %s" % (rc, text))
    with open(rec) as f:
        good = f.read()

    def more_dropped(d):
        d["far"]["relay"]["record"]["relay"]["totals"]["c2s"][
            "lost_random"] += 1

    def fewer_copies(d):
        d["far"]["legs"]["reply_leg"]["relay_duplicated"] += 1

    def forward(d):
        d["far"]["relay"]["record"]["config"]["forward"] = "10.0.0.1:9"

    for edit, want in (
            (more_dropped, "/far/legs/request_leg/relay_dropped: "),
            (fewer_copies, "/far/legs/reply_leg/relay_duplicated: "),
            (forward, "/far/relay/record/config/forward: ")):
        d = json.loads(good)
        edit(d)
        with open(rec, "w") as f:
            json.dump(d, f)
        rc, text = self_check(out)
        if rc != 1 or want not in text:
            fail("self-check of a tampered far-relay record: exit %d, want "
                 "%r in: %s" % (rc, want, text))
    with open(rec, "w") as f:
        f.write(good)


def main():
    t0 = time.time()
    rows = 0
    with tempfile.TemporaryDirectory(prefix="np-truth-agent-tok-") as tdir, \
            netns.Topology(2) as t:
        token, _ = ap.token_file(tdir)
        agent = "%s:7000" % t.addr(1)
        p = t.popen(1, [BENCH, "agent", "--listen", agent, "--token-file",
                        token, "--max-seconds", "120"],
                    stderr=subprocess.PIPE, text=True)
        ap.wait_listening(p)
        # its log read on, so a full pipe never stalls the agent
        threading.Thread(target=p.stderr.read, daemon=True).start()
        test_refused(t, agent, token)
        for name, imp in IMPAIRMENTS:
            if ONLY and name not in ONLY:
                continue
            for kind, extra in KINDS:
                d, r = run_row(t, agent, token, name, kind, imp, extra)
                check_row(name, kind, d, d["far"]["relay"]["record"],
                          d["far"]["server"]["record"], fail)
                check_far(name, kind, d)
                rows += 1
        if not ONLY or "selfcheck" in ONLY:
            test_selfcheck(t, agent, token)
        p.terminate()
        p.wait(10)
    print("truth matrix, udp --agent: %d rows in %.1f s" %
          (rows, time.time() - t0))
    shutil.rmtree(TMP)


if __name__ == "__main__":
    main()
