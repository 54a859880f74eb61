"""Separate network stacks for the cross-host tests: network namespaces
joined by veth pairs, with addresses the test assigns on those veths only
(10.231.X.0/30 links and fd00:231:X::/64; nothing is routed anywhere else),
and everything removed again - on success, on an exception, at exit, on
SIGINT/SIGTERM, and (for a run that was killed outright) by the next run,
which deletes namespaces of this naming whose process is gone.

    with Topology(2) as t:            # host 0 -- host 1
        t.popen(1, [bench, "agent", ...])
        t.run(0, [bench, "udp", "--agent", f"{t.addr(1)}:7000", ...])

Hosts are a chain: host i and host i+1 share link i (host i is .1, host
i+1 is .2 of 10.231.X.(4i)/30; ::1 and ::2 of fd00:231:X:i::/64).  Needs
root (CAP_SYS_ADMIN and CAP_NET_ADMIN); skip() says so and exits 77."""

import atexit
import os
import random
import re
import signal
import subprocess
import sys

PREFIX = "nptest"  # namespace names: nptest-<pid>-<i>
SKIP = 77


def skip(why):
    print(f"SKIP: {why}", flush=True)
    sys.exit(SKIP)


def _ip(*args, check=True):
    return subprocess.run(["ip", *args], capture_output=True, text=True,
                          check=check, timeout=20)


def sweep_stale():
    """Delete namespaces an earlier, killed run of these tests left."""
    try:
        out = _ip("netns", "list", check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return
    for line in out.splitlines():
        m = re.match(rf"^({PREFIX}-(\d+)-\d+)\b", line)
        if m and not os.path.exists(f"/proc/{m.group(2)}"):
            _ip("netns", "del", m.group(1), check=False)


class Topology:
    def __init__(self, hosts=2):
        self.n = hosts
        self.x = random.randrange(256)  # the third octet, for the record
        self.names = [f"{PREFIX}-{os.getpid()}-{i}" for i in range(hosts)]
        self.made = []
        self.procs = []

    # -- addresses ---------------------------------------------------
    def addr(self, host, peer=None, v6=False):
        """host's address on its link to peer (default: the neighbour,
        host 1's toward host 0)."""
        if peer is None:
            peer = host - 1 if host > 0 else 1
        link = min(host, peer)
        end = 1 if host < peer else 2
        if v6:
            return f"fd00:231:{self.x:x}:{link:x}::{end}"
        return f"10.231.{self.x}.{4 * link + end}"

    # -- life --------------------------------------------------------
    def __enter__(self):
        if os.geteuid() != 0:
            skip("creating network namespaces needs root (CI runs these "
                 "tests as root)")
        sweep_stale()
        atexit.register(self.cleanup)
        for s in (signal.SIGINT, signal.SIGTERM):
            signal.signal(s, self._on_signal)
        try:
            self._create()
        except subprocess.CalledProcessError as e:
            self.cleanup()
            skip(f"cannot create network namespaces here: {e.stderr.strip()}")
        return self

    def __exit__(self, *exc):
        self.cleanup()
        return False

    def _on_signal(self, signo, frame):
        self.cleanup()
        sys.exit(128 + signo)

    def _create(self):
        for name in self.names:
            _ip("netns", "add", name)
            self.made.append(name)
            _ip("-n", name, "link", "set", "lo", "up")
        for i in range(self.n - 1):
            a, b = self.names[i], self.names[i + 1]
            va, vb = f"npv{os.getpid() % 100000}l{i}a", \
                f"npv{os.getpid() % 100000}l{i}b"
            # created inside the namespaces: never in the caller's stack
            _ip("link", "add", va, "netns", a, "type", "veth", "peer",
                "name", vb, "netns", b)
            for ns, dev, host, peer in ((a, va, i, i + 1), (b, vb, i + 1, i)):
                _ip("-n", ns, "addr", "add", f"{self.addr(host, peer)}/30",
                    "dev", dev)
                _ip("-n", ns, "addr", "add",
                    f"{self.addr(host, peer, v6=True)}/64", "dev", dev,
                    "nodad")
                _ip("-n", ns, "link", "set", dev, "up")

    def cleanup(self):
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(5)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        self.procs = []
        for name in reversed(self.made):
            _ip("netns", "del", name, check=False)  # its veths go with it
        self.made = []

    # -- processes ---------------------------------------------------
    def argv(self, host, argv):
        return ["ip", "netns", "exec", self.names[host], *argv]

    def popen(self, host, argv, **kw):
        p = subprocess.Popen(self.argv(host, argv), **kw)
        self.procs.append(p)
        return p

    def run(self, host, argv, timeout=120, **kw):
        return subprocess.run(self.argv(host, argv), timeout=timeout, **kw)

    def leftovers(self):
        """Our namespaces that still exist (for the cleanup test)."""
        out = _ip("netns", "list", check=False).stdout
        return [n for n in self.names if re.search(rf"^{n}\b", out, re.M)]
