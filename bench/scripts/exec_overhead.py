#!/usr/bin/env python3
"""exec_overhead.py NETPROOF_BENCH [N] - the wrapper's own cost.

Runs `/bin/true` directly and `netproof-bench exec --timeout 5 --output F
-- /bin/true` alternately, N times each (default 30), and prints the wall
time (fork to reap, CLOCK_MONOTONIC) and the CPU time (user + sys from
wait4, which includes the descendants each one reaped) of both, side by
side: median, min and max.  The exec side includes everything a record
costs: the executable's SHA-256, two kernel snapshots, the kept files and
the record, validated, fsynced and renamed.  Alternating keeps a drift of
the machine from favouring one side.  A helper for the note in
docs/guides/any-benchmark.md, not a test.
"""
import os
import statistics
import sys
import tempfile
import time


def run(argv):
    t0 = time.monotonic()
    pid = os.posix_spawn(argv[0], argv, {"PATH": "/usr/bin:/bin"})
    _, status, ru = os.wait4(pid, 0)
    wall = time.monotonic() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{argv}: exit status {status}")
    return wall, ru.ru_utime + ru.ru_stime


def row(name, xs, scale, unit):
    v = sorted(x * scale for x in xs)
    return (f"| {name} | {statistics.median(v):.2f} {unit} | "
            f"{v[0]:.2f} | {v[-1]:.2f} |")


def main():
    bench = os.path.abspath(sys.argv[1])
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    direct, wrapped = [], []
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "r.json")
        exec_argv = [bench, "exec", "--timeout", "5", "--output", out,
                     "--quiet", "--", "/bin/true"]
        for _ in range(n):
            direct.append(run(["/bin/true"]))
            wrapped.append(run(exec_argv))
    print(f"{n} alternating runs of each\n")
    print("| measure | median | min | max |")
    print("|---|---:|---:|---:|")
    print(row("wall, /bin/true", [w for w, _ in direct], 1e3, "ms"))
    print(row("wall, exec -- /bin/true", [w for w, _ in wrapped], 1e3, "ms"))
    print(row("CPU, /bin/true", [c for _, c in direct], 1e3, "ms"))
    print(row("CPU, exec -- /bin/true", [c for _, c in wrapped], 1e3, "ms"))


if __name__ == "__main__":
    main()
