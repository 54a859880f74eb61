#!/usr/bin/env python3
"""On-path attacker, replayed frames: (1) toward the client, the agent's
answer to udp --agent's first time request is delivered twice - the copy
must end the run with one line naming the failed TLS record and no record
written; (2) toward the agent, a session's first request is delivered
twice - the agent must answer the copy never and end the session on it,
with one log line naming it.
usage: agent_mitm_replay_test.py BENCH"""

import sys
import time

import agentsec as s

BENCH = sys.argv[1]


def to_client(direction, n, rec):
    # s2c 1 welcome, 2 identify, 3 the first time response
    return [rec, rec] if direction == "s2c" and n == 3 else [rec]


def body_client(agent, addr, token, secret, tmp):
    rc, lines, wrote = s.udp_through(BENCH, addr, token, tmp)
    s.check(rc == 3 and len(lines) == 1 and s.TLS_FAIL in lines[0] and
            " time: " in lines[0], f"udp --agent exit {rc}: {lines}")
    s.check(not wrote, "a record was written after a replayed frame")
    print(f"replayed response: {lines[0]}")


def to_agent(direction, n, rec):
    # c2s 1 is the hello, 2 the first request
    return [rec, rec] if direction == "c2s" and n == 2 else [rec]


def body_agent(agent, addr, token, secret, tmp):
    c = s.ap.Conn(addr, secret)
    s.check(c.handshake(agent=addr)["type"] == "welcome", "welcome")
    r = c.call("time")
    # the answer to the original may or may not leave before the copy
    # arrives (one read can hold both); nothing may follow it
    s.check(r is None or r["ok"], f"the original request: {r}")
    s.check(c.recv() is None, "an answer to the copy")
    s.check(c.closed(), "the session outlived a replayed request")
    c.close()
    s.check(agent.wait_log(s.TLS_FAIL) and agent.wait_log("ended (2 "
                                                          "messages)"),
            "the agent's log: " + agent.log())
    line = [ln for ln in agent.log().splitlines() if s.TLS_FAIL in ln]
    print(f"replayed request: {line[0]}")


s.on_path(BENCH, to_client, body_client)
s.on_path(BENCH, to_agent, body_agent)
print("agent_mitm_replay_test: ok")
