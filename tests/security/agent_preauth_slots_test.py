#!/usr/bin/env python3
"""Before authentication no peer starves the others.  (1) Idle TCP
connections from rotating sources (127.0.0.2-9, reopened as soon as the
agent closes them) against --max-connections 4 --max-pending 4: 25 valid
clients in a row must all be welcomed, every refusal counted, and the
rotating sources locked out.  (0.2: four idle connections filled
--max-connections and 24 of 25 valid clients were refused; refusals at
the limit were no failures.)  (2) A locked-out address stays locked while
300 other addresses fail (more than the table holds).  (0.2: 64 failures
from elsewhere evicted it.)
usage: agent_preauth_slots_test.py BENCH"""

import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time

import agentsec as s

BENCH = sys.argv[1]


def attackers(addr, stop, opened):
    """Keep one idle connection open per rotating source (bounded)."""
    host, port = addr.rsplit(":", 1)
    socks = {}
    srcs = [f"127.0.0.{i}" for i in range(2, 10)]
    end = time.monotonic() + 30
    while not stop.is_set() and time.monotonic() < end and opened[0] < 3000:
        for src in srcs:
            x = socks.get(src)
            if x is not None:
                try:
                    x.setblocking(False)
                    d = x.recv(1)
                    if d == b"":
                        x.close()
                        socks[src] = None
                except BlockingIOError:
                    continue
                except OSError:
                    x.close()
                    socks[src] = None
            if socks.get(src) is None:
                y = socket.socket()
                y.bind((src, 0))
                try:
                    y.connect((host, int(port)))
                    socks[src] = y
                    opened[0] += 1
                except OSError:
                    y.close()
        time.sleep(0.005)
    for x in socks.values():
        if x:
            x.close()


tmp = tempfile.mkdtemp(prefix="np-sec-")
try:
    token, secret = s.ap.token_file(tmp)
    agent = s.Agent(BENCH, token, "--max-connections", "4", "--max-pending",
                    "4", "--max-pending-per-address", "2", "--max-failures",
                    "5", "--lockout-seconds", "30")
    stop, opened = threading.Event(), [0]
    t = threading.Thread(target=attackers, args=(agent.addr, stop, opened),
                         daemon=True)
    t.start()
    time.sleep(0.5)  # the idle connections are in
    welcomed = 0
    for i in range(25):
        c = s.ap.Conn(agent.addr, secret)
        w = c.handshake()
        welcomed += w is not None and w.get("type") == "welcome"
        c.close()
    stop.set()
    t.join(10)
    log = agent.stop()
    s.check(welcomed == 25, f"{welcomed} of 25 valid clients welcomed "
            f"beside {opened[0]} idle connections")
    refused = len(re.findall(r": refused 127\.0\.0\.[2-9]:", log))
    total = int(re.search(r"\((\d+) connections refused or cut\)",
                          log).group(1))
    locked = set(re.findall(r"refused (127\.0\.0\.[2-9]):\d+: locked out",
                            log))
    s.check(refused > 0 and total >= refused,
            f"refusals: {refused} logged, {total} counted")
    s.check(len(locked) >= 1, "no rotating source was locked out: " +
            log[-2000:])
    s.check("failure 5 of 5" in log, "refusals are no failures")
    print(f"25 of 25 valid clients welcomed beside {opened[0]} idle "
          f"connections from 8 rotating sources; {total} refusals counted, "
          f"{len(locked)} sources locked out")

    # (2) a lockout is never evicted
    agent = s.Agent(BENCH, token, "--max-failures", "1",
                    "--lockout-seconds", "60")
    host, port = agent.addr.rsplit(":", 1)

    def fail_from(src):
        x = socket.socket()
        x.bind((src, 0))
        x.settimeout(3)
        x.connect((host, int(port)))
        x.sendall(b"GET / HTTP/1.0\r\n\r\n")
        try:
            while x.recv(100):
                pass
        except OSError:
            pass
        x.close()
    fail_from("127.0.0.2")
    for i in range(300):
        fail_from(f"127.0.{1 + i // 250}.{1 + i % 250}")
    c = s.ap.Raw(agent.addr, src="127.0.0.2")
    t0 = time.monotonic()
    s.check(c.closed(1.0) and time.monotonic() - t0 < 1.0,
            "127.0.0.2 was let in after 300 failures from elsewhere")
    log = agent.stop()
    s.check(re.search(r"refused 127\.0\.0\.2:\d+: locked out", log),
            "127.0.0.2 not refused as locked out: " + log[-1500:])
    print("a locked-out address stays locked after 300 failures from other "
          "addresses")
finally:
    subprocess.run(["rm", "-rf", tmp])
print("agent_preauth_slots_test: ok")
