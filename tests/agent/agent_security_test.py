#!/usr/bin/env python3
"""netproof-bench agent against hostile and careless peers, on loopback
(no root needed).  Every attempt must be refused with the one fixed
refusal (or, after authentication, an error naming the rule) and must
start nothing - the agent has no child process afterwards and logs no
"started" line:

  token files: mode 0644 / 0640, not ours, too short, not hex, a symbolic
  link, a FIFO, a folder, missing (agent and udp --token-file: exit 2,
  one line);
  wrong token (another PSK key id), an identity not of netproof/agent/2,
  no TLS at all, an oversized or zero length (before TLS and inside it),
  malformed JSON, a message of the wrong type, an unknown action (before
  and after the welcome); configs outside the allowlist (an address not of this host,
  a wildcard, port < 1024, a lifetime over the agent's bound, an option
  naming a file, an option the agent sets, an unknown option, a relay
  forwarding elsewhere); many failed attempts (locked out even with the
  right token, then admitted after the lockout); slow senders before and
  after the welcome, while a good client is served; the session and
  message limits; a session's services stop with it; a relay forwards
  to no loopback-only port of the agent's host and passes TCP only to the
  session's own services; a session's stopped service keeps its record
  while another session starts services, until fetched; the token
  appears in no log line.
usage: agent_security_test.py BENCH"""

import json
import os
import socket
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import agentproto as ap  # noqa: E402

BENCH = sys.argv[1]
TMP = tempfile.mkdtemp(prefix="np-agent-sec-")


def check(cond, what):
    if not cond:
        raise AssertionError(what)


AGENTS = []  # every agent started, killed at the end whatever happened


class Agent:
    def __init__(self, token, *extra, tmpdir=None):
        env = dict(os.environ)
        if tmpdir:
            env["TMPDIR"] = tmpdir  # where the agent makes its folder
        self.p = subprocess.Popen(
            [BENCH, "agent", "--listen", "127.0.0.1:0", "--token-file", token,
             "--max-seconds", "120", *extra],
            stderr=subprocess.PIPE, text=True, env=env)
        AGENTS.append(self.p)
        self.addr = ap.wait_listening(self.p)
        self.log = []

    def children(self):
        try:
            with open(f"/proc/{self.p.pid}/task/{self.p.pid}/children") as f:
                return f.read().split()
        except FileNotFoundError:  # no CONFIG_PROC_CHILDREN: scan /proc
            kids = []
            for d in os.listdir("/proc"):
                if d.isdigit():
                    try:
                        with open(f"/proc/{d}/stat") as f:
                            if int(f.read().rsplit(")", 1)[1].split()[1]) == \
                                    self.p.pid:
                                kids.append(d)
                    except (OSError, IndexError, ValueError):
                        pass
            return kids

    def nothing_started(self, what):
        time.sleep(0.05)
        check(self.children() == [], f"{what}: the agent has children "
              f"{self.children()}")

    def stop(self):
        self.p.terminate()
        err = self.p.communicate(timeout=15)[1]
        check(self.p.returncode == 0, f"agent exit {self.p.returncode}")
        return err


def refused(c, what, reason=None):
    """A peer that got through TLS: the next message is a refusal (with
    reason in its text when given), then the session ends."""
    m = c.recv()
    check(m is not None and m.get("type") == "refused" and
          set(m) <= {"schema", "type", "reason"} and m["schema"] == ap.TAG,
          f"{what}: expected the refusal, got {m}")
    check(reason is None or reason in m.get("reason", ""),
          f"{what}: refusal without '{reason}': {m}")
    check(c.closed(), f"{what}: connection left open")
    c.close()


def cut(c, what):
    """A peer that did not get through TLS: closed, not one message."""
    m = c.recv() if isinstance(c, ap.Conn) else c.recv_some()
    check(not m, f"{what}: the agent said {m!r} to an unauthenticated peer")
    check(c.closed(), f"{what}: connection left open")
    c.close()


def token_files():
    good, _ = ap.token_file(TMP, "tok-good")
    cases = {
        "mode 0644": ap.token_file(TMP, "tok-644", 0o644)[0],
        "mode 0640": ap.token_file(TMP, "tok-640", 0o640)[0],
        "too short": ap.token_file(TMP, "tok-short",
                                   content=os.urandom(16).hex())[0],
        "not hex": ap.token_file(TMP, "tok-nothex",
                                 content="correct horse battery staple " * 4)[0],
        "missing": os.path.join(TMP, "no-such-token"),
        "a folder": TMP,
    }
    link = os.path.join(TMP, "tok-link")
    os.symlink(good, link)
    cases["a symbolic link"] = link
    fifo = os.path.join(TMP, "tok-fifo")
    os.mkfifo(fifo, 0o600)  # no writer: an open that waits would hang
    cases["a FIFO"] = fifo
    if os.geteuid() == 0:
        other, _ = ap.token_file(TMP, "tok-other")
        os.chown(other, 65534, 65534)
        cases["owned by another user"] = other
    for what, path in cases.items():
        r = subprocess.run([BENCH, "agent", "--listen", "127.0.0.1:0",
                            "--token-file", path, "--max-seconds", "5"],
                           capture_output=True, text=True, timeout=10)
        lines = r.stderr.strip().splitlines()
        check(r.returncode == 2 and len(lines) == 1 and path in lines[0] and
              "listening" not in r.stderr,
              f"agent token file {what}: exit {r.returncode}: {r.stderr}")
        r = subprocess.run([BENCH, "udp", "--agent", "127.0.0.1:9",
                            "--token-file", path, "--seconds", "0.1"],
                           capture_output=True, text=True, timeout=10)
        check(r.returncode == 2 and path in r.stderr,
              f"udp token file {what}: exit {r.returncode}: {r.stderr}")
    for argv, what in (
            (["--listen", "127.0.0.1:0", "--token-file", good],
             "--max-seconds"),
            (["--token-file", good, "--max-seconds", "5"], "--listen"),
            (["--listen", "127.0.0.1:0", "--max-seconds", "5"],
             "--token-file")):
        r = subprocess.run([BENCH, "agent", *argv], capture_output=True,
                           text=True, timeout=10)
        check(r.returncode == 2 and what in r.stderr,
              f"agent without {what}: exit {r.returncode}: {r.stderr}")
    print("token files and usage: refused with exit 2, one line each")


def attacks(token, secret):
    a = Agent(token, "--max-failures", "1000", "--handshake-seconds", "1",
              "--message-seconds", "1", "--max-connections", "4")
    bad = os.urandom(32)

    c = ap.Conn(a.addr, bad)
    cut(c, "wrong token")
    a.nothing_started("wrong token")
    c = ap.Conn(a.addr, secret, identity="netproof/agent/1 key 0011")
    cut(c, "an identity not of netproof/agent/2")
    c = ap.Conn(a.addr, secret, suite="TLS_AES_256_GCM_SHA384")
    cut(c, "a suite the agent does not offer (not on the PSK's SHA-256)")
    c = ap.Conn(a.addr, secret, suite="TLS_CHACHA20_POLY1305_SHA256")
    w = c.handshake()
    check(w is not None and w["type"] == "welcome", f"ChaCha20: {w}")
    c.close()
    # plaintext: a request with no TLS at all, a 0.2 hello
    c = ap.Raw(a.addr)
    c.raw(ap.frame({"schema": ap.TAG, "type": "request", "id": 1,
                    "action": "identify", "args": {}}))
    cut(c, "no token (a plaintext request first)")
    a.nothing_started("no token")
    for n, what in ((65537, "oversized length"), (0, "zero length"),
                    (0xFFFFFFFF, "huge length")):
        c = ap.Raw(a.addr)
        c.raw(struct.pack(">I", n))
        cut(c, what + " before TLS")
    # inside TLS (the peer holds the token), still before the hello
    for n, what in ((65537, "oversized length"), (0, "zero length"),
                    (0xFFFFFFFF, "huge length")):
        c = ap.Conn(a.addr, secret)
        c.raw(struct.pack(">I", n))
        refused(c, what, "outside 1..65536")
    c = ap.Conn(a.addr, secret)
    c.raw(ap.frame(b"{\"schema\": \"netproof/agent/2\", \"type\": "))
    refused(c, "malformed JSON")
    c = ap.Conn(a.addr, secret)
    c.raw(ap.frame(b"[" * 40 + b"]" * 40))
    refused(c, "too deep")
    # member names are the peer's bytes: a forged line in one stays inside
    # the agent's own log line
    forged = b'"x\\nnetproof-bench agent: FORGED \\u001b[2J\xc3\xa9"'
    c = ap.Conn(a.addr, secret)
    c.raw(ap.frame(b'{"schema":"netproof/agent/2","type":"hello",' + forged +
                   b':1,' + forged + b':2}'))
    refused(c, "a member name twice, with a line feed in it")
    c = ap.Conn(a.addr, secret)
    c.raw(ap.frame(b'{"schema":"netproof/agent/2","type":"hello",' + forged +
                   b':1}'))
    refused(c, "an unknown member with a line feed in its name")
    c = ap.Conn(a.addr, secret)
    c.send({"schema": ap.TAG, "type": "hello", "version": 2,
            "params": {"client": "x" * 70000, "agent": "a", "purpose": "t"}})
    refused(c, "a message over 64 KiB")
    c = ap.Conn(a.addr, secret)
    c.send({"schema": ap.TAG, "type": "welcome", "version": 2,
            "session": "00" * 16, "agent": a.addr, "listening": a.addr,
            "limits": {"max_message_bytes": 1, "max_messages": 1,
                       "session_idle_seconds": 1, "message_seconds": 1,
                       "max_output_bytes": 1}})
    refused(c, "a message of the wrong type", "a welcome where a hello")
    c = ap.Conn(a.addr, secret)
    c.send({"schema": ap.TAG, "type": "request", "id": 1, "action": "exec",
            "args": {"command": "/bin/sh"}})
    refused(c, "unknown action before the hello")
    c = ap.Conn(a.addr, secret)
    check(c.handshake()["type"] == "welcome", "session")
    r = c.call("exec", {"command": ["/bin/sh", "-c", "touch /tmp/pwned"]})
    check(r is not None and r["type"] == "refused",
          f"unknown action after the welcome: {r}")
    check(c.closed(), "unknown action: session left open")
    c.close()
    a.nothing_started("unknown action")
    print("wrong/no token, plaintext, bad frames and JSON, unknown action: "
          "refused, nothing started")

    c = ap.Conn(a.addr, secret)
    check(c.handshake()["type"] == "welcome", "session")
    outside = [
        ("serve", {"listen": "192.0.2.1:9000"}, 5, "not an address"),
        ("serve", {"listen": "0.0.0.0:9000"}, 5, "wildcard"),
        ("serve", {"listen": "127.0.0.1:80"}, 5, "privileged"),
        ("serve", {"listen": "127.0.0.1:0"}, 80000, "over the agent"),
        ("serve", {"listen": "127.0.0.1:0"}, 500, "over the agent"),
        ("serve", {"listen": "127.0.0.1:0", "record": "/etc/passwd"}, 5,
         "set by the agent"),
        ("relay", {"listen": "127.0.0.1:0", "forward": "127.0.0.1:9",
                   "stats-lines": "/tmp/x"}, 5, "set by the agent"),
        ("serve", {"listen": "127.0.0.1:0", "max-seconds": 9999}, 5,
         "set by the agent"),
        ("serve", {"listen": "127.0.0.1:0", "help": True}, 5, "not for"),
        ("serve", {"listen": "127.0.0.1:0", "exec": "/bin/sh"}, 5,
         "not an option"),
        ("serve", {"listen": "127.0.0.1:0", "io-threads": 0}, 5,
         "out of range"),
        ("relay", {"listen": "127.0.0.1:0", "forward": "192.0.2.7:9000"}, 5,
         "neither the session"),
        # this host's loopback-only services are no relay targets
        ("relay", {"listen": "127.0.0.1:0", "forward": "127.0.0.2:5432"}, 5,
         "neither the session"),
        ("relay", {"listen": "127.0.0.1:0", "forward": "[::1]:5432"}, 5,
         "neither the session"),
        ("relay", {"listen": "127.0.0.1:0", "forward": "127.0.0.1:22"}, 5,
         "port 22 is privileged"),
        ("relay", {"listen": "127.0.0.1:0", "forward": "127.0.0.1:9000",
                   "tcp-passthrough": True}, 5,
         "options/tcp-passthrough: only to a service of this session"),
    ]
    for svc, opts, life, why in outside:
        r = c.call("start", {"service": svc, "options": opts,
                             "lifetime_seconds": life})
        check(r["type"] == "response" and not r["ok"] and
              r["error"]["code"] == "NP_EUSAGE" and
              why in r["error"]["message"],
              f"{svc} {opts} {life}: {r}")
        a.nothing_started(f"{svc} {opts}")
    r = c.call("stop", {"service_id": "s999"})
    check(not r["ok"] and r["error"]["code"] == "NP_ENOENT", f"stop: {r}")
    c.close()
    print(f"{len(outside)} configs outside the allowlist: refused with the "
          "rule, nothing started")

    # slow senders hold a slot for a bounded time only; others are served
    slow = ap.Raw(a.addr)
    slow.raw(b"\x16\x03")
    c = ap.Conn(a.addr, secret)
    check(c.handshake()["type"] == "welcome",
          "a good client beside a slow one")
    t0 = time.monotonic()
    cut(slow, "slow-loris before TLS")
    check(time.monotonic() - t0 < 3, "slow-loris held too long")
    c.raw(struct.pack(">I", 200) + b"{\"sch")
    t0 = time.monotonic()
    refused(c, "slow-loris after the welcome", "--message-seconds")
    check(time.monotonic() - t0 < 3, "slow message held too long")
    # the session limit: four sessions, the fifth refused by name
    held = []
    for _ in range(4):  # one after the other: each handshake is pending
        h = ap.Conn(a.addr, secret)
        w = h.handshake()
        check(w is not None and w["type"] == "welcome", "one of 4 sessions")
        held.append(h)
    extra = ap.Conn(a.addr, secret)
    check(extra.handshake() is not None, "the fifth session")
    refused_now = extra.last_body and json.loads(extra.last_body)
    check(refused_now.get("type") == "refused" and
          "--max-connections" in refused_now.get("reason", ""),
          f"over --max-connections: {refused_now}")
    extra.close()
    for h in held:
        h.close()
    a.nothing_started("slow senders")
    print("slow senders cut off at their deadlines, good client served, "
          "session limit held")

    # a session's service stops with it
    c = ap.Conn(a.addr, secret)
    check(c.handshake()["type"] == "welcome", "session")
    r = c.call("start", {"service": "serve", "lifetime_seconds": 30,
                         "options": {"listen": "127.0.0.1:0"}})
    check(r["ok"] and len(a.children()) == 1, f"start: {r}")
    port = int(r["result"]["listening"].rsplit(":", 1)[1])
    c.close()
    end = time.monotonic() + 5
    while a.children() and time.monotonic() < end:
        time.sleep(0.05)
    check(a.children() == [], "the service outlived its session")
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    probe.bind(("127.0.0.1", port))  # free again
    probe.close()
    print("a session's service stops when the session ends")
    log = a.stop()
    check(secret.hex() not in log and "started serve s" in log,
          "agent log")
    check(ap.psk_of(secret)[0] not in log, "the PSK in the agent log")
    check(all(ch == "\n" or " " <= ch < "\x7f" for ch in log),
          "a byte outside printable ASCII in the agent log")
    check(not any(ln.startswith("netproof-bench agent: FORGED")
                  for ln in log.splitlines()) and
          "x\\x0anetproof-bench agent: FORGED \\x1b[2J\\xc3\\xa9" in log,
          "a peer's member name forged a log line")
    check(log.count("started ") == 1, "something else was started")
    check("(another token)" in log, "another token not named in the log")


def record_of(c, sid):
    """A stopped service's whole record text, piece by piece."""
    text, off = "", 0
    for _ in range(1000):
        p = c.call("record", {"service_id": sid, "offset": off})
        check(p["ok"], f"record of {sid}: {p}")
        text += p["result"]["text"]
        off += p["result"]["bytes"]
        if p["result"]["done"]:
            return text
    raise AssertionError(f"record of {sid}: no last piece")


def two_sessions(token, secret):
    """A stopped service keeps its slot and record for its own session
    while another session starts services; fetching it releases it."""
    tmp = os.path.join(TMP, "agent-tmp")
    os.mkdir(tmp)
    a = Agent(token, "--max-services", "2", tmpdir=tmp)
    A, B = ap.Conn(a.addr, secret), ap.Conn(a.addr, secret)
    check(A.handshake()["type"] == "welcome", "session A")
    check(B.handshake()["type"] == "welcome", "session B")
    serve = {"service": "serve", "lifetime_seconds": 30,
             "options": {"listen": "127.0.0.1:0"}}
    r = A.call("start", serve)
    check(r["ok"], f"A start: {r}")
    sid = r["result"]["service_id"]
    st = A.call("stop", {"service_id": sid})
    check(st["ok"] and st["result"]["record_bytes"] > 0, f"A stop: {st}")
    folder, = os.listdir(tmp)
    check(f"{sid}.record.json" in os.listdir(os.path.join(tmp, folder)),
          "A's record file")
    # B starts two services while A's stopped one waits: neither takes
    # A's slot, and a relay of B may forward to B's own server, TCP too
    rb = B.call("start", serve)
    check(rb["ok"], f"B start: {rb}")
    lis = rb["result"]["listening"]
    relay = B.call("start", {"service": "relay", "lifetime_seconds": 30,
                             "options": {"listen": "127.0.0.1:0",
                                         "forward": lis,
                                         "tcp-passthrough": True}})
    check(relay["ok"], f"B's relay to its own server: {relay}")
    r = B.call("record", {"service_id": sid, "offset": 0})
    check(not r["ok"] and r["error"]["code"] == "NP_ENOENT",
          f"B read A's record: {r}")
    text = record_of(A, sid)
    check(len(text.encode()) == st["result"]["record_bytes"],
          f"A's record: {len(text)} of {st['result']['record_bytes']} bytes")
    check(json.loads(text)["config"]["protocol"] == "serve", "A's record")
    # fetched: the slot, record and file are gone
    r = A.call("record", {"service_id": sid, "offset": 0})
    check(not r["ok"] and r["error"]["code"] == "NP_ENOENT",
          f"A's record after the last piece: {r}")
    check(f"{sid}.record.json" not in os.listdir(os.path.join(tmp, folder)),
          "A's record file left after the fetch")
    for i in (rb, relay):
        check(B.call("stop", {"service_id": i["result"]["service_id"]})["ok"],
              "B stop")
    A.close()
    B.close()
    log = a.stop()
    check(f"{sid}: record fetched" in log, "release not logged")
    check(os.listdir(tmp) == [], f"agent folder left: {os.listdir(tmp)}")
    print("two sessions: A's stopped service keeps its record while B "
          "starts services; fetching it releases slot and file")


def lockout(token, secret):
    a = Agent(token, "--max-failures", "3", "--lockout-seconds", "2")
    for _ in range(3):
        c = ap.Conn(a.addr, os.urandom(32))
        check(c.handshake() is None, "wrong token got an answer")
        c.close()
    c = ap.Raw(a.addr)
    cut(c, "locked out: closed at the accept")
    c = ap.Conn(a.addr, secret)
    r = c.handshake()
    check(r is None, f"locked out but the right token got in: {r}")
    c.close()
    a.nothing_started("locked out")
    time.sleep(2.3)
    c = ap.Conn(a.addr, secret)
    check(c.handshake()["type"] == "welcome",
          "still locked out after --lockout-seconds")
    c.close()
    log = a.stop()
    check("locked out after 3 failed attempts" in log, "lockout not logged")
    check(secret.hex() not in log, "token in the log")
    print("3 failed attempts lock the address out, the right token "
          "included, until --lockout-seconds passed")

    # the message limit ends a session
    a = Agent(token, "--max-messages", "5")
    c = ap.Conn(a.addr, secret)
    check(c.handshake()["type"] == "welcome", "session")
    for _ in range(4):  # the hello is the first of the 5
        r = c.call("time")
    check(r["ok"], "time")
    refused(c, "session past --max-messages", "--max-messages")
    a.stop()
    print("--max-messages ends the session")


def main():
    token_files()
    token, secret = ap.token_file(TMP)
    attacks(token, secret)
    two_sessions(token, secret)
    lockout(token, secret)
    print("agent_security_test: ok")


if __name__ == "__main__":
    try:
        main()
    finally:
        for p in AGENTS:
            if p.poll() is None:
                p.kill()
                p.wait()
        subprocess.run(["rm", "-rf", TMP])
