"""The agent's control protocol in Python, for the tests: frames, the
handshake (HMAC-SHA256 as docs/agent.md gives it) and requests.  A second,
independent implementation of the protocol: the tests speak it to the C
agent, so both must agree with the documented bytes."""

import hashlib
import hmac
import json
import os
import socket
import struct
import time

TAG = "netproof/agent/1"
REFUSAL = json.dumps({"schema": TAG, "type": "refused"},
                     separators=(",", ":")).encode()


def compact(obj):
    return json.dumps(obj, separators=(",", ":")).encode()


def frame(obj):
    body = compact(obj) if not isinstance(obj, bytes) else obj
    return struct.pack(">I", len(body)) + body


def mac(token, side, server_nonce, client_nonce, params):
    label = (b"netproof-agent/1 client\0" if side == "client"
             else b"netproof-agent/1 agent\0")
    return hmac.new(token, label + server_nonce + client_nonce +
                    compact(params), hashlib.sha256).hexdigest()


class Conn:
    def __init__(self, addr, timeout=5.0):
        host, port = addr.rsplit(":", 1)
        host = host.strip("[]")
        fam = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.s = socket.socket(fam, socket.SOCK_STREAM)
        self.s.settimeout(timeout)
        self.s.connect((host, int(port)))
        self.next_id = 1
        self.sent = []  # every frame sent, for replay tests

    def send(self, obj):
        f = frame(obj)
        self.sent.append(f)
        self.s.sendall(f)

    def raw(self, data):
        self.s.sendall(data)

    def recv(self):
        """The next message as a dict, or None when the agent closed."""
        hdr = self._exact(4)
        if hdr is None:
            return None
        (n,) = struct.unpack(">I", hdr)
        body = self._exact(n)
        if body is None:
            return None
        self.last_body = body
        return json.loads(body)

    def _exact(self, n):
        buf = b""
        while len(buf) < n:
            try:
                chunk = self.s.recv(n - len(buf))
            except (ConnectionResetError, socket.timeout):
                return None
            if not chunk:
                return None
            buf += chunk
        return buf

    def closed(self, wait=3.0):
        """True when the agent closes the connection within wait s."""
        self.s.settimeout(wait)
        try:
            while True:
                d = self.s.recv(65536)
                if not d:
                    return True
        except (ConnectionResetError, BrokenPipeError):
            return True
        except socket.timeout:
            return False

    def hello(self, agent="127.0.0.1:1", purpose="test"):
        self.client_nonce = os.urandom(32)
        self.params = {"client": "agentproto.py", "agent": agent,
                       "purpose": purpose}
        self.send({"schema": TAG, "type": "hello", "version": 1,
                   "client_nonce": self.client_nonce.hex(),
                   "params": self.params})
        return self.recv()

    def handshake(self, token, agent="127.0.0.1:1"):
        """The whole handshake; returns the agent's last message."""
        ch = self.hello(agent)
        if ch is None or ch.get("type") != "challenge":
            return ch
        self.server_nonce = bytes.fromhex(ch["server_nonce"])
        self.send({"schema": TAG, "type": "auth",
                   "mac": mac(token, "client", self.server_nonce,
                              self.client_nonce, self.params)})
        w = self.recv()
        if w and w.get("type") == "welcome":
            want = mac(token, "agent", self.server_nonce, self.client_nonce,
                       self.params)
            assert hmac.compare_digest(w["mac"], want), "agent's proof wrong"
        return w

    def call(self, action, args=None):
        rid = self.next_id
        self.next_id += 1
        self.send({"schema": TAG, "type": "request", "id": rid,
                   "action": action, "args": args or {}})
        r = self.recv()
        if r is not None and r.get("type") == "response":
            assert r["id"] == rid, r
        return r

    def close(self):
        self.s.close()


def token_file(folder, name="token", mode=0o600, content=None):
    path = os.path.join(folder, name)
    tok = os.urandom(32)
    with open(path, "w") as f:
        f.write(content if content is not None else tok.hex() + "\n")
    os.chmod(path, mode)
    return path, tok


def wait_listening(proc, timeout=10.0):
    """Read the agent's stderr until its listening line; its address."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        line = proc.stderr.readline()
        if not line:
            break
        if " listening on " in line:
            return line.split(" listening on ", 1)[1].split(" ", 1)[0]
    raise RuntimeError("agent did not start listening")
