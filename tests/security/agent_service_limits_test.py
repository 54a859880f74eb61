#!/usr/bin/env python3
"""An authenticated peer cannot take the agent's memory or its service
slots: a relay asking --relay-capacity-bytes 1 GiB --max-routes 4096 is
refused with the arithmetic against --max-service-memory-bytes (and so
is one within its own table but over a lowered bound); a session idle
past --session-idle-seconds (a stopped service's record never fetched)
is ended, its slot released, and another session gets the slot.  (0.2:
the relay started; the slots stayed held forever.)
usage: agent_service_limits_test.py BENCH"""

import subprocess
import sys
import tempfile
import time

import agentsec as s

BENCH = sys.argv[1]
tmp = tempfile.mkdtemp(prefix="np-sec-")
try:
    token, secret = s.ap.token_file(tmp)
    agent = s.Agent(BENCH, token, "--max-services", "1",
                    "--session-idle-seconds", "1",
                    "--max-service-memory-bytes", "268435456")
    c = s.ap.Conn(agent.addr, secret)
    s.check(c.handshake()["type"] == "welcome", "session")
    for opts, want in (
            ({"relay-capacity-bytes": 1 << 30, "max-routes": 4096},
             "max-routes 4096 x (relay-capacity-bytes 1073741824"),
            ({}, "over the agent's --max-service-memory-bytes 268435456")):
        r = c.call("start", {"service": "relay", "lifetime_seconds": 5,
                             "options": {"listen": "127.0.0.1:0",
                                         "forward": "127.0.0.1:9000", **opts}})
        s.check(r["type"] == "response" and not r["ok"] and
                r["error"]["code"] == "NP_EUSAGE" and
                want in r["error"]["message"], f"relay {opts}: {r}")
    r = c.call("start", {"service": "relay", "lifetime_seconds": 5,
                         "options": {"listen": "127.0.0.1:0",
                                     "forward": "127.0.0.1:9000",
                                     "max-routes": 4}})
    s.check(r["ok"], f"a relay within the bound: {r}")
    st = c.call("stop", {"service_id": r["result"]["service_id"]})
    s.check(st["ok"], f"stop: {st}")
    # the record is not fetched; the session says nothing more
    t0 = time.monotonic()
    m = c.recv()
    s.check(m is not None and m["type"] == "refused" and
            "--session-idle-seconds" in m.get("reason", ""),
            f"an idle session: {m}")
    s.check(c.closed() and time.monotonic() - t0 < 3, "not ended in time")
    c.close()
    d = s.ap.Conn(agent.addr, secret)
    s.check(d.handshake()["type"] == "welcome", "session D")
    r = d.call("start", {"service": "serve", "lifetime_seconds": 5,
                         "options": {"listen": "127.0.0.1:0"}})
    s.check(r["ok"], f"the slot after the idle session: {r}")
    d.close()
    log = agent.stop()
    s.check("idle longer than --session-idle-seconds" in log, log)
    print("relay asks over --max-service-memory-bytes refused; an idle "
          "session ended after 1 s, its slot given to the next")
finally:
    subprocess.run(["rm", "-rf", tmp])
print("agent_service_limits_test: ok")
