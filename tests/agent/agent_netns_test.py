#!/usr/bin/env python3
"""udp --agent across real separate network stacks: the agent in one
network namespace, the client in another, joined by a veth pair
(tests/agent/netns.py; skips without root, CI runs it as root).

Asserts what must hold on any machine, as exact counter equalities:
  - the record validates (netproof-validate and python3-jsonschema), every
    check passed, the two stacks differ, two machine identities;
  - nothing is lost on a veth at this rate, and both hosts' counters say
    so: sent = server received = server echoed = arrived = received over
    the whole run; the window's attribution knows the server socket;
  - the kernels agree with the processes: over the measured window the
    far kernel delivered exactly the requests sent (Udp.InDatagrams) and
    sent exactly as many replies (Udp.OutDatagrams), this kernel received
    exactly the replies matched;
  - the same over IPv6;
  - a suite through the matrix with the agent in its plan self-checks
    (netproof-report --self-check) and renders;
  - a relay on the agent's host forwarding back to a server on ours:
    started, read (status), stopped, its record valid;
  - nothing the test made is left: no namespace, no agent or service;
  - the token appears in no record, no log, no output.
usage: agent_netns_test.py BENCH VALIDATE REPORT SCHEMA"""

import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import agentproto as ap  # noqa: E402
import netns  # noqa: E402

BENCH, VALIDATE, REPORT, SCHEMA = sys.argv[1:5]
try:
    import jsonschema
except ImportError:
    jsonschema = None


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def start_agent(t, host, listen, token, seconds=120):
    p = t.popen(host, [BENCH, "agent", "--listen", listen, "--token-file",
                       token, "--max-seconds", str(seconds)],
                stderr=subprocess.PIPE, text=True)
    addr = ap.wait_listening(p)
    return p, addr


def validate(path):
    r = subprocess.run([VALIDATE, path], capture_output=True, text=True)
    check(r.returncode == 0, f"netproof-validate {path}: {r.stdout}{r.stderr}")
    if jsonschema:
        with open(SCHEMA) as f:
            schema = json.load(f)
        with open(path) as f:
            jsonschema.validate(json.load(f), schema)


def run_udp(t, agent, token, out, extra=()):
    r = t.run(0, [BENCH, "udp", "--agent", agent, "--token-file", token,
                  "--seconds", "1", "--warmup", "0.2", "--clients", "4",
                  "--output", out, *extra],
              capture_output=True, text=True)
    check(r.returncode == 0, f"udp --agent exit {r.returncode}: {r.stderr}")
    return r


def secret_bytes(secret):
    return secret if isinstance(secret, bytes) else bytes.fromhex(secret)


def assert_record(path, secret):
    validate(path)
    with open(path) as f:
        text = f.read()
    check(secret not in text, "the token is in the record")
    d = json.loads(text)
    failed = [c["name"] for c in d["checks"] if not c["passed"]]
    check(d["status"] == "passed" and not failed, f"failed checks {failed}")
    f = d["far"]
    check(f["stacks"]["near"]["netns"] != f["stacks"]["far"]["netns"],
          "one network namespace")
    check(d["machine"] and f["machine"], "two machine identities")
    L = f["legs"]
    check(L["sent"] == L["server_received"] == L["server_echoed"] ==
          L["arrived"] == L["received"] > 0,
          f"whole-run counts differ: {L}")
    for leg in ("request_leg", "reply_leg"):
        check(all(v == 0 for v in L[leg].values()), f"{leg}: {L[leg]}")
    a = d["external"]["attribution"]
    check(a["possible"]["server_socket"] and a["server_socket"] == 0 and
          a["lost"] == 0, f"attribution {a}")
    check(d["external"]["server"]["found"], "far server socket not found")
    c = d["counters"]
    fam = "Udp6" if d["config"]["family"] == "ipv6" else "Udp"
    key = (lambda n: f"Udp6.Udp6{n}") if fam == "Udp6" else \
        (lambda n: f"Udp.{n}")
    fd, nd = f["kernel"]["delta"], d["kernel"]["delta"]
    check(fd[key("InDatagrams")] == c["sent"],
          f"far kernel delivered {fd[key('InDatagrams')]}, sent {c['sent']}")
    check(fd[key("OutDatagrams")] == c["sent"],
          f"far kernel sent {fd[key('OutDatagrams')]}, echoes {c['sent']}")
    check(nd[key("InDatagrams")] == c["received"],
          f"near kernel delivered {nd[key('InDatagrams')]}, received "
          f"{c['received']}")
    rec = f["server"]["record"]
    check(rec["config"]["protocol"] == "serve" and
          rec["serve"]["counters"]["received"] == L["server_received"],
          "server record")
    check(f["clock"]["start"]["rtt_us"] > 0, "clock")
    ch = f["agent"]
    check(ch["protocol"] == "netproof/agent/2" and
          ch["cipher"] in ("TLS_AES_128_GCM_SHA256",
                           "TLS_CHACHA20_POLY1305_SHA256") and
          ch["key_id"] == ap.psk_of(secret_bytes(secret))[1] and
          ch["address"] == d["config"]["agent"], f"far.agent {ch}")
    return d


def relay_case(t, agent, token, secret, tmp):
    """A relay on the agent's host forwarding to a server on ours."""
    srv = t.popen(0, [BENCH, "serve", "--listen", f"{t.addr(0)}:9500",
                      "--max-seconds", "30", "--record",
                      os.path.join(tmp, "serve.json")],
                  stderr=subprocess.PIPE, text=True)
    line = srv.stderr.readline()
    check("listening on" in line, f"serve: {line}")
    # the session runs in host 0: the agent sees our veth address as peer
    code = f"""
import json, sys
sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r})
import agentproto as ap
tok = bytes.fromhex(open({token!r}).read().strip())
c = ap.Conn({agent!r}, tok)
w = c.handshake()
assert w["type"] == "welcome", w
r = c.call("start", {{"service": "relay", "lifetime_seconds": 20,
                      "options": {{"listen": "{t.addr(1)}:0",
                                   "forward": "{t.addr(0)}:9500",
                                   "loss-percent": 0,
                                   "stats-interval": 0.2}}}})
assert r["ok"], r
sid, lis = r["result"]["service_id"], r["result"]["listening"]
print(lis, flush=True)
sys.stdin.readline()
st = c.call("status", {{"service_id": sid}})
assert st["ok"], st
stop = c.call("stop", {{"service_id": sid}})
assert stop["ok"] and stop["result"]["exit_code"] == 0, stop
text, off = "", 0
while True:
    p = c.call("record", {{"service_id": sid, "offset": off}})["result"]
    text += p["text"]
    off += p["bytes"]
    if p["done"]:
        break
open({os.path.join(tmp, "relay.json")!r}, "w").write(text)
print(json.dumps(st["result"]), flush=True)
"""
    drv = t.popen(0, [sys.executable, "-c", code], stdin=subprocess.PIPE,
                  stdout=subprocess.PIPE, text=True)
    lis = drv.stdout.readline().strip()
    check(lis.startswith(t.addr(1)), f"relay listening {lis!r}")
    r = t.run(0, [BENCH, "udp", "--connect", lis, "--seconds", "0.5",
                  "--warmup", "0.1", "--clients", "2", "--output",
                  os.path.join(tmp, "through-relay.json")],
              capture_output=True, text=True)
    check(r.returncode == 0, f"udp through the relay: {r.stderr}")
    drv.stdin.write("\n")
    drv.stdin.flush()
    status = json.loads(drv.stdout.readline())
    check(drv.wait(30) == 0, "relay session failed")
    srv.terminate()
    srv.wait(10)
    validate(os.path.join(tmp, "relay.json"))
    with open(os.path.join(tmp, "through-relay.json")) as f:
        sent = json.load(f)
    with open(os.path.join(tmp, "relay.json")) as f:
        rel = json.load(f)
    check(rel["config"]["protocol"] == "relay", "relay record kind")
    fwd = rel["relay"]["totals"]["c2s"]
    total = sent["counters"]["sent"] + sent["warmup"]["counters"]["sent"]
    check(fwd["forwarded"] == total,
          f"relay forwarded {fwd['forwarded']} of {total} requests")
    check(status.get("stats", {}).get("schema") == "netproof/relay-stats/1",
          f"status had no statistics line: {status}")


def suite_case(t, agent, token, tmp):
    plan = {"schema": "netproof/plan/1", "suite": "agent-netns",
            "protocol": "udp", "repetitions": 2,
            "base": {"agent": agent, "token-file": token, "seconds": 0.3,
                     "warmup": 0.1, "clients": 2},
            "dimensions": {"payload": [64, 512]}}
    pp = os.path.join(tmp, "plan.json")
    with open(pp, "w") as f:
        json.dump(plan, f)
    out = os.path.join(tmp, "suite")
    r = t.run(0, [BENCH, "matrix", pp, "--output", out, "--quiet"],
              capture_output=True, text=True, timeout=180)
    if r.returncode != 0:
        why = []
        for root, _, files in os.walk(os.path.join(out, "runs")):
            for fn in sorted(files):
                if fn.endswith(".json"):
                    with open(os.path.join(root, fn)) as f:
                        d = json.load(f)
                    why.append(f"{fn}: {d['status']} {d.get('reasons')}")
        check(False, f"matrix exit {r.returncode}: {r.stderr} {why}")
    r = subprocess.run([REPORT, "--self-check", "--results", out],
                       capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, f"self-check: {r.stdout}{r.stderr}")
    rep = os.path.join(tmp, "report")
    r = subprocess.run([REPORT, "--results", out, "--output", rep],
                       capture_output=True, text=True, timeout=120)
    check(r.returncode == 0 and os.path.exists(os.path.join(rep,
                                                            "index.md")),
          f"report: {r.stdout}{r.stderr}")


def main():
    with tempfile.TemporaryDirectory() as tmp, netns.Topology(2) as t:
        token, secret = ap.token_file(tmp)
        agent_p, _ = start_agent(t, 1, f"{t.addr(1)}:7000", token)
        agent = f"{t.addr(1)}:7000"
        out = os.path.join(tmp, "v4.json")
        r = run_udp(t, agent, token, out)
        check(secret.hex() not in r.stderr, "the token is in udp's output")
        d = assert_record(out, secret.hex())
        print(f"ipv4: {d['measurement']['roundtrips_per_sec']:.0f} round "
              f"trips/s across namespaces, every count equal on both hosts")
        # IPv6: the agent's control channel and the server on fd00:231::
        a6 = f"[{t.addr(1, v6=True)}]:7001"
        agent6, _ = start_agent(t, 1, a6, token)
        out6 = os.path.join(tmp, "v6.json")
        run_udp(t, a6, token, out6)
        assert_record(out6, secret.hex())
        print("ipv6: the same")
        relay_case(t, agent, token, secret.hex(), tmp)
        print("relay on the agent's host: forwarded every request")
        suite_case(t, agent, token, tmp)
        print("suite through the matrix: self-check clean, report rendered")
        for p in (agent_p, agent6):
            p.terminate()
            log = p.communicate(timeout=10)[1]
            check(secret.hex() not in log, "the token is in the agent's log")
            check(p.returncode == 0, f"agent exit {p.returncode}: {log}")
        names = list(t.names)
    left = subprocess.run(["ip", "netns", "list"], capture_output=True,
                          text=True).stdout
    check(not any(n in left for n in names), f"namespaces left: {left}")
    print("agent_netns_test: ok")


if __name__ == "__main__":
    main()
