#!/usr/bin/env python3
"""A relay in between that does not pretend to be the agent's address: a
TCP proxy on 127.0.0.2 forwarding, unchanged, to an agent on 127.0.0.1.
TLS succeeds (the proxy passes the bytes), but the hello names the
address the client dialled and the agent sees another: the agent refuses
the session, and udp --agent says which address it reached - one line,
exit 3, no record.  (0.2: the HMAC covered the dialled address but the
agent never compared it with its own.)
usage: agent_relayed_test.py BENCH"""

import os
import socket
import subprocess
import sys
import tempfile

import agentsec as s

BENCH = sys.argv[1]
tmp = tempfile.mkdtemp(prefix="np-sec-")
try:
    token, secret = s.ap.token_file(tmp)
    agent = s.Agent(BENCH, token)
    host, port = agent.addr.rsplit(":", 1)
    proxy = s.Proxy(lambda: socket.create_connection((host, int(port))),
                    host="127.0.0.2")
    rc, lines, wrote = s.udp_through(BENCH, proxy.addr, token, tmp)
    s.check(rc == 3 and len(lines) == 1 and
            f"reached this agent at {agent.addr}" in lines[0] and
            proxy.addr in lines[0], f"udp --agent exit {rc}: {lines}")
    s.check(not wrote, "a record was written through a relay")
    log = agent.stop()
    s.check(f"the client dialled {proxy.addr} but reached this agent at "
            f"{agent.addr}" in log, "the agent's log: " + log)
    s.check("started " not in log, "something was started: " + log)
    print(f"relayed: {lines[0]}")
finally:
    subprocess.run(["rm", "-rf", tmp])
print("agent_relayed_test: ok")
