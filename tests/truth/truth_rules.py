"""The truth matrix's rules, shared by its tests (truth_test.py: udp
--connect through a local relay and serve; truth_agent.py: udp --agent
through the far relay and serve the agent started): every count the
client reports (sent, received, lost, late, duplicated, reordered) held
against the relay's per-direction counters and serve's own, for the same
window, with the rule next to each assertion.  The records are the
client's udp-external record and the relay's and serve's own records."""

RATE = "2000"      # open loop, messages/s over the 4 clients


def relay_drops(leg):
    return (leg["lost_burst"] + leg["lost_ge"] + leg["lost_random"] +
            leg["overflow"] + leg["dropped_at_stop"])


def check_row(name, kind, udp, relay, serve, fail):
    """Every rule of the matrix for one row: udp is the client's record,
    relay and serve the records of the two other processes on its path
    (local processes, or the far relay's and serve's records of a udp
    --agent --agent-relay record); fail(text) reports a broken rule."""
    c = udp["counters"]
    x = udp["external"]["replies"]
    c2s, s2c = relay["relay"]["totals"]["c2s"], relay["relay"]["totals"]["s2c"]
    sv = serve["serve"]["counters"]
    rdrops = relay["sockets"]["kernel_drops"]     # every relay socket
    sdrops = serve["sockets"]["kernel_drops"]     # serve's socket
    cdrops = udp["sockets"]["client_drops"]       # our client sockets
    sent, recv, lost = c["sent"], c["received"], c["lost"]
    # counters.late is 0.3.0's; a record without it counts late as lost
    late, dup, reo, stale = c.get("late", 0), x["duplicates"], \
        x["reordered"], x["stale"]
    arrived = recv + late + dup + stale
    dups = c2s["duplicated"] + s2c["duplicated"]
    drops = relay_drops(c2s) + relay_drops(s2c) + rdrops + sdrops + cdrops
    complete = udp["measurement"]["drain_complete"]

    def rule(ok, text, *nums):
        if not ok:
            fail("%s/%s: %s (%s)" % (name, kind, text,
                                     ", ".join(str(n) for n in nums)))

    # the client's own arithmetic: lost is what never came back
    rule(lost == sent - recv - late, "lost = sent - received - late",
         lost, sent, recv, late)
    # request leg: every datagram our kernel accepted reached the relay's
    # socket (read there, or dropped by it)
    rule(c2s["received"] <= sent <= c2s["received"] + rdrops,
         "relay c2s.received <= sent <= c2s.received + relay socket drops",
         c2s["received"], sent, rdrops)
    # the relay forwards what it did not drop; a copy it made is one more
    rule(c2s["forwarded"] + relay_drops(c2s) ==
         c2s["received"] + c2s["duplicated"],
         "c2s forwarded + dropped = received + duplicated",
         c2s["forwarded"], relay_drops(c2s), c2s["received"],
         c2s["duplicated"])
    # serve read what the relay forwarded (or its socket dropped it)
    rule(sv["received"] <= c2s["forwarded"] <= sv["received"] + sdrops,
         "serve.received <= c2s.forwarded <= serve.received + serve drops",
         sv["received"], c2s["forwarded"], sdrops)
    # serve echoed every datagram it read
    rule(sv["echoed"] == sv["received"], "serve echoed = serve received",
         sv["echoed"], sv["received"])
    rule(s2c["received"] <= sv["echoed"] <= s2c["received"] + rdrops,
         "relay s2c.received <= serve.echoed <= s2c.received + relay drops",
         s2c["received"], sv["echoed"], rdrops)
    # reply leg: what reached our sockets is what the relay forwarded to
    # us, less what was still on its way when the client closed (at most
    # the messages it still counted lost)
    rule(arrived <= s2c["forwarded"] <= arrived + lost + cdrops,
         "received + late + duplicates + stale <= s2c.forwarded <= that + "
         "lost + client drops", arrived, s2c["forwarded"], lost, cdrops)
    # a message is lost only if some copy of it was dropped on the way;
    # without copies, exactly the drops (when the drain saw every reply)
    rule(lost <= drops, "lost <= drops on the path (relay + sockets)",
         lost, drops)
    if dups == 0:
        # the drain outlasts every reply still on its way (it ends when all
        # are answered, or 200 ms + 2 x the largest RTT after the last one)
        rule(lost == drops, "no duplication: lost = drops (drain complete "
             "%s)" % complete, lost, drops)
    # every duplicate the client saw is a copy the relay made
    rule(dup <= dups, "duplicates <= relay duplicated (both legs)", dup,
         dups)
    if drops == 0:
        rule(dup == dups, "nothing dropped: duplicates = relay duplicated",
             dup, dups)
    # no path here holds a reply back 200 ms (the reply timeout's floor;
    # open loop gives up only after --max-outstanding sends): none late,
    # none unknown
    rule(late == 0 and stale == 0, "late = 0 and stale = 0", late, stale)
    # a reply answered after a later one was held back by the relay
    # (reorder's extra delay, or jitter letting a later one overtake)
    held = c2s["reordered"] + s2c["reordered"] + c2s["delayed"] + \
        s2c["delayed"]
    rule(reo <= held, "reordered <= relay reordered + delayed (both legs)",
         reo, held)
    if c2s["reordered"] + s2c["reordered"] > 0 and kind == "closed":
        rule(reo > 0, "the relay reordered and the client saw it", reo,
             c2s["reordered"] + s2c["reordered"])
    rule(sent > 0 and recv > 0, "the row measured something", sent, recv)
    # each row's impairment acted, so the rules above compared something
    if name in ("loss", "burst", "combined"):
        rule(relay_drops(c2s) + relay_drops(s2c) > 0 and lost > 0,
             "the relay dropped and the client lost", drops, lost)
    if name in ("duplicate", "combined"):
        rule(dups > 0 and dup > 0, "the relay copied and the client saw "
             "duplicates", dups, dup)
    if name == "delay":
        # 2 x (20 - 5) ms at least, from the client's own clock
        p50 = udp["measurement"]["rtt_us"]["p50"]
        rule(p50 >= 30000, "p50 RTT >= 2 x (delay - jitter)", p50)
    return udp


IMPAIRMENTS = [
    ("loss", ["--loss-percent", "5"]),
    ("reorder", ["--reorder-percent", "10", "--reorder-delay-ms", "2"]),
    ("duplicate", ["--duplicate-percent", "5"]),
    ("delay", ["--delay-ms", "20", "--jitter-ms", "5"]),
    ("burst", ["--burst-loss", "3/100"]),
    ("combined", ["--loss-percent", "5", "--reorder-percent", "10",
                  "--reorder-delay-ms", "2", "--duplicate-percent", "5",
                  "--delay-ms", "20", "--jitter-ms", "5", "--burst-loss",
                  "3/100"]),
]
KINDS = [("closed", ["--window", "8", "--interval", "0.25"]),
         ("open", ["--rate", RATE])]
