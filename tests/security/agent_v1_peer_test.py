#!/usr/bin/env python3
"""0.2 peers (netproof/agent/1: plaintext frames, HMAC handshake) are
refused with one line naming both versions: a 0.2 client's hello gets
its own protocol's fixed refusal (what a 0.2 client understands) and the
agent's log names netproof/agent/1 and netproof/agent/2; udp --agent
against a 0.2 agent (which answers a TLS ClientHello with its fixed
refusal, as 0.2 did) ends with one line naming both, exit 3.
usage: agent_v1_peer_test.py BENCH"""

import json
import os
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

import agentsec as s

BENCH = sys.argv[1]
V1_HELLO = {"schema": "netproof/agent/1", "type": "hello", "version": 1,
            "client_nonce": "00" * 32,
            "params": {"client": "netproof-bench 0.2.0",
                       "agent": "127.0.0.1:1", "purpose": "udp"}}
V1_REFUSAL = struct.pack(">I", len(s.ap.REFUSAL_V1)) + s.ap.REFUSAL_V1

tmp = tempfile.mkdtemp(prefix="np-sec-")
try:
    token, secret = s.ap.token_file(tmp)
    # a 0.2 client
    agent = s.Agent(BENCH, token)
    c = s.ap.Raw(agent.addr)
    c.raw(s.ap.frame(V1_HELLO))
    got = c.recv_some()
    s.check(got == V1_REFUSAL, f"a 0.2 client got {got!r}")
    s.check(c.closed(), "left open")
    log = agent.stop()
    want = ("a netproof/agent/1 client (netproof 0.2); this agent speaks "
            "netproof/agent/2")
    lines = [ln for ln in log.splitlines() if want in ln]
    s.check(len(lines) == 1, "the agent's log: " + log)
    print(f"0.2 client: {lines[0]}")

    # a 0.2 agent: reads a length, refuses one outside 1..65536
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(1)
    ls.settimeout(20)
    addr = "%s:%d" % ls.getsockname()

    def old_agent():
        try:
            a, _ = ls.accept()
        except socket.timeout:
            return
        hdr = a.recv(4)
        if len(hdr) == 4 and not 1 <= struct.unpack(">I", hdr)[0] <= 65536:
            a.sendall(V1_REFUSAL)
        a.close()
    t = threading.Thread(target=old_agent, daemon=True)
    t.start()
    rc, lines, wrote = s.udp_through(BENCH, addr, token, tmp)
    t.join(5)
    ls.close()
    s.check(rc == 3 and len(lines) == 1 and "netproof/agent/1" in lines[0]
            and "netproof/agent/2" in lines[0] and addr in lines[0],
            f"udp --agent against a 0.2 agent: exit {rc}: {lines}")
    s.check(not wrote, "a record was written")
    print(f"0.2 agent: {lines[0]}")
finally:
    subprocess.run(["rm", "-rf", tmp])
print("agent_v1_peer_test: ok")
