#!/usr/bin/env python3
"""On-path attacker, altered frame (the audit's forged snapshot: boot id,
network namespace, counters): a proxy between udp --agent and its agent,
invisible to the address binding, flips one bit of the agent's identify
response (its boot id and namespace) after the handshake.  udp must end
with one line naming the failed TLS record and write no record; the
agent's log names the session's end.  (0.2: the rewritten identify was
taken as is, and a single-host run passed as two hosts.)
usage: agent_mitm_alter_test.py BENCH"""

import sys

import agentsec as s

BENCH = sys.argv[1]


def tamper(direction, n, rec):
    # s2c 1 is the welcome, 2 the identify response
    return [s.flip(rec)] if direction == "s2c" and n == 2 else [rec]


def body(agent, addr, token, secret, tmp):
    rc, lines, wrote = s.udp_through(BENCH, addr, token, tmp)
    s.check(rc == 3, f"udp --agent exit {rc}: {lines}")
    s.check(len(lines) == 1 and s.TLS_FAIL in lines[0] and
            "identify" in lines[0], f"not one line naming it: {lines}")
    s.check(not wrote, "a record was written after a forged frame")
    s.check(agent.wait_log("the peer's alert: bad record mac") and
            agent.wait_log("ended (2 messages)"), "the agent: " + agent.log())
    print(f"altered identify response: {lines[0]}")


s.on_path(BENCH, tamper, body)
print("agent_mitm_alter_test: ok")
