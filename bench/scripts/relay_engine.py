#!/usr/bin/env python3
"""relay_engine.py - the in-process relay's cost per round trip, before
and after a change, side by side (issue 30 item 3: the relay at 100k).

    bench/scripts/relay_engine.py BEFORE_BUILD AFTER_BUILD
        [--rounds 5] [--warmup 2] [--seconds 3] [--cases rudp,bound]

Each round runs, alternating BEFORE and AFTER, the two none-profile
workloads of issue 30 (4 clients x window 16 x 1,024 B):

  rudp   `netproof-bench rudp --profile none --rounds 1` (ARQ, ordered)
  bound  `np_rudp_plain_bound` (a plain echo through the same relay)

and attaches `perf stat --per-thread` (task-clock, context-switches,
raw_syscalls:sys_enter) to the process for the middle of its measured
phase.  The relay's thread is the one named np-relay (builds before the
name: the process's second thread, as np_relay_start runs before the
endpoints' loop starts in both programs).  Per case it
prints median [min..max] over the rounds of: round trips/s and p99, the
relay thread's CPU microseconds, system calls and context switches per
round trip, and the same for the whole process; then the AFTER / BEFORE
ratio of the medians, and the load average before and after.  Needs perf
and root (or kernel.perf_event_paranoid <= 0).  A loaded machine moves
both builds alike: read the ratios, and re-run on an idle machine for
absolute figures.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

EVENTS = "task-clock,context-switches,raw_syscalls:sys_enter"


def programs(build):
    bench = os.path.join(build, "bench", "netproof-bench")
    bound = os.path.join(build, "tools", "np_rudp_plain_bound")
    for p in (bench, bound):
        if not os.access(p, os.X_OK):
            sys.exit("relay_engine.py: %s: not an executable" % p)
    return bench, bound


def perf_threads(pid, seconds):
    """{tid: {event: value}} of every thread of pid over seconds."""
    out = subprocess.run(
        ["perf", "stat", "--per-thread", "-x,", "-e", EVENTS, "-p", str(pid),
         "--", "sleep", "%.3f" % seconds],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
        timeout=seconds + 30).stderr
    th = {}
    for line in out.splitlines():
        f = line.split(",")
        if len(f) < 4 or "-" not in f[0]:
            continue
        comm, _, tid = f[0].rpartition("-")
        try:
            tid, val = int(tid), float(f[1])
        except ValueError:
            continue  # "<not counted>": a thread that did not run
        th.setdefault(tid, {"comm": comm})[f[3]] = val
    return th


def run_case(cmd, parse, warmup, seconds):
    """Start cmd, perf its threads over the measured phase's middle, and
    return (rt/s, p99 us, relay thread counts, process counts)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    window = max(seconds - 1.0, 0.5)
    time.sleep(warmup + (seconds - window) / 2)
    th = perf_threads(proc.pid, window)
    out, _ = proc.communicate(timeout=warmup + seconds + 60)
    if proc.returncode != 0:
        sys.exit("relay_engine.py: %s exited %d" % (cmd[0], proc.returncode))
    rate, p99 = parse(out)
    tids = sorted(th)
    named = [t for t in tids if th[t]["comm"] == "np-relay"]
    relay = th[named[0]] if named else th[tids[1]] if len(tids) > 1 else {}
    total = {}
    for t in th.values():
        for k, v in t.items():
            if k != "comm":
                total[k] = total.get(k, 0.0) + v
    rts = rate * window

    def per_rt(c):
        return (c.get("task-clock", 0.0) * 1e3 / rts,  # msec -> us
                c.get("raw_syscalls:sys_enter", 0.0) / rts,
                c.get("context-switches", 0.0) / rts)
    return (rate, p99) + per_rt(relay) + per_rt(total)


def parse_rudp(out):
    s = json.loads(out)
    if s.get("status") != "passed":
        sys.exit("relay_engine.py: rudp run %s" % s.get("status"))
    return s["roundtrips_per_sec"], s["rtt_p99_us"]


def parse_bound(out):
    f = out.split()
    return float(f[1]), float(f[5])


COLS = ["rt/s", "p99 us", "relay cpu us/rt", "relay syscalls/rt",
        "relay cs/rt", "process cpu us/rt", "process syscalls/rt",
        "process cs/rt"]


def fmt(v):
    return "%.0f" % v if abs(v) >= 100 else "%.2f" % v


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--warmup", type=float, default=2.0)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--cases", default="rudp,bound",
                    help="which workloads, comma-separated (rudp, bound)")
    a = ap.parse_args()
    cases = [c for c in a.cases.split(",") if c]
    if not cases or any(c not in ("rudp", "bound") for c in cases):
        sys.exit("relay_engine.py: --cases: rudp and/or bound")
    builds = {"before": programs(a.before), "after": programs(a.after)}
    common = ["--warmup", str(a.warmup), "--seconds", str(a.seconds)]
    res = {}
    load0 = open("/proc/loadavg").read().split()[:3]
    for r in range(a.rounds):
        for name in ("before", "after") if r % 2 == 0 else ("after", "before"):
            bench, bound = builds[name]
            if "rudp" in cases:
                res.setdefault(("rudp", name), []).append(run_case(
                    [bench, "rudp", "--profile", "none", "--rounds", "1",
                     "--summary", "json", "--quiet"] + common,
                    parse_rudp, a.warmup, a.seconds))
            if "bound" in cases:
                res.setdefault(("bound", name), []).append(run_case(
                    [bound] + common, parse_bound, a.warmup, a.seconds))
    load1 = open("/proc/loadavg").read().split()[:3]
    print("load average before %s, after %s; %d alternating rounds, %g s "
          "warm-up, %g s measured (perf over the middle %g s)"
          % (" ".join(load0), " ".join(load1), a.rounds, a.warmup,
             a.seconds, max(a.seconds - 1.0, 0.5)))
    print("| case | build | " + " | ".join(COLS) + " |")
    print("|---|---|" + "---:|" * len(COLS))
    for case in cases:
        for name in ("before", "after"):
            rows = res[(case, name)]
            cells = []
            for i in range(len(COLS)):
                v = [row[i] for row in rows]
                cells.append("%s [%s..%s]" % (fmt(statistics.median(v)),
                                              fmt(min(v)), fmt(max(v))))
            print("| %s | %s | %s |" % (case, name, " | ".join(cells)))
    for case in cases:
        b = [statistics.median([row[i] for row in res[(case, "before")]])
             for i in range(len(COLS))]
        f = [statistics.median([row[i] for row in res[(case, "after")]])
             for i in range(len(COLS))]
        print("%s after/before: rt/s %.2f x, relay cpu/rt %.2f x, relay "
              "syscalls/rt %.2f x, process cpu/rt %.2f x"
              % (case, f[0] / b[0], f[2] / b[2] if b[2] else 0,
                 f[3] / b[3] if b[3] else 0, f[5] / b[5] if b[5] else 0))


if __name__ == "__main__":
    main()
