#!/usr/bin/env python3
"""tools/bench/echo_probe.c: every design runs once, briefly, and prints
its line; structural invariants of each design's system calls per round
trip hold (epoll: at least a send and a receive per round trip; io_uring
with one thread: at most one io_uring_enter per round trip, since one
call carries a whole half round); bad options exit 2 with one line.
Where io_uring is refused (exit 3 naming it), the uring designs are
skipped with a message.  usage: echo_probe_test.py PROBE"""
import subprocess
import sys


def run(args):
    return subprocess.run([sys.argv[1]] + args, capture_output=True,
                          text=True, timeout=30)


def main():
    for mode in ("epoll", "uring"):
        for threads in ("1", "2"):
            for conn in ([], ["--connected"]):
                args = ["--mode", mode, "--threads", threads, "--clients",
                        "4", "--seconds", "0.1"] + conn
                p = run(args)
                if mode == "uring" and p.returncode == 3 and \
                        "io_uring" in p.stderr:
                    print("SKIP %s: %s" % (args, p.stderr.strip()))
                    continue
                assert p.returncode == 0, (args, p.returncode, p.stderr)
                f = p.stdout.split()
                assert f[0] == "roundtrips_per_sec" and \
                    f[2] == "syscalls_per_roundtrip" and \
                    f[4] == "context_switches_per_roundtrip", p.stdout
                rate, sysrt = float(f[1]), float(f[3])
                assert rate > 0, p.stdout
                if mode == "epoll":
                    assert sysrt >= 2.0, (args, p.stdout)
                elif threads == "1":
                    assert sysrt <= 1.0, (args, p.stdout)
                print("ok", " ".join(args), "->", p.stdout.strip())
    p = run(["--mode", "uring", "--window", "4", "--payload", "16384",
             "--address", "::1", "--seconds", "0.1"])
    assert p.returncode in (0, 3), p.stderr
    for bad in (["--mode", "poll"], ["--threads", "3"], ["--window", "65"],
                ["--bogus", "1"], ["--payload"]):
        p = run(bad)
        assert p.returncode == 2, (bad, p.returncode)
        assert p.stderr.startswith("echo_probe: "), p.stderr
        assert p.stdout == "", p.stdout
    print("echo_probe: every design ran")
    return 0


if __name__ == "__main__":
    sys.exit(main())
