#!/usr/bin/env python3
"""rudp --agent across real separate network stacks: the agent (and the
rudp-serve it starts) in one network namespace, the clients in another,
joined by a veth pair (tests/agent/netns.py; skips 77 without root).

Asserts, as exact counter equalities against what the other side counted:
  - the record validates, every check passed, the two stacks differ, the
    control channel is netproof/agent/2 over TLS 1.3 with the token's key;
  - exactly once: sent = the far endpoint's received = its echoed =
    received > 0, no content or order error on either host, every
    connection of both hosts closed in order; the round's counters are the
    far record's (nothing invented);
  - with --agent-relay loss-percent=5 on the far host: the relay dropped
    requests and replies, the ARQ repaired every one (still exactly once),
    and the relay's counters match the far endpoint's socket: requests the
    relay forwarded = datagrams the endpoint read, replies the relay took
    in = datagrams the endpoint sent (the veth between loses nothing);
  - a suite through the matrix (the rudp plan of
    bench/scripts/two_namespace_suite.sh) self-checks clean
    (netproof-report --self-check re-derives the far part) and renders;
  - a far option outside the allowlist (a FEC budget beyond the agent's
    memory bound) is refused with exit 2, naming the option;
  - the token in no record or output; no namespace left.
usage: agent_netns_rudp_test.py BENCH VALIDATE REPORT PLAN
(PLAN: bench/scripts/rudp-two-namespace.json)"""

import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import agentproto as ap  # noqa: E402
import netns  # noqa: E402

BENCH, VALIDATE, REPORT, PLAN = sys.argv[1:5]


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def run_rudp(t, agent, token, out, extra=(), want=0):
    r = t.run(0, [BENCH, "rudp", "--agent", agent, "--token-file", token,
                  "--rounds", "1", "--seconds", "1", "--warmup", "0.3",
                  "--clients", "2", "--window", "8", "--output", out,
                  *extra],
              capture_output=True, text=True, timeout=90)
    check(r.returncode == want,
          f"rudp --agent exit {r.returncode} (want {want}): {r.stderr}")
    return r


def load_valid(path, secret):
    r = subprocess.run([VALIDATE, path], capture_output=True, text=True)
    check(r.returncode == 0, f"netproof-validate {path}: {r.stdout}{r.stderr}")
    with open(path) as f:
        text = f.read()
    check(secret not in text, "the token is in the record")
    return json.loads(text)


def assert_exactly_once(d, secret):
    failed = [c["name"] for c in d["checks"] if not c["passed"]]
    check(d["status"] == "passed" and not failed, f"failed checks {failed}")
    f = d["far"]
    check(f["stacks"]["near"]["netns"] != f["stacks"]["far"]["netns"],
          "one network namespace")
    ch = f["agent"]
    check(ch["protocol"] == "netproof/agent/2" and
          ch["key_id"] == ap.psk_of(bytes.fromhex(secret))[1],
          f"far.agent {ch}")
    srv = f["server"]
    check(srv["stopped_by"] == "SIGTERM from the agent", f"server {srv}")
    rec = srv["record"]
    check(rec["config"]["protocol"] == "rudp-serve" and
          rec["status"] == "passed", "far record")
    sc = rec["rudp_serve"]["counters"]
    c = d["counters"]
    check(c["sent"] == sc["received"] == sc["echoed"] == c["received"] > 0,
          f"not exactly once: near {c}, far {sc}")
    check(c["server_received"] == sc["received"] and
          c["server_replied"] == sc["echoed"],
          "the round's server counts are not the far record's")
    check(c["content_errors"] == c["sequence_errors"] == 0 and
          sc["content_errors"] == sc["sequence_errors"] == 0,
          f"content/order errors: near {c}, far {sc}")
    co = d["rudp"]["rounds"][0]["connections"]
    check(co["total"] == 4 and co["closed"] == 4 and
          rec["rudp_serve"]["connections"]["closed"] == 2,
          f"connections {co}")
    return sc


def relay_case(t, agent, token, secret, tmp):
    out = os.path.join(tmp, "relay.json")
    run_rudp(t, agent, token, out, ["--agent-relay", "loss-percent=5"])
    d = load_valid(out, secret)
    assert_exactly_once(d, secret)
    rel = d["far"]["relay"]["record"]["relay"]["totals"]
    io = d["far"]["server"]["record"]["rudp_serve"]["io"]
    c2s, s2c = rel["c2s"], rel["s2c"]
    lost = (lambda x: x["lost_random"] + x["lost_burst"] + x["lost_ge"] +
            x["overflow"])
    check(lost(c2s) > 0 and lost(s2c) > 0,
          f"the far relay dropped nothing: {c2s} {s2c}")
    check(d["rudp"]["rounds"][0]["arq"]["retransmits_round"] > 0,
          "losses but no retransmission")
    check(c2s["forwarded"] == io["recv_datagrams"],
          f"relay forwarded {c2s['forwarded']} requests, the endpoint read "
          f"{io['recv_datagrams']}")
    check(s2c["received"] == io["send_datagrams"],
          f"relay took {s2c['received']} replies, the endpoint sent "
          f"{io['send_datagrams']}")
    return lost(c2s), lost(s2c)


def suite_case(t, agent, token, tmp):
    """The shipped two-namespace rudp plan, shortened, through the matrix."""
    with open(PLAN) as f:
        plan = json.load(f)
    plan["base"].update({"agent": agent, "token-file": token,
                         "seconds": 0.3, "warmup": 0.1})
    plan["repetitions"] = 1
    pp = os.path.join(tmp, "plan.json")
    with open(pp, "w") as f:
        json.dump(plan, f)
    out = os.path.join(tmp, "suite")
    r = t.run(0, [BENCH, "matrix", pp, "--output", out, "--quiet"],
              capture_output=True, text=True, timeout=180)
    check(r.returncode == 0, f"matrix exit {r.returncode}: {r.stderr}")
    r = subprocess.run([REPORT, "--self-check", "--results", out],
                       capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, f"self-check: {r.stdout}{r.stderr}")
    rep = os.path.join(tmp, "report")
    r = subprocess.run([REPORT, "--results", out, "--output", rep],
                       capture_output=True, text=True, timeout=120)
    check(r.returncode == 0 and
          os.path.exists(os.path.join(rep, "index.md")),
          f"report: {r.stdout}{r.stderr}")


def main():
    with tempfile.TemporaryDirectory(prefix="np-") as tmp, \
            netns.Topology(2) as t:
        token, secret = ap.token_file(tmp)
        s = secret.hex()
        agent = f"{t.addr(1)}:7000"
        p = t.popen(1, [BENCH, "agent", "--listen", agent, "--token-file",
                        token, "--max-seconds", "150"],
                    stderr=subprocess.PIPE, text=True)
        ap.wait_listening(p)
        out = os.path.join(tmp, "plain.json")
        r = run_rudp(t, agent, token, out)
        check(s not in r.stderr, "the token is in rudp's output")
        sc = assert_exactly_once(load_valid(out, s), s)
        print(f"rudp across namespaces: {sc['received']} requests, exactly "
              "once on both hosts")
        lc, ls = relay_case(t, agent, token, s, tmp)
        print(f"far relay at 5 % loss: dropped {lc} requests and {ls} "
              "replies, all repaired; relay = endpoint socket counts")
        suite_case(t, agent, token, tmp)
        print("rudp suite through the matrix: self-check clean, report "
              "rendered")
        r = run_rudp(t, agent, token, os.path.join(tmp, "big.json"),
                     ["--fec", "fixed", "--fec-budget-bytes", "4294967296"],
                     want=2)
        check("--max-service-memory-bytes" in r.stderr,
              f"memory bound not named: {r.stderr}")
        p.terminate()
        log = p.communicate(timeout=10)[1]
        check(s not in log, "the token is in the agent's log")
        names = list(t.names)
    left = subprocess.run(["ip", "netns", "list"], capture_output=True,
                          text=True).stdout
    check(not any(n in left for n in names), f"namespaces left: {left}")
    print("agent_netns_rudp_test: ok")


if __name__ == "__main__":
    main()
