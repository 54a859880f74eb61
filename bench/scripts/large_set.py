#!/usr/bin/env python3
"""Build a VALID large result set from a real one, for scale measurements.

usage: large_set.py BUILD_DIR OUT --runs N [--source DIR]

SOURCE (default: a fresh `netproof-bench matrix bench/plans/quick.json`
into a temporary folder) is a real results folder written by the same
build.  OUT becomes the same suite with its plan's `repetitions` raised so
that it holds at least N runs: repetition k of a configuration is a byte
copy of the source's repetition ((k - 1) mod R) + 1 - record, stderr,
command file and both kernel snapshots - with only what must differ
rewritten in place:

  - the timeline: every run keeps its own durations and its offsets from
    the runner's command file, laid end to end in the runner's order
    (configuration by configuration, repetition 1..R) inside one session
    that ends before now;
  - the repetition's output path (the record's config.command and the
    command file's `command:` line name rep-<k>.json.tmp under OUT);
  - suite.json: the new plan, its sha256 (as `matrix --dry-run` prints
    it), repetitions, the session's window and counts.

Nothing is recomputed here: summary.json is written by the matrix runner
itself (`netproof-bench matrix PLAN --output OUT --resume` finds every
repetition complete, runs nothing and summarizes), and the script ends by
running `netproof-report --self-check` on OUT: it fails (exit 1) unless the
set is clean, so a generator bug can never pass as a measurement.
"""
import argparse
import datetime
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

MAX_REPETITIONS = 1000  # schema/plan.schema.json: /properties/repetitions/maximum
TIME_RE = re.compile(r'("(?:started_at|ended_at)":\s*")([0-9T:.\-]+Z)(")')


def parse_time(s):
    """RFC 3339 UTC ('...Z', with or without milliseconds) -> (datetime, ms?)."""
    ms = "." in s
    fmt = "%Y-%m-%dT%H:%M:%S.%fZ" if ms else "%Y-%m-%dT%H:%M:%SZ"
    return datetime.datetime.strptime(s, fmt).replace(tzinfo=datetime.timezone.utc), ms


def fmt_time(t, ms):
    if ms:
        return t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (t.microsecond // 1000)
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def run(args, **kw):
    p = subprocess.run(args, capture_output=True, text=True, **kw)
    return p.returncode, p.stdout, p.stderr


def cmd_fields(text):
    out = {}
    for line in text.splitlines():
        k, _, v = line.partition(": ")
        out[k] = v
    return out


def plan_hash(bench, plan_path):
    rc, out, err = run([bench, "matrix", plan_path, "--dry-run"])
    if rc != 0:
        sys.exit(f"large_set: matrix --dry-run {plan_path}: exit {rc}\n{err}")
    m = re.search(r"plan sha256 ([0-9a-f]{64})", out + err)
    if not m:
        sys.exit("large_set: matrix --dry-run printed no plan sha256")
    return m.group(1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build")
    ap.add_argument("out")
    ap.add_argument("--runs", type=int, required=True)
    ap.add_argument("--source")
    ap.add_argument("--per-run-snapshots", action="store_true",
                    help="keep each run's runner snapshots as its own "
                         "rep-N.kernel-before/after.txt (the 0.2 form, valid "
                         "too) instead of by reference: the bytes grow "
                         "with the runs")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    bench = os.path.join(build, "bench", "netproof-bench")
    report = os.path.join(build, "report", "netproof-report")
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    out = os.path.abspath(a.out)
    if os.path.exists(out):
        sys.exit(f"large_set: {out}: exists; choose a new folder")
    tmp = tempfile.mkdtemp(prefix="np-large-set-")
    try:
        src = a.source
        if src is None:
            src = os.path.join(tmp, "quick")
            rc, _, err = run([bench, "matrix", os.path.join(root, "bench/plans/quick.json"),
                              "--output", src, "--quiet"])
            if rc != 0:
                sys.exit(f"large_set: the source suite failed to run (exit {rc})\n{err}")
        build_set(bench, report, os.path.abspath(src), out, a.runs, tmp,
                  a.per_run_snapshots)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


SYSCTL_NAMES = {"/sys/class/net/lo/mtu": "lo.mtu"}


def parse_snapshot(text):
    """A runner snapshot's raw text (common/np_kernel.h) as a record's
    inline {sources, counters}, parsed the way np_kernel.c parses it, for
    --per-run-snapshots (the 0.2 form: records inline too)."""
    sources, counters = {}, {}
    for sec in re.split(r"^==> ", text, flags=re.M)[1:]:
        head, _, body = sec.partition("\n")
        m = re.match(r"(\S+)(?: \((absent: .*)\))? <==$", head)
        path, absent = m.group(1), m.group(2)
        sources[path] = absent or "present"
        if absent:
            continue
        lines = body.splitlines()
        if path in ("/proc/net/snmp", "/proc/net/netstat"):
            for h, v in zip(lines[0::2], lines[1::2]):
                g, names = h.split(":", 1)
                for n, x in zip(names.split(), v.split(":", 1)[1].split()):
                    if re.fullmatch(r"-?\d+", x):
                        counters[f"{g}.{n}"] = int(x)
        elif path == "/proc/net/snmp6":
            for ln in lines:
                t = ln.split()
                if len(t) == 2 and re.fullmatch(r"-?\d+", t[1]):
                    g = re.match(r"\D*\d+", t[0])
                    counters[f"{g.group(0) if g and g.group(0) != t[0] else 'snmp6'}.{t[0]}"] = int(t[1])
        elif path == "/proc/net/softnet_stat":
            rows = [[int(x, 16) for x in ln.split()[:3]] for ln in lines if len(ln.split()) >= 3]
            for i, n in enumerate(("processed", "dropped", "time_squeeze")):
                if rows:
                    counters[f"softnet.{n}"] = sum(r[i] for r in rows)
        else:
            name = SYSCTL_NAMES.get(path) or "sysctl." + path[len("/proc/sys/"):].replace("/", ".")
            vals = body.split()
            if len(vals) == 1:
                counters[name] = int(vals[0])
            elif len(vals) == 3:
                for part, x in zip((".min", ".pressure", ".max"), vals):
                    counters[name + part] = int(x)
    return {"sources": sources, "counters": counters}


def inline_record_snapshots(rec, snapdir):
    """A record whose kernel.before/after refer to snapdir
    ({snapshot_sha256, changed}) with both written out inline."""
    doc = json.loads(rec)
    k = doc.get("kernel") or {}
    changed = False
    for w in ("before", "after"):
        ref = k.get(w) or {}
        if "snapshot_sha256" in ref:
            snap = parse_snapshot(open(os.path.join(snapdir, ref["snapshot_sha256"] + ".txt")).read())
            snap["counters"].update(ref.get("changed", {}))
            k[w] = snap
            changed = True
    return json.dumps(doc, separators=(",", ":")) if changed else rec


def build_set(bench, report, src, out, want_runs, tmp, per_run_snapshots=False):
    suite = json.load(open(os.path.join(src, "suite.json")))
    if suite.get("status") != "complete":
        sys.exit(f"large_set: {src}: suite status {suite.get('status')!r}, need complete")
    plan = suite["plan"]
    reps_src = int(suite["repetitions"])
    cfg_ids = [c["id"] for c in json.load(open(os.path.join(src, "summary.json")))["configurations"]]
    reps = max(reps_src, math.ceil(want_runs / len(cfg_ids)))
    if reps > MAX_REPETITIONS:
        sys.exit(f"large_set: {want_runs} runs need {reps} repetitions of {len(cfg_ids)} "
                 f"configurations, above the plan schema's {MAX_REPETITIONS}: use a source "
                 f"with at least {math.ceil(want_runs / MAX_REPETITIONS)} configurations")
    plan["repetitions"] = reps
    plan_path = os.path.join(tmp, "plan.json")
    json.dump(plan, open(plan_path, "w"), indent=2)
    plan_sha = plan_hash(bench, plan_path)

    sessions = suite.get("sessions") or [{}]
    session = dict(sessions[0])
    # The source timeline: per run, its command file's window and the
    # record's times as offsets from the command file's start.
    src_runs = {}
    total = 0.0
    for cid in cfg_ids:
        for r in range(1, reps_src + 1):
            stem = os.path.join(src, "runs", cid, f"rep-{r}")
            cmd = cmd_fields(open(stem + ".cmd.txt").read())
            t0, ms = parse_time(cmd["started_at"])
            t1, _ = parse_time(cmd["ended_at"])
            src_runs[(cid, r)] = (t0, t1, ms)
            total += (t1 - t0).total_seconds() + 0.05
    total *= reps / reps_src
    now = datetime.datetime.now(datetime.timezone.utc)
    start = now - datetime.timedelta(seconds=total + 120)
    start = start.replace(microsecond=(start.microsecond // 1000) * 1000)
    cursor = start
    os.makedirs(os.path.join(out, "runs"))
    if os.path.isdir(os.path.join(src, "kernel-snapshots")) and not per_run_snapshots:
        # the runner's snapshots by hash: the copied cmd.txt files refer to them
        shutil.copytree(os.path.join(src, "kernel-snapshots"),
                        os.path.join(out, "kernel-snapshots"))
    ms_any = False
    n = 0
    for cid in cfg_ids:
        os.makedirs(os.path.join(out, "runs", cid))
        for k in range(1, reps + 1):
            r = (k - 1) % reps_src + 1
            t0, t1, ms = src_runs[(cid, r)]
            ms_any |= ms
            shift = cursor - t0
            sstem = os.path.join(src, "runs", cid, f"rep-{r}")
            dstem = os.path.join(out, "runs", cid, f"rep-{k}")
            cmdtext = open(sstem + ".cmd.txt").read()
            old_out = re.search(r"--output (\S+)", cmdtext).group(1)
            new_out = f"{out}/runs/{cid}/rep-{k}.json.tmp"
            shift_line = lambda m: (m.group(1) + fmt_time(parse_time(m.group(2))[0] + shift, ms))
            cmdtext = re.sub(r"^((?:started_at|ended_at): )(\S+)$", shift_line, cmdtext, flags=re.M)
            cmdtext = cmdtext.replace(old_out, new_out)
            refs = dict(re.findall(r"^kernel_(before|after)_sha256: ([0-9a-f]{64})$",
                                   cmdtext, flags=re.M))
            if per_run_snapshots and refs:
                cmdtext = re.sub(r"^kernel_(before|after)_sha256: .*\n", "", cmdtext,
                                 flags=re.M)
                for when, h in refs.items():
                    shutil.copyfile(os.path.join(src, "kernel-snapshots", h + ".txt"),
                                    f"{dstem}.kernel-{when}.txt")
            open(dstem + ".cmd.txt", "w").write(cmdtext)
            rec = open(sstem + ".json").read()
            if per_run_snapshots:
                rec = inline_record_snapshots(rec, os.path.join(src, "kernel-snapshots"))
            rec = TIME_RE.sub(lambda m: m.group(1) + fmt_time(parse_time(m.group(2))[0] + shift, ms)
                              + m.group(3), rec)
            rec = rec.replace(json.dumps(old_out), json.dumps(new_out))
            open(dstem + ".json", "w").write(rec)
            for kind in ("stderr.txt", "kernel-before.txt", "kernel-after.txt"):
                # a set with kernel-snapshots/ has no per-run snapshot files
                if kind == "stderr.txt" or os.path.exists(f"{sstem}.{kind}"):
                    shutil.copyfile(f"{sstem}.{kind}", f"{dstem}.{kind}")
            cursor = t1 + shift + datetime.timedelta(milliseconds=50)
            n += 1
    end = cursor
    suite["plan"] = plan
    suite["plan_sha256"] = plan_sha
    suite["repetitions"] = reps
    suite["started_at"] = fmt_time(start, ms_any)
    suite["ended_at"] = fmt_time(end, ms_any)
    session.update({"started_at": fmt_time(start, ms_any), "ended_at": fmt_time(end, ms_any),
                    "status": "complete", "repetitions_run": n, "repetitions_kept": 0})
    if isinstance(session.get("stability"), dict):
        session["stability"]["samples"] = n
    suite["sessions"] = [session]
    json.dump(suite, open(os.path.join(out, "suite.json"), "w"), indent="\t")
    # summary.json by the runner itself: every repetition is complete
    rc, _, err = run([bench, "matrix", plan_path, "--output", out, "--resume", "--quiet"])
    if rc not in (0, 1) or not os.path.exists(os.path.join(out, "summary.json")):
        sys.exit(f"large_set: matrix --resume (summary) exit {rc}\n{err}")
    rc, sout, serr = run([report, "--self-check", "--results", out])
    if rc != 0:
        sys.stderr.write(sout[-4000:] + serr[-2000:])
        sys.exit(f"large_set: {out} fails its self-check (exit {rc}): not a valid set")
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(out) for f in fs)
    print(f"large_set: {out}: {n} runs ({len(cfg_ids)} configurations x {reps} repetitions), "
          f"{size / 1e6:.1f} MB, self-check clean")


if __name__ == "__main__":
    main()
