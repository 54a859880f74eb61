#!/usr/bin/env python3
"""On-path attacker, reordered frames: two requests a client sends one
after the other reach the agent in the opposite order.  The agent must
answer neither and end the session with one log line naming the failed
TLS record.
usage: agent_mitm_reorder_test.py BENCH"""

import sys
import time

import agentsec as s

BENCH = sys.argv[1]
held = []


def swap(direction, n, rec):
    # c2s 1 is the hello; hold request 2 until request 3 has gone
    if direction == "c2s" and n == 2:
        held.append(rec)
        return []
    if direction == "c2s" and n == 3:
        return [rec, *held]
    return [rec]


def body(agent, addr, token, secret, tmp):
    c = s.ap.Conn(addr, secret)
    s.check(c.handshake(agent=addr)["type"] == "welcome", "welcome")
    for i in (1, 2):  # two TLS records: one write each, apart
        c.send({"schema": s.ap.TAG, "type": "request", "id": i,
                "action": "time", "args": {}})
        time.sleep(0.2)
    r = c.recv()
    s.check(r is None, f"the agent answered a reordered request: {r}")
    s.check(c.closed(), "the session outlived reordered requests")
    c.close()
    s.check(agent.wait_log(s.TLS_FAIL) and agent.wait_log("ended (1 "
                                                          "messages)"),
            "the agent's log: " + agent.log())
    line = [ln for ln in agent.log().splitlines() if s.TLS_FAIL in ln]
    print(f"reordered requests: {line[0]}")


s.on_path(BENCH, swap, body)
print("agent_mitm_reorder_test: ok")
