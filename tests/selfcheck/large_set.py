#!/usr/bin/env python3
"""Build a large, valid result set from the real runs of fixture-udp.

The runs of one real configuration (fixture-udp's udp-p1024-c4-w1-single-uv,
2 repetitions) are cloned into CONFIGS configurations that differ only by
--seed (a plan dimension), REPS repetitions each, on a synthetic timeline
one second apart in one runner session: the records' config and command,
rep-N.cmd.txt, the times and the session are rewritten consistently; the
kernel snapshots and stderr are the real ones.  The plan, its hash and
every command line come from `netproof-bench matrix --dry-run` and
summary.json from the matrix's own summarizer (np_test_summarize), so the
set passes the self-check - which is what it is for: measuring the
streaming self-check's time and memory on thousands of runs.

usage: large_set.py BUILD_DIR OUT --configs N [--reps R]
"""
import json
import os
import subprocess
import sys
import tempfile
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "fixture-udp")
CID = "udp-p1024-c4-w1-single-uv"
SESSION = "0123456789abcdef0123456789abcdef"


def parse_time(s):
    fmt = "%Y-%m-%dT%H:%M:%S.%fZ" if "." in s else "%Y-%m-%dT%H:%M:%SZ"
    return datetime.strptime(s, fmt).replace(tzinfo=timezone.utc)


def fmt_time(t):
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (t.microsecond // 1000)


def main():
    args = sys.argv[1:]
    build, out = args[0], args[1]
    configs = int(args[args.index("--configs") + 1])
    reps = int(args[args.index("--reps") + 1]) if "--reps" in args else 2
    suite = json.load(open(os.path.join(SRC, "suite.json")))
    plan = dict(suite["plan"])
    plan["suite"] = "selfcheck-large"
    plan["repetitions"] = reps
    plan["base"] = dict(plan["base"], **{"io-model": "single", "backend": "uv"})
    del plan["configurations"]
    del plan["expectations"]
    plan["dimensions"] = {"seed": list(range(1, configs + 1))}
    tmp = tempfile.mkdtemp()
    pp = os.path.join(tmp, "plan.json")
    json.dump(plan, open(pp, "w"))
    bench = os.path.join(build, "bench", "netproof-bench")
    dry = subprocess.run([bench, "matrix", pp, "--output", "RESULTS", "--dry-run"],
                         check=True, capture_output=True, text=True).stdout
    lines = dry.splitlines()
    cmds = {}
    for i in range(0, len(lines) - 2, 2):
        cmds[lines[i].strip()] = lines[i + 1].split()
    plan_hash = lines[-1].split()[-1]
    t = parse_time(suite["started_at"])
    start = t
    os.makedirs(os.path.join(out, "runs"))
    k = 0
    for cid, argv in cmds.items():
        for n in range(1, reps + 1):
            srcbase = os.path.join(SRC, "runs", CID, "rep-%d" % (1 + (k % 2)))
            d = os.path.join(out, "runs", cid)
            os.makedirs(d, exist_ok=True)
            base = os.path.join(d, "rep-%d" % n)
            rec = json.load(open(srcbase + ".json"))
            cmd = dict(l.split(": ", 1) for l in
                       open(srcbase + ".cmd.txt").read().strip().split("\n"))
            shift = t - parse_time(cmd["started_at"])
            output = "RESULTS/runs/%s/rep-%d.json.tmp" % (cid, n)
            opts = argv[2:argv.index("--output")]
            rec["config"]["seed"] = int(cid.rsplit("seed", 1)[1])
            rec["config"]["command"] = ["udp"] + opts + ["--output", output]
            rec["runner"] = {"session": SESSION}
            for key in ("started_at", "ended_at"):
                rec[key] = fmt_time(parse_time(rec[key]) + shift)
            json.dump(rec, open(base + ".json", "w"), indent="\t")
            cmd["command"] = " ".join(["BUILD/bench/netproof-bench", "udp"] + opts +
                                      ["--output", output])
            for key in ("started_at", "ended_at"):
                cmd[key] = fmt_time(parse_time(cmd[key]) + shift)
            open(base + ".cmd.txt", "w").write("".join(
                "%s: %s\n" % (key, cmd[key]) for key in
                ("command", "started_at", "ended_at", "wall_seconds", "outcome")))
            for ext in (".stderr.txt", ".kernel-before.txt", ".kernel-after.txt"):
                open(base + ext, "wb").write(open(srcbase + ext, "rb").read())
            t += timedelta(seconds=1)
            k += 1
    suite["suite"] = plan["suite"]
    suite["plan"] = plan
    suite["plan_sha256"] = plan_hash
    suite["configurations"] = len(cmds)
    suite["repetitions"] = reps
    suite["ended_at"] = fmt_time(t)
    ses = suite["sessions"][0]
    ses.update(session=SESSION, started_at=fmt_time(start), ended_at=fmt_time(t),
               repetitions_run=len(cmds) * reps, repetitions_kept=0)
    suite["sessions"] = [ses]
    json.dump(suite, open(os.path.join(out, "suite.json"), "w"), indent="\t")
    subprocess.run([os.path.join(build, "tests", "selfcheck", "np_test_summarize"),
                    out], check=True)
    os.remove(pp)
    os.rmdir(tmp)


if __name__ == "__main__":
    main()
