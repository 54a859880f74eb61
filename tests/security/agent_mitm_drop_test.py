#!/usr/bin/env python3
"""On-path attacker, a dropped frame: of two requests a client sends one
after the other, the first never reaches the agent.  The agent must not
answer the second and must end the session with one log line naming the
failed TLS record.
usage: agent_mitm_drop_test.py BENCH"""

import sys
import time

import agentsec as s

BENCH = sys.argv[1]


def drop(direction, n, rec):
    return [] if direction == "c2s" and n == 2 else [rec]


def body(agent, addr, token, secret, tmp):
    c = s.ap.Conn(addr, secret)
    s.check(c.handshake(agent=addr)["type"] == "welcome", "welcome")
    for i in (1, 2):
        c.send({"schema": s.ap.TAG, "type": "request", "id": i,
                "action": "time", "args": {}})
        time.sleep(0.2)
    r = c.recv()
    s.check(r is None, f"the agent answered after a dropped request: {r}")
    s.check(c.closed(), "the session outlived a dropped request")
    c.close()
    s.check(agent.wait_log(s.TLS_FAIL) and agent.wait_log("ended (1 "
                                                          "messages)"),
            "the agent's log: " + agent.log())
    line = [ln for ln in agent.log().splitlines() if s.TLS_FAIL in ln]
    print(f"dropped request: {line[0]}")


s.on_path(BENCH, drop, body)
print("agent_mitm_drop_test: ok")
