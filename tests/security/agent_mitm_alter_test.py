#!/usr/bin/env python3
"""On-path attacker, altered frames (the audit's forgery: boot id, network
namespace, counters): a proxy between udp --agent and its agent,
invisible to the address binding, flips one bit of the agent's identify
response (its boot id and namespace), and in a second run of the first
snapshot response (the far kernel's counters), after the handshake.  udp
must end with one line naming the failed TLS record and the action, and
write no record; the agent's log names the client's alert.  (0.2: the
rewritten identify and snapshot were taken as is, and a single-host run
passed as two hosts.)
usage: agent_mitm_alter_test.py BENCH"""

import sys

import agentsec as s

BENCH = sys.argv[1]


def identify(direction, n, rec):
    # s2c 1 is the welcome, 2 the identify response
    return [s.flip(rec)] if direction == "s2c" and n == 2 else [rec]


SNAPSHOT = 12  # hello, identify, time x 8, start, snapshot
flipped = []


def snapshot(direction, n, rec):
    # the first record of the answer to the client's 12th record
    if direction == "s2c" and s.SEEN["c2s"] == SNAPSHOT and not flipped:
        flipped.append(n)
        return [s.flip(rec)]
    return [rec]


def body(agent, addr, token, secret, tmp, action):
    rc, lines, wrote = s.udp_through(BENCH, addr, token, tmp)
    s.check(rc == 3, f"udp --agent exit {rc}: {lines}")
    s.check(len(lines) == 1 and s.TLS_FAIL in lines[0] and
            f" {action}: " in lines[0], f"not one line naming it: {lines}")
    s.check(not wrote, "a record was written after a forged frame")
    s.check(agent.wait_log("the peer's alert: bad record mac") and
            agent.wait_log("ended ("), "the agent: " + agent.log())
    print(f"altered {action} response: {lines[0]}")


s.on_path(BENCH, identify, lambda *a: body(*a, "identify"))
s.on_path(BENCH, snapshot, lambda *a: body(*a, "snapshot"))
print("agent_mitm_alter_test: ok")
