"""The agent's control protocol in Python, for the tests: the PSK and
identity derived from the token (HKDF-SHA256 as docs/agent.md gives it),
frames, the hello and requests.  A second, independent implementation of
everything above TLS: Python's ssl module has no external-PSK support, so
TLS 1.3 itself is `openssl s_client -psk` in a subprocess, its stdin and
stdout carrying the decrypted bytes.  Both must agree with the documented
bytes for a test to pass.

Conn speaks TLS (a peer that holds the token, or one that offers another);
Raw is a plain TCP connection (a peer that never gets through TLS)."""

import hashlib
import hmac
import json
import os
import select
import socket
import struct
import subprocess
import time

TAG = "netproof/agent/2"
TAG_V1 = "netproof/agent/1"
REFUSAL_V1 = json.dumps({"schema": TAG_V1, "type": "refused"},
                        separators=(",", ":")).encode()


def hkdf(key, info, n):
    """RFC 5869 HKDF-SHA256 with an empty salt."""
    prk = hmac.new(b"\0" * 32, key, hashlib.sha256).digest()
    out, t, i = b"", b"", 1
    while len(out) < n:
        t = hmac.new(prk, t + info + bytes([i]), hashlib.sha256).digest()
        out += t
        i += 1
    return out[:n]


def psk_of(token):
    """(PSK hex, key id, PSK identity) of the token's secret bytes."""
    kid = hkdf(token, b"netproof-agent/2 key id", 8).hex()
    return (hkdf(token, b"netproof-agent/2 psk", 32).hex(), kid,
            "netproof/agent/2 key " + kid)


def compact(obj):
    return json.dumps(obj, separators=(",", ":")).encode()


def frame(obj):
    body = compact(obj) if not isinstance(obj, bytes) else obj
    return struct.pack(">I", len(body)) + body


def split(addr):
    host, port = addr.rsplit(":", 1)
    return host.strip("[]"), int(port)


class Conn:
    """A TLS 1.3 session over the token's PSK (or identity/psk given),
    through openssl s_client."""

    def __init__(self, addr, token, timeout=5.0, identity=None, psk=None,
                 suite="TLS_AES_128_GCM_SHA256"):
        p, _, ident = psk_of(token)
        host, port = split(addr)
        self.addr = addr
        self.timeout = timeout
        self.p = subprocess.Popen(
            ["openssl", "s_client", "-connect", f"{host}:{port}" if
             ":" not in host else f"[{host}]:{port}", "-tls1_3",
             "-ciphersuites", suite, "-psk_identity", identity or ident,
             "-psk", psk or p, "-quiet", "-nocommands", "-noservername"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE)
        self.buf = b""
        self.next_id = 1
        self.sent = []  # every frame sent, for replay tests

    def raw(self, data):
        try:
            self.p.stdin.write(data)
            self.p.stdin.flush()
        except (BrokenPipeError, OSError):
            pass

    def send(self, obj):
        f = frame(obj)
        self.sent.append(f)
        self.raw(f)

    def _fill(self, wait):
        """More decrypted bytes within wait s; False at the end."""
        r, _, _ = select.select([self.p.stdout], [], [], wait)
        if not r:
            return None
        d = os.read(self.p.stdout.fileno(), 65536)
        if not d:
            return False
        self.buf += d
        return True

    def _exact(self, n):
        end = time.monotonic() + self.timeout
        while len(self.buf) < n:
            left = end - time.monotonic()
            if left <= 0 or not self._fill(left):
                return None
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def recv(self):
        """The next message as a dict, or None when the agent closed (or
        said nothing within the timeout)."""
        hdr = self._exact(4)
        if hdr is None:
            return None
        (n,) = struct.unpack(">I", hdr)
        body = self._exact(n)
        if body is None:
            return None
        self.last_body = body
        return json.loads(body)

    def closed(self, wait=3.0):
        """True when the session ends within wait s."""
        end = time.monotonic() + wait
        while time.monotonic() < end:
            got = self._fill(end - time.monotonic())
            if got is False:
                return True
        return False

    def hello(self, agent=None, purpose="test"):
        self.params = {"client": "agentproto.py", "agent": agent or self.addr,
                       "purpose": purpose}
        self.send({"schema": TAG, "type": "hello", "version": 2,
                   "params": self.params})
        return self.recv()

    def handshake(self, agent=None):
        """TLS and the hello; the agent's answer (welcome, refused) or
        None when the session ended without one."""
        return self.hello(agent)

    def call(self, action, args=None):
        rid = self.next_id
        self.next_id += 1
        self.send({"schema": TAG, "type": "request", "id": rid,
                   "action": action, "args": args or {}})
        r = self.recv()
        if r is not None and r.get("type") == "response":
            assert r["id"] == rid, r
        return r

    def stderr(self):
        self.close()
        return self.p.stderr.read().decode(errors="replace")

    def close(self):
        if self.p.poll() is None:
            try:
                self.p.stdin.close()
            except OSError:
                pass
            self.p.terminate()
            try:
                self.p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        for f in (self.p.stdout,):
            f.close()


class Raw:
    """A plain TCP connection (optionally from source address src)."""

    def __init__(self, addr, timeout=5.0, src=None):
        host, port = split(addr)
        fam = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.s = socket.socket(fam, socket.SOCK_STREAM)
        self.s.settimeout(timeout)
        if src:
            self.s.bind((src, 0))
        self.s.connect((host, port))

    def raw(self, data):
        self.s.sendall(data)

    def recv_some(self, wait=3.0):
        self.s.settimeout(wait)
        try:
            return self.s.recv(65536)
        except (ConnectionResetError, socket.timeout):
            return b""

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
