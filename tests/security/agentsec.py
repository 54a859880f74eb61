"""Shared pieces of the agent's attack tests (tests/security/agent_*):
an agent process with its log, and an on-path TCP proxy that sees the TLS
records of a session and can alter, replay, reorder or drop them.

The proxy parses the TLS record layer only (RFC 8446 5.1: a 5-byte
header, type 0x17 for everything encrypted) - it never holds the token.
Records of one direction are numbered from the first one sent after the
client's Finished (the client's second encrypted record is its hello;
the agent's first encrypted record after that is the welcome)."""

import atexit
import os
import select
import socket
import struct
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "agent"))
import agentproto as ap  # noqa: E402,F401

APPDATA = 0x17
SEEN = {"c2s": 0}  # the client's records after the handshake, so far
STARTED = []  # every agent, killed at exit whatever happened


@atexit.register
def _kill_agents():
    for p in STARTED:
        if p.poll() is None:
            p.kill()
            p.wait()


def check(cond, what):
    if not cond:
        raise AssertionError(what)


class Agent:
    """netproof-bench agent on loopback (argv_prefix: e.g. ip netns exec)."""

    def __init__(self, bench, token, *extra, listen="127.0.0.1:0",
                 prefix=()):
        self.p = subprocess.Popen(
            [*prefix, bench, "agent", "--listen", listen, "--token-file",
             token, "--max-seconds", "60", *extra],
            stderr=subprocess.PIPE, text=True)
        STARTED.append(self.p)
        self.addr = ap.wait_listening(self.p)
        self.lines = []
        self.t = threading.Thread(target=self._read, daemon=True)
        self.t.start()

    def _read(self):
        for line in self.p.stderr:
            self.lines.append(line)

    def log(self):
        return "".join(self.lines)

    def wait_log(self, text, timeout=5.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if text in self.log():
                return True
            time.sleep(0.02)
        return False

    def stop(self):
        if self.p.poll() is None:
            self.p.terminate()
            try:
                self.p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        self.t.join(timeout=5)
        return self.log()


class Records:
    """TLS records of one direction, reassembled from the byte stream."""

    def __init__(self):
        self.buf = b""

    def feed(self, data):
        self.buf += data
        out = []
        while len(self.buf) >= 5:
            n = struct.unpack(">H", self.buf[3:5])[0]
            if len(self.buf) < 5 + n:
                break
            out.append(self.buf[:5 + n])
            self.buf = self.buf[5 + n:]
        return out


class Proxy:
    """Listen on listen (HOST, 0); forward each connection to connect()
    (a function returning a connected socket).  tamper(direction, n, rec)
    returns the list of records to send instead of rec ("c2s" / "s2c";
    n counts that direction's records after the handshake from 1; None
    before it).  Bounded: serves at most `conns` connections and stops
    after `seconds`."""

    def __init__(self, connect, tamper=None, host="127.0.0.1", port=0,
                 conns=4, seconds=60.0):
        self.connect, self.tamper = connect, tamper
        self.ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.ls.bind((host, port))
        self.ls.listen(4)
        self.ls.settimeout(0.2)
        self.addr = "%s:%d" % self.ls.getsockname()
        self.end = time.monotonic() + seconds
        self.left = conns
        self.events = []  # what the tamper did, for the test's messages
        self.t = threading.Thread(target=self._serve, daemon=True)
        self.t.start()

    def _serve(self):
        while self.left > 0 and time.monotonic() < self.end:
            try:
                c, _ = self.ls.accept()
            except socket.timeout:
                continue
            self.left -= 1
            threading.Thread(target=self._pipe, args=(c,),
                             daemon=True).start()
        self.ls.close()

    def _pipe(self, c):
        try:
            s = self.connect()
        except OSError:
            c.close()
            return
        rec = {c: Records(), s: Records()}
        other = {c: s, s: c}
        name = {c: "c2s", s: "s2c"}
        client_enc = 0        # the client's encrypted records so far
        count = {"c2s": 0, "s2c": 0}
        while time.monotonic() < self.end:
            r, _, _ = select.select([c, s], [], [], 0.2)
            done = False
            for x in r:
                try:
                    d = x.recv(65536)
                except OSError:
                    d = b""
                if not d:
                    done = True
                    break
                for one in rec[x].feed(d):
                    dr = name[x]
                    n = None
                    if dr == "c2s" and one[0] == APPDATA:
                        client_enc += 1
                        if client_enc >= 2:  # after the client's Finished
                            count[dr] += 1
                            n = count[dr]
                            SEEN["c2s"] = n
                    elif dr == "s2c" and one[0] == APPDATA and \
                            client_enc >= 1:
                        count[dr] += 1
                        n = count[dr]
                    out = [one]
                    if self.tamper and n is not None:
                        out = self.tamper(dr, n, one)
                    for o in out:
                        try:
                            other[x].sendall(o)
                        except OSError:
                            done = True
            if done:
                break
        c.close()
        s.close()


def flip(rec, at=-20):
    """rec with one ciphertext bit flipped (inside the AEAD's input)."""
    b = bytearray(rec)
    b[at] ^= 0x01
    return bytes(b)


def netns_skip_unless_root():
    if os.geteuid() != 0:
        print("SKIP: an on-path attacker needs a network namespace (root)")
        sys.exit(77)


class Netns:
    """One network namespace of this test (its own loopback only), removed
    on exit.  The agent runs inside it on 127.0.0.1; the proxy reaches it
    through a forwarder inside it, so the agent sees the very address the
    client dialled outside - an on-path attacker the address binding
    cannot tell from the path itself."""

    def __init__(self):
        self.name = f"npsec-{os.getpid()}"
        subprocess.run(["ip", "netns", "add", self.name], check=True,
                       capture_output=True, timeout=20)
        subprocess.run(["ip", "-n", self.name, "link", "set", "lo", "up"],
                       check=True, capture_output=True, timeout=20)
        self.procs = []

    def prefix(self):
        return ["ip", "netns", "exec", self.name]

    def forwarder(self, port, path, seconds=60):
        """Inside the namespace: accept on the Unix socket path, connect
        each to 127.0.0.1:port there (bounded by seconds)."""
        code = f"""
import os, select, socket, threading, time
end = time.monotonic() + {seconds}
u = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
u.bind({path!r}); u.listen(8); u.settimeout(0.2)
def pipe(a):
    b = socket.create_connection(("127.0.0.1", {port}))
    while time.monotonic() < end:
        r, _, _ = select.select([a, b], [], [], 0.2)
        for x in r:
            d = x.recv(65536)
            if not d:
                a.close(); b.close(); return
            (b if x is a else a).sendall(d)
while time.monotonic() < end:
    try:
        a, _ = u.accept()
    except socket.timeout:
        continue
    threading.Thread(target=pipe, args=(a,), daemon=True).start()
"""
        p = subprocess.Popen([*self.prefix(), sys.executable, "-c", code])
        self.procs.append(p)
        end = time.monotonic() + 10
        while not os.path.exists(path) and time.monotonic() < end:
            time.sleep(0.02)

        def connect():
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(path)
            return s
        return connect

    def close(self):
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
                p.wait(timeout=5)
        subprocess.run(["ip", "netns", "del", self.name],
                       capture_output=True, timeout=20)


def on_path(bench, tamper, body, agent_args=()):
    """The agent in a namespace of its own on 127.0.0.1:P, an on-path
    proxy on this host's 127.0.0.1:P applying tamper, and body(agent,
    proxy_addr, token, secret, tmp) run against it.  Skips (77) unless
    root."""
    import tempfile
    netns_skip_unless_root()
    tmp = tempfile.mkdtemp(prefix="np-sec-")
    ns = Netns()
    agent = None
    try:
        token, secret = ap.token_file(tmp)
        agent = Agent(bench, token, *agent_args, prefix=ns.prefix())
        port = int(agent.addr.rsplit(":", 1)[1])
        connect = ns.forwarder(port, os.path.join(tmp, "fwd.sock"))
        proxy = Proxy(connect, tamper, port=port)
        body(agent, proxy.addr, token, secret, tmp)
        return proxy
    finally:
        if agent:
            agent.stop()
        ns.close()
        subprocess.run(["rm", "-rf", tmp])


def udp_through(bench, addr, token, tmp):
    """udp --agent to addr: (exit code, stderr lines, record written)."""
    out = os.path.join(tmp, "udp.json")
    r = subprocess.run([bench, "udp", "--agent", addr, "--token-file", token,
                        "--seconds", "0.5", "--warmup", "0.1", "--clients",
                        "1", "--output", out],
                       capture_output=True, text=True, timeout=60)
    return r.returncode, r.stderr.strip().splitlines(), os.path.exists(out)


TLS_FAIL = "a TLS record failed its authentication"
