#!/usr/bin/env python3
"""After authentication one slow reader never stalls another session: a
peer with the token sends 200 snapshot requests and reads nothing
(agent_slow_peer, a 4 KiB receive buffer) while another session calls
`time` 20 times.  Every one of those answers must come within 0.5 s, and
the agent must end the slow session at its output bound
(--max-output-bytes) with one line naming it.  (0.2: responses were
written with a blocking 5 s deadline; one such peer stalled every other
session 7.8 s.)
usage: agent_slow_reader_test.py BENCH SLOW_PEER"""

import subprocess
import sys
import tempfile
import time

import agentsec as s

BENCH, PEER = sys.argv[1], sys.argv[2]
tmp = tempfile.mkdtemp(prefix="np-sec-")
try:
    token, secret = s.ap.token_file(tmp)
    agent = s.Agent(BENCH, token, "--max-output-bytes", "65540")
    b = s.ap.Conn(agent.addr, secret)
    s.check(b.handshake()["type"] == "welcome", "session B")
    slow = subprocess.Popen([PEER, agent.addr, token, "200", "8"],
                            stdout=subprocess.PIPE, text=True)
    worst = 0.0
    for _ in range(20):
        t0 = time.monotonic()
        r = b.call("time")
        worst = max(worst, time.monotonic() - t0)
        s.check(r is not None and r["ok"], f"session B: {r}")
        time.sleep(0.05)
    s.check(worst < 0.5, f"session B waited {worst:.2f} s beside a peer "
            "that does not read")
    s.check(agent.wait_log("the peer does not read its responses", 10),
            "the slow session was not ended: " + agent.log()[-1500:])
    b.close()
    slow.wait(timeout=30)
    log = agent.stop()
    line = [ln for ln in log.splitlines() if "does not read" in ln]
    print(f"session B's worst answer {worst * 1000:.0f} ms; {line[0]}")
finally:
    subprocess.run(["rm", "-rf", tmp])
print("agent_slow_reader_test: ok")
