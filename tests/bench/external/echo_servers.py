#!/usr/bin/env python3
"""Echo servers `udp --connect` is tested against: programs we did not
write the engine of, bounded in time, loopback only.

usage: echo_servers.py MODE PORT_FILE MAX_SECONDS [COUNTS_FILE] [RCVBUF]

MODE
  asyncio    a plain asyncio echo (DatagramProtocol.sendto of what came)
  drop       echoes all but every 10th datagram
  truncate   every 10th reply is cut to half its length
  duplicate  every 10th reply is sent twice
  corrupt    every 10th reply has its last byte flipped
  reorder    every 10th datagram is held and sent after the next one
             (flushed after 50 ms if no next one comes)

The server binds 127.0.0.1 port 0, writes the port to PORT_FILE (atomically),
and runs until SIGTERM/SIGINT or MAX_SECONDS.  On exit it writes
{"received": n, "acted": k} to COUNTS_FILE: k is how many datagrams it
dropped, truncated, duplicated, corrupted or reordered - the exact number
the benchmark must report.  RCVBUF sets SO_RCVBUF when given.
"""
import asyncio
import json
import os
import signal
import socket
import sys

MODE, PORT_FILE, MAX_S = sys.argv[1], sys.argv[2], float(sys.argv[3])
COUNTS = sys.argv[4] if len(sys.argv) > 4 else None
RCVBUF = int(sys.argv[5]) if len(sys.argv) > 5 else 0
EVERY = 10


class Echo(asyncio.DatagramProtocol):
    def __init__(self):
        self.n = 0
        self.acted = 0
        self.held = None
        self.flush = None

    def connection_made(self, transport):
        self.t = transport

    def _flush(self):
        if self.held is not None:
            self.t.sendto(*self.held)
            self.held = None

    def datagram_received(self, data, addr):
        self.n += 1
        nth = self.n % EVERY == 0
        if MODE == "asyncio" or not nth:
            self.t.sendto(data, addr)
            if MODE == "reorder" and self.held is not None:
                self.flush.cancel()
                self._flush()  # after the later one: reordered
            return
        if MODE == "drop":
            self.acted += 1
        elif MODE == "truncate":
            self.acted += 1
            self.t.sendto(data[: len(data) // 2], addr)
        elif MODE == "duplicate":
            self.acted += 1
            self.t.sendto(data, addr)
            self.t.sendto(data, addr)
        elif MODE == "corrupt":
            self.acted += 1
            self.t.sendto(data[:-1] + bytes([data[-1] ^ 0xFF]), addr)
        elif MODE == "reorder":
            self._flush()
            self.held = (data, addr)
            self.acted += 1
            self.flush = asyncio.get_running_loop().call_later(
                0.05, self._unheld)

    def _unheld(self):
        # no later datagram came: sent in order, so not reordered after all
        if self.held is not None:
            self.acted -= 1
            self._flush()


async def main():
    loop = asyncio.get_running_loop()
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    if RCVBUF:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RCVBUF)
    sock.bind(("127.0.0.1", 0))
    transport, proto = await loop.create_datagram_endpoint(Echo, sock=sock)
    tmp = PORT_FILE + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % sock.getsockname()[1])
    os.rename(tmp, PORT_FILE)
    stop = asyncio.Event()
    for s in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(s, stop.set)
    try:
        await asyncio.wait_for(stop.wait(), MAX_S)
    except asyncio.TimeoutError:
        pass
    if COUNTS:
        with open(COUNTS, "w") as f:
            json.dump({"received": proto.n, "acted": proto.acted}, f)
    transport.close()


asyncio.run(main())
