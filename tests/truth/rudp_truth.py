#!/usr/bin/env python3
"""The truth matrix, reliable-UDP rows: `netproof-bench rudp --relay`
through a `netproof-bench relay` process, for each impairment alone and
combined.  Every count rudp reports is held against the relay's own
counters for the same round (its statistics lines, which the record links
by sequence number and SHA-256, and its final record), with the rule next
to each assertion.  One round of 1 s each, no warm-up, so the relay's
round window encloses everything the endpoints sent.

usage: rudp_truth.py NETPROOF_BENCH
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

BENCH = sys.argv[1]
TMP = tempfile.mkdtemp(prefix="np-truth-rudp-")
FAILS = []

# name, relay impairment options (both directions)
ROWS = [
    ("loss 5 %", ["--loss-percent", "5"]),
    ("reorder 10 %/2 ms", ["--reorder-percent", "10", "--reorder-delay-ms", "2"]),
    ("duplicate 5 %", ["--duplicate-percent", "5"]),
    ("delay 20 ms +- 5", ["--delay-ms", "20", "--jitter-ms", "5"]),
    ("burst 3/100", ["--burst-loss", "3/100"]),
    ("combined", ["--loss-percent", "2", "--reorder-percent", "5",
                  "--reorder-delay-ms", "2", "--duplicate-percent", "2",
                  "--delay-ms", "5", "--jitter-ms", "2"]),
]
CLIENTS, WINDOW = 4, 16


def free_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def rule(row, ok, text, *values):
    """One assertion: the rule in words and the values it compared."""
    if not ok:
        FAILS.append("%s: %s: %s" % (row, text, " ".join(map(str, values))))


def run_row(name, imp):
    d = os.path.join(TMP, name.split()[0])
    os.makedirs(d)
    stats = os.path.join(d, "relay-stats.jsonl")
    listen, forward = free_port(), free_port()
    relay = subprocess.Popen(
        [BENCH, "relay", "--listen", "127.0.0.1:%d" % listen,
         "--forward", "127.0.0.1:%d" % forward, "--max-seconds", "30",
         "--stats-lines", stats, "--stats-interval", "0.1",
         "--record", os.path.join(d, "relay.json"), "--quiet"] + imp)
    try:
        deadline = time.monotonic() + 5
        while not os.path.exists(stats) and time.monotonic() < deadline:
            time.sleep(0.05)
        p = subprocess.run(
            [BENCH, "rudp", "--relay", "127.0.0.1:%d" % listen,
             "--relay-stats", stats, "--seconds", "1", "--warmup", "0",
             "--rounds", "1", "--clients", str(CLIENTS),
             "--window", str(WINDOW), "--output",
             os.path.join(d, "rudp.json")],
            capture_output=True, text=True, timeout=60)
    finally:
        relay.send_signal(2)
        relay.wait(timeout=30)
    if p.returncode != 0:
        FAILS.append("%s: rudp exit %d: %s" % (name, p.returncode, p.stderr))
        return
    with open(os.path.join(d, "rudp.json")) as f:
        rec = json.load(f)
    with open(os.path.join(d, "relay.json")) as f:
        relay_rec = json.load(f)
    rnd = rec["rudp"]["rounds"][0]
    c, arq, io, win = rnd["counters"], rnd["arq"], rnd["io"], rnd["relay"]["window"]

    # ARQ semantics, whatever the link did: every message the clients sent
    # reached the server once, was echoed once and came back once, intact
    # and in order.
    rule(name, c["sent"] == c["server_received"] == c["server_replied"]
         == c["received"], "exactly once: sent = server received = server "
         "replied = received", c["sent"], c["server_received"],
         c["server_replied"], c["received"])
    rule(name, c["lost"] == 0 and c["content_errors"] == 0 and
         c["sequence_errors"] == 0, "nothing lost, corrupted or out of order",
         c["lost"], c["content_errors"], c["sequence_errors"])

    # Every datagram an endpoint received came out of the relay: no more
    # than the relay forwarded in the round, and none from anywhere else.
    rule(name, io["recv_datagrams"] <= win["forwarded"],
         "endpoint datagrams received <= relay forwarded",
         io["recv_datagrams"], win["forwarded"])
    rule(name, arq["foreign_datagrams"] == 0, "no foreign datagrams",
         arq["foreign_datagrams"])

    # Every datagram an endpoint sent went into the relay: the relay's
    # round (from before the first to after the last datagram) received at
    # least what the endpoints sent in measurement + drain.
    rule(name, win["received"] >= arq["datagrams_sent"],
         "relay received >= endpoint datagrams sent",
         win["received"], arq["datagrams_sent"])

    # The relay's ledger: what it received was forwarded, duplicated,
    # lost or overflowed, nothing else (duplicates add copies).
    rule(name, win["received"] + win["duplicated"] ==
         win["forwarded"] + win["lost"] + win["overflow"],
         "relay received + duplicated = forwarded + lost + overflow",
         win["received"], win["duplicated"], win["forwarded"], win["lost"],
         win["overflow"])

    # The round's relay counters are the relay's own: its final record
    # (whole life) holds at least as many of each.
    tot = {"received": 0, "forwarded": 0}
    for r in relay_rec["relay"]["routes"]:
        for direction in ("c2s", "s2c"):
            for k in tot:
                tot[k] += r[direction][k]
    for k in tot:
        rule(name, tot[k] >= win[k], "relay record %s >= round's" % k,
             tot[k], win[k])

    # Retransmissions against the link.  A retransmission the sender proved
    # spurious (the ack echoed a timestamp older than the resend) is among
    # its retransmissions.  A fragment the receiver saw twice was either a
    # relay duplicate or a resend: duplicates <= retransmits + relay
    # duplicated.  Every resend the relay delivered whose earlier copy was
    # also delivered is a duplicate at the receiver, so retransmits - relay
    # lost <= duplicates, less the resends still in flight when the
    # connections closed (at most one window per connection and direction).
    retx, spur, dup = (arq["retransmits_round"],
                       arq["spurious_retransmits_round"],
                       arq["duplicate_fragments"])
    rule(name, spur <= retx, "spurious (Eifel) <= retransmits", spur, retx)
    rule(name, dup <= retx + win["duplicated"],
         "receiver duplicates <= retransmits + relay duplicated",
         dup, retx, win["duplicated"])
    in_flight = 2 * CLIENTS * WINDOW
    rule(name, retx - win["lost"] - win["overflow"] - in_flight <= dup,
         "retransmits - relay lost - in flight at close <= receiver duplicates",
         retx, win["lost"], win["overflow"], in_flight, dup)
    if win["lost"] == 0 and win["overflow"] == 0:
        # nothing was lost: no loss may be reported and the messages
        # arrived without any resend being needed
        rule(name, rnd["status"] == "passed", "status passed", rnd["status"])
    else:
        # the relay dropped datagrams: the ARQ had to resend
        rule(name, retx > 0, "relay lost datagrams, so some were resent",
             win["lost"], retx)
    print("%-18s sent %d, relay lost %d dup %d reordered %d; retransmits %d "
          "(spurious by Eifel %d), receiver duplicates %d" %
          (name, c["sent"], win["lost"], win["duplicated"], win["reordered"],
           retx, spur, dup))


def main():
    try:
        for name, imp in ROWS:
            run_row(name, imp)
    finally:
        if not FAILS:
            shutil.rmtree(TMP)
    if FAILS:
        for f in FAILS:
            print("FAIL: " + f, file=sys.stderr)
        print("files kept in " + TMP, file=sys.stderr)
        return 1
    print("rudp_truth: %d rows, every rule held" % len(ROWS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
