#!/usr/bin/env python3
"""fleet_test.py - the fleet recipes of docs/guides/fleets.md, run for real
on this machine, and netproof-report merge's refusals.

  - parallel-shards.sh (GNU parallel, --sshlogin ":") runs the 4 slices of
    tests/fleet/fleet-plan.json and merges them: exit 0, the merged set
    self-checks clean, its suite.json validates, every configuration once,
    4 sessions each marked with its shard, status complete;
  - slurm-shards.sbatch runs as each array task would (SLURM_ARRAY_TASK_ID
    0..3, its --array range and N agree), k8s-shards.yaml parses and its
    container's command runs as each pod would (JOB_COMPLETION_INDEX 0..3;
    Indexed, completions = parallelism = N); both merge clean;
  - an until_stable plan's slices (each stops where its rule says) merge
    clean, and one short of its rule's repetitions is refused;
  - matrix --shard refuses K >= N, more slices than configurations,
    --only with it, and resuming a slice as another slice or the whole plan;
  - refused, one line naming the folder and the reason, exit 2, nothing
    written: a missing slice, a slice twice, a slice of another plan, a
    folder that is not a shard, a shard short of a repetition, a shard a
    runner still holds, an output folder that is not empty, a suite.json
    whose shard index or count is no integer within --shard's bounds
    (0 <= K < N <= 1000), more folders than a plan has shards (300 are
    checked like any other number).

usage: fleet_test.py BENCH REPORT VALIDATE SRCDIR
"""
import json
import os
import re
import shutil
import subprocess
import sys

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "lib"))
import nptest  # noqa: E402

BENCH, REPORT, VALIDATE, SRC = map(os.path.abspath, sys.argv[1:5])
GUIDE = os.path.join(SRC, "docs", "guides", "fleets")
PLAN = os.path.join(SRC, "tests", "fleet", "fleet-plan.json")
N = 4
T = nptest.Checks()
check = T.check


def env(**kw):
    e = dict(os.environ, NETPROOF_BENCH=BENCH, NETPROOF_REPORT=REPORT,
             RUN_SHARD=os.path.join(GUIDE, "run-shard.sh"))
    e.update({k: str(v) for k, v in kw.items()})
    return e


def run(cmd, timeout=120, **kw):
    return subprocess.run(cmd, capture_output=True, text=True,
                          timeout=timeout, **kw)


def merge(dirs, out):
    return run([REPORT, "merge", *dirs, "--output", out])


def merged_ok(out, what):
    r = run([REPORT, "--self-check", "--results", out])
    check(r.returncode == 0, f"{what}: self-check {r.returncode}: {r.stderr}")
    r = run([VALIDATE, os.path.join(out, "suite.json")])
    check(r.returncode == 0, f"{what}: suite.json: {r.stdout}{r.stderr}")
    with open(os.path.join(out, "suite.json")) as f:
        s = json.load(f)
    check(s["status"] == "complete", f"{what}: status {s['status']}")
    check(s["merged"]["shards"] == N, f"{what}: merged.shards")
    check(sorted(x["shard"] for x in s["sessions"]) == list(range(N)),
          f"{what}: sessions' shards {[x.get('shard') for x in s['sessions']]}")
    check("shard" not in s and "spans_hosts" not in s,
          f"{what}: shard/spans_hosts in a one-machine merged set")
    ids = [i for f in s["merged"]["from"] for i in f["configurations"]]
    check(len(ids) == 4 and len(set(ids)) == 4, f"{what}: slices {ids}")
    check(sorted(os.listdir(os.path.join(out, "runs"))) == sorted(ids),
          f"{what}: runs/ {os.listdir(os.path.join(out, 'runs'))}")
    with open(os.path.join(out, "summary.json")) as f:
        sm = json.load(f)
    check(sorted(c["id"] for c in sm["configurations"]) == sorted(ids),
          f"{what}: summary.json configurations")


def refused(dirs, out, pattern, what):
    r = merge(dirs, out)
    lines = r.stderr.strip().splitlines()
    check(r.returncode == 2, f"{what}: exit {r.returncode} ({r.stderr})")
    check(len(lines) == 1 and re.search(pattern, lines[0]) is not None,
          f"{what}: stderr {r.stderr!r} !~ {pattern}")
    print(f"refused ({what}): {r.stderr.strip()}")
    check(not os.path.exists(out) or not os.listdir(out),
          f"{what}: something was written into {out}")


def main():
    with nptest.tmpdir(prefix="np-fleet-", checks=T) as tmp:
        os.chdir(tmp)
        # GNU parallel, this machine as the one login
        r = run(["sh", os.path.join(GUIDE, "parallel-shards.sh"), PLAN,
                 str(N), "par"], timeout=240, env=env())
        check(r.returncode == 0, f"parallel-shards.sh: exit {r.returncode}: "
              f"{r.stdout}{r.stderr}")
        check(re.search(r"merged 4 shards \(4 runs\) into par/merged; "
                        r"self-check clean", r.stdout) is not None,
              f"parallel-shards.sh: {r.stdout!r}")
        if r.returncode == 0:
            merged_ok("par/merged", "parallel")

        # the Slurm array, task by task
        sb = open(os.path.join(GUIDE, "slurm-shards.sbatch")).read()
        m = re.search(r"^#SBATCH --array=0-(\d+)$", sb, re.M)
        check(m is not None and int(m.group(1)) == N - 1, "sbatch --array")
        check(re.search(rf"^N={N}$", sb, re.M) is not None, "sbatch N")
        for k in range(N):
            r = run(["sh", os.path.join(GUIDE, "slurm-shards.sbatch")],
                    env=env(SLURM_ARRAY_TASK_ID=k, PLAN=PLAN, OUT="slurm"))
            check(r.returncode == 0, f"slurm task {k}: {r.stderr}")
        r = merge([f"slurm/shard-{k}" for k in range(N)], "slurm/merged")
        check(r.returncode == 0, f"slurm merge: {r.stderr}")
        if r.returncode == 0:
            merged_ok("slurm/merged", "slurm")
        # --output planted as a symlink to an empty folder elsewhere: the
        # merged set is written through one folder descriptor, never
        # through the link (issue 27: readers write only where told)
        os.mkdir("elsewhere")
        os.symlink("elsewhere", "slurm/linked")
        r = merge([f"slurm/shard-{k}" for k in range(N)], "slurm/linked")
        check(r.returncode == 2 and os.listdir("elsewhere") == [],
              f"merge --output through a symlink: exit {r.returncode} "
              f"{r.stderr!r}, elsewhere {os.listdir('elsewhere')}")

        # the Kubernetes Indexed Job, pod by pod
        with open(os.path.join(GUIDE, "k8s-shards.yaml")) as f:
            job = yaml.safe_load(f)
        spec = job["spec"]
        check(job["kind"] == "Job" and spec["completionMode"] == "Indexed",
              "k8s: an Indexed Job")
        check(spec["completions"] == N and spec["parallelism"] == N,
              "k8s: completions and parallelism")
        c = spec["template"]["spec"]["containers"][0]
        check(c["command"] == ["sh", "-c"] and len(c["args"]) == 1,
              "k8s: sh -c and one command")
        check(f'"$JOB_COMPLETION_INDEX" {N} ' in c["args"][0], "k8s: N")
        pod_env = {e["name"]: e["value"] for e in c["env"]}
        check("PLAN" in pod_env, "k8s: PLAN in env")
        for k in range(N):
            r = run(["sh", "-c", c["args"][0]],
                    env=env(JOB_COMPLETION_INDEX=k, PLAN=PLAN, OUT="k8s"))
            check(r.returncode == 0, f"k8s pod {k}: {r.stderr}")
        r = merge([f"k8s/shard-{k}" for k in range(N)], "k8s/merged")
        check(r.returncode == 0, f"k8s merge: {r.stderr}")

        # refusals
        par = [f"par/shard-{k}" for k in range(N)]
        refused(par[:3], "x1", r"^netproof-report merge: shard 3/4 missing",
                "missing slice")
        refused(par + ["slurm/shard-2"], "x2",
                r"^netproof-report merge: (par|slurm)/shard-2: shard 2/4 "
                r"again \(also (par|slurm)/shard-2\): the slices overlap",
                "a slice twice")
        other = json.load(open(PLAN))
        other["description"] += " (another plan)"
        with open("other-plan.json", "w") as f:
            json.dump(other, f)
        r = run(["sh", os.path.join(GUIDE, "run-shard.sh"), "other-plan.json",
                 "3", str(N), "other"], env=env())
        check(r.returncode == 0, f"other plan's shard: {r.stderr}")
        refused(par[:3] + ["other/shard-3"], "x3",
                r"^netproof-report merge: other/shard-3: plan_sha256 .* "
                r"\(shards of different plans\)", "another plan")
        shutil.copytree("par/shard-0", "noshard")
        with open("noshard/suite.json") as f:
            s = json.load(f)
        del s["shard"]
        with open("noshard/suite.json", "w") as f:
            json.dump(s, f)
        refused(["noshard"] + par[1:], "x4",
                r"^netproof-report merge: noshard/suite.json: /shard: "
                r"missing", "not a shard")
        shutil.copytree("par/shard-1", "short")
        run_dir = os.path.join("short", "runs")
        cid = os.listdir(run_dir)[0]
        os.remove(os.path.join(run_dir, cid, "rep-1.json"))
        refused([par[0], "short", par[2], par[3]], "x5",
                r"^netproof-report merge: short: 0 of its slice's 1 repetitions",
                "short of a repetition")
        shutil.copytree("par/shard-2", "locked")
        open("locked/.netproof-matrix.lock", "w").close()
        refused([par[0], par[1], "locked", par[3]], "x6",
                r"^netproof-report merge: locked: \.netproof-matrix\.lock: "
                r"a runner holds it", "locked")
        os.mkdir("x7")
        open("x7/keep", "w").close()
        r = merge(par, "x7")
        check(r.returncode == 2 and re.search(
            r"--output x7: not an empty folder", r.stderr) is not None,
            f"non-empty output: {r.returncode} {r.stderr}")
        check(os.listdir("x7") == ["keep"], "non-empty output: written into")
        r = merge(par, "par/merged")
        check(r.returncode == 2, "merge into an existing set")
        # a shard's index and count as its suite.json says them: integers
        # within --shard's bounds, or refused before anything is computed
        for name, index, count, pat in [
                ("zero", 0, 0, r"/shard/count: 0, not an integer 1\.\.1000"),
                ("negative", -1, 4, r"/shard/index: -1, not an integer "
                 r"0\.\.3"),
                ("half", 0.5, 4, r"/shard/index: 0\.5, not an integer"),
                ("huge", 0, 1e300, r"/shard/count: 1.*e\+300, not an "
                 r"integer"),
                ("text", 0, "4", r"/shard/count: not a number")]:
            shutil.copytree("par/shard-0", name)
            with open(f"{name}/suite.json") as f:
                s = json.load(f)
            s["shard"]["index"], s["shard"]["count"] = index, count
            with open(f"{name}/suite.json", "w") as f:
                json.dump(s, f)
            refused([name], f"x-{name}",
                    rf"^netproof-report merge: {name}/suite\.json: {pat}",
                    f"shard {index}/{count}")
        # as many folders as --shard has slices, no fixed cap below it
        refused(["par/shard-0"] * 300, "x10",
                r"^netproof-report merge: par/shard-0: shard 0/4 again",
                "300 folders")
        refused(["par/shard-0"] * 1001, "x11",
                r"^netproof-report merge: par/shard-0: more than 1000 "
                r"folders \(a plan has at most 1000 shards\)",
                "1001 folders")

        # an until_stable plan: each slice stops where its rule says
        st = json.load(open(PLAN))
        st["suite"] = "fleet-stable"
        del st["repetitions"]
        st["until_stable"] = {"ci_percent": 50, "min_repetitions": 5,
                              "max_repetitions": 6}
        st["configurations"] = st["configurations"][:2]
        st["base"]["seconds"] = 0.1
        with open("stable-plan.json", "w") as f:
            json.dump(st, f)
        for k in range(2):
            r = run(["sh", os.path.join(GUIDE, "run-shard.sh"),
                     "stable-plan.json", str(k), "2", "stable"], env=env())
            check(r.returncode == 0, f"until_stable shard {k}: {r.stderr}")
        r = merge(["stable/shard-0", "stable/shard-1"], "stable/merged")
        check(r.returncode == 0, f"until_stable merge: {r.stderr}")
        shutil.copytree("stable/shard-1", "stable-short")
        rd = os.path.join("stable-short", "runs")
        cid = os.listdir(rd)[0]
        for n in (4, 5, 6):
            for suf in (".json", ".cmd.txt", ".stderr.txt",
                        ".kernel-before.txt", ".kernel-after.txt"):
                path = os.path.join(rd, cid, f"rep-{n}{suf}")
                if os.path.exists(path):
                    os.remove(path)
        # and the kernel snapshots only those repetitions referred to
        kept = set()
        for top, _, files in os.walk(rd):
            for f in files:
                if f.endswith(".cmd.txt"):
                    for ln in open(os.path.join(top, f)):
                        if ln.startswith("kernel_") and "_sha256: " in ln:
                            kept.add(ln.split(": ")[1].strip() + ".txt")
        sd = os.path.join("stable-short", "kernel-snapshots")
        for f in os.listdir(sd) if os.path.isdir(sd) else []:
            if f not in kept:
                os.remove(os.path.join(sd, f))
        r = merge(["stable/shard-0", "stable-short"], "x8")
        check(r.returncode == 2 and not os.path.exists("x8"),
              f"until_stable short slice: {r.returncode} {r.stderr}")
        print(f"refused (until_stable short slice): {r.stderr.strip()}")

        # matrix --shard refusals (nothing runs)
        for args, pat in [
                (["--shard", "4/4", "--dry-run"],
                 r"--shard '4/4': K out of range 0\.\.3"),
                (["--shard", "0/5", "--dry-run"],
                 r"5 slices of a plan with 4 configurations"),
                (["--shard", "0/2", "--only", "*", "--dry-run"],
                 r"--shard and --only: choose one"),
                (["--shard", "1/4", "--resume", "--output", "par/shard-0"],
                 r"par/shard-0/suite.json: holds shard 0/4 of this suite, not shard 1/4"),
                (["--resume", "--output", "par/shard-1"],
                 r"holds shard 1/4 of this suite, not the whole plan")]:
            r = run([BENCH, "matrix", PLAN, *args])
            lines = r.stderr.strip().splitlines()
            check(r.returncode == 2 and len(lines) == 1 and
                  re.search(pat, lines[0]) is not None,
                  f"matrix {args}: {r.returncode} {r.stderr!r}")
        os.chdir("/")
    print(f"{len(T.fails)} failure(s)")
    return 1 if T.fails else 0


if __name__ == "__main__":
    sys.exit(main())
