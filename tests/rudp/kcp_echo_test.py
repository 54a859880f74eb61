#!/usr/bin/env python3
"""kcp_echo_test.py NETPROOF_BENCH SOURCE_DIR - the KCP peer of
bench/scripts/rudp_vs.sh (issue 30) checks what it claims to check.

Builds bench/scripts/kcp_echo offline (skipped, exit 77, without Go or
Debian's kcp-go sources), then over loopback only:
  - a direct echo, 4 clients x window 16 x 1,024 B for 1 s: exit 0, round
    trips counted and their percentiles present, no error;
  - through `netproof-bench relay --profile random` (5 % loss each way):
    every reply still checked (exit 0) and kcp-go retransmitted;
  - the same with Reed-Solomon FEC 10/3 on both ends: exit 0, parity
    received;
  - a server without FEC against a client with it: the replies come back
    wrong and the client says so (exit 1, "differ" or "not received");
  - bad usage: exit 2 with one line naming the option.
Every process has a time bound; temporary files live in one folder that
is removed at the end.
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time


def free_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def fail(msg):
    print("kcp_echo_test: FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def client(kcp, addr, extra, seconds=1.0):
    cmd = [kcp, "client", "--connect", addr, "--clients", "4", "--window",
           "16", "--payload", "1024", "--warmup", "0.3", "--seconds",
           str(seconds)] + extra
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60)


def server(kcp, port, extra):
    return subprocess.Popen([kcp, "server", "--listen", f"127.0.0.1:{port}",
                             "--max-seconds", "20"] + extra,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def stop(p):
    p.terminate()
    try:
        p.wait(timeout=5)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


def main():
    bench, src = sys.argv[1], sys.argv[2]
    if shutil.which("go") is None or not os.path.isdir(
            "/usr/share/gocode/src/github.com/xtaci/kcp-go"):
        print("kcp_echo_test: SKIP: golang-go / golang-github-xtaci-kcp-dev "
              "missing (scripts/install-deps.sh --bench)")
        return 77
    tmp = tempfile.mkdtemp(prefix="np-kcp-test-")
    try:
        return run(bench, src, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run(bench, src, tmp):
    kcp = os.path.join(tmp, "kcp_echo")
    env = dict(os.environ, TMPDIR=tmp)
    b = subprocess.run([os.path.join(src, "bench/scripts/kcp_echo/build.sh"),
                        kcp], capture_output=True, text=True, timeout=240,
                       env=env)
    if b.returncode != 0:
        fail("build.sh exit %d: %s" % (b.returncode, b.stderr.strip()))

    # direct
    port = free_port()
    srv = server(kcp, port, [])
    time.sleep(0.3)
    r = client(kcp, f"127.0.0.1:{port}", [])
    stop(srv)
    if r.returncode != 0:
        fail("direct run exit %d: %s" % (r.returncode, r.stderr.strip()))
    d = json.loads(r.stdout)
    if d["errors"] or d["round_trips"] <= 0 or d["round_trips_total"] < \
            d["round_trips"] or not d["latency_ms"]["p99"] > 0:
        fail("direct run: %s" % r.stdout.strip())
    print("direct: %.0f rt/s p99 %.1f ms" % (d["round_trips_per_s"],
                                             d["latency_ms"]["p99"]))

    # through the relay, lossy, bare and with FEC
    for fec in ("none", "10/3"):
        lport, fport = free_port(), free_port()
        relay = subprocess.Popen(
            [bench, "relay", "--listen", f"127.0.0.1:{lport}", "--forward",
             f"127.0.0.1:{fport}", "--profile", "random", "--max-seconds",
             "20", "--quiet", "--record", os.path.join(tmp, "relay.json")],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        srv = server(kcp, fport, ["--fec", fec])
        time.sleep(0.3)
        r = client(kcp, f"127.0.0.1:{lport}", ["--fec", fec], 1.5)
        stop(srv)
        stop(relay)
        if r.returncode != 0:
            fail("relay run (fec %s) exit %d: %s" % (fec, r.returncode,
                                                     r.stderr.strip()))
        d = json.loads(r.stdout)
        c = d["client_counters"]
        if d["errors"] or d["round_trips"] <= 0:
            fail("relay run (fec %s): %s" % (fec, r.stdout.strip()))
        if fec == "none" and c["retrans_segments"] <= 0:
            fail("5 % loss and kcp-go retransmitted nothing: " + r.stdout)
        if fec != "none" and c["fec_parity_received"] <= 0:
            fail("FEC 10/3 and no parity arrived: " + r.stdout)
        print("relay, fec %s: %.0f rt/s p99 %.1f ms, retransmitted %d, "
              "parity received %d" % (fec, d["round_trips_per_s"],
                                      d["latency_ms"]["p99"],
                                      c["retrans_segments"],
                                      c["fec_parity_received"]))

    # mismatched FEC: the check must catch the wrong replies
    port = free_port()
    srv = server(kcp, port, [])
    time.sleep(0.3)
    r = client(kcp, f"127.0.0.1:{port}", ["--fec", "10/3"], 0.5)
    stop(srv)
    if r.returncode != 1 or ("differ" not in r.stderr and
                             "not received" not in r.stderr):
        fail("mismatched FEC: exit %d, stderr %s" % (r.returncode,
                                                     r.stderr.strip()))
    print("mismatched FEC caught: " + r.stderr.splitlines()[0])

    # usage
    r = subprocess.run([kcp, "client", "--connect", "127.0.0.1:9",
                        "--fec", "0/3"], capture_output=True, text=True,
                       timeout=10)
    if r.returncode != 2 or "--fec" not in r.stderr:
        fail("bad --fec: exit %d, stderr %s" % (r.returncode, r.stderr))
    return 0


if __name__ == "__main__":
    sys.exit(main())
