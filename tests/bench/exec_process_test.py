#!/usr/bin/env python3
"""exec_process_test.py BENCH SCHEMA VALIDATE REPORT - `netproof-bench exec`
as a process, on small shell programs: every metric source (JSON pointer,
regex, file), every failure kind (missing, non-numeric, non-finite,
multiple matches, timeout, signal, unexpected exit, truncated output), the
controlled environment, closed stdin, the process-group kill, interruption,
usage errors (exit 2, one line, nothing written), records valid against
the schema (python3-jsonschema and netproof-validate), and the self-check
re-deriving every metric from the kept output of an exec suite - and
catching a kept stdout that was changed.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

import jsonschema

BENCH, SCHEMA, VALIDATE, REPORT = sys.argv[1:5]
VALIDATOR = jsonschema.Draft202012Validator(json.load(open(SCHEMA)))
FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL:", what)


def run(d, opts, prog, name="r", timeout=30, env=None):
    out = os.path.join(d, name + ".json")
    argv = [BENCH, "exec"] + opts + ["--output", out, "--"] + prog
    p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                       env=env)
    rec = json.load(open(out)) if os.path.exists(out) else None
    if rec is not None:
        errs = list(VALIDATOR.iter_errors(rec))
        check(not errs, f"{name}: schema: {errs[:1]}")
        v = subprocess.run([VALIDATE, out], capture_output=True, text=True)
        check(v.returncode == 0, f"{name}: netproof-validate: {v.stdout}{v.stderr}")
    return p, rec


def metric(rec, name):
    return next(m for m in rec["exec"]["metrics"] if m["name"] == name)


def verdict(rec, name):
    return next(c["passed"] for c in rec["checks"] if c["name"] == name)


def sources(d):
    script = ('echo \'{"a": {"b": 2.5}, "s": "x", "n": null}\'; '
              'echo "lat=12.5 us" >&2; printf "t=7\\n" > out.txt')
    p, rec = run(d, ["--timeout", "5",
                     "--metric", "b=json:/a/b:ms",
                     "--metric", "t=file:out.txt:regex:t=(\\d+):",
                     "--check", "b<=3", "--check", "b>=kernel:Udp.InErrors",
                     "--cwd", d],
                 ["sh", "-c", script], "sources")
    check(p.returncode == 0, f"sources: exit {p.returncode}: {p.stderr}")
    check(rec["status"] == "passed", "sources: passed")
    check(metric(rec, "b")["value"] == 2.5, "json metric value")
    check(metric(rec, "t")["value"] == 7, "file metric value")
    f = rec["exec"]["files"][0]
    check(f["path"] == "out.txt" and os.path.exists(os.path.join(d, f["file"])),
          "file source kept beside the record")
    x = rec["exec"]
    check(x["stdout"]["file"] == "sources.stdout.txt", "stdout kept name")
    check(open(os.path.join(d, "sources.stderr.txt")).read() == "lat=12.5 us\n",
          "stderr kept verbatim")
    check(x["program"]["path"].startswith("/") and
          len(x["program"]["sha256"]) == 64, "program identity")
    check(x["outcome"] == {"kind": "exited", "exit_code": 0, "signal": None,
                           "expected_exit": 0}, "outcome")
    check(x["rusage"]["max_rss_bytes"] > 0, "rusage of the tree")
    check(rec["kernel"]["delta"] is not None, "kernel delta")
    check(rec["config"]["protocol"] == "exec", "config.protocol")


def failures(d):
    out = 'echo \'{"s": "12", "n": null}\'; echo nan-line=nan; echo x=1; echo x=2'
    p, rec = run(d, ["--timeout", "5",
                     "--metric", "missing=json:/absent",
                     "--metric", "string=json:/s",
                     "--metric", "null=json:/n",
                     "--metric", "multi=regex:x=(\\d):",
                     "--metric", "nan=regex:nan-line=(\\w+):",
                     "--metric", "nofile=file:nope.json:json:/a"],
                 ["sh", "-c", out], "failures")
    check(p.returncode == 1, f"failures: exit 1, not {p.returncode}")
    want = {"missing": "not-json", "string": "not-json", "null": "not-json",
            "multi": "multiple", "nan": "non-finite", "nofile": "unreadable"}
    # stdout is not one JSON document here (text follows it): not-json
    for k, w in want.items():
        m = metric(rec, k)
        check(m["failure"] == w and m["value"] is None,
              f"failure kind {k}: {m['failure']} (want {w})")
        check(not verdict(rec, "metric_" + k), f"metric_{k} check fails")
    check(any("multiple" in r for r in rec["reasons"]), "reasons name it")
    p, rec = run(d, ["--timeout", "5", "--metric", "missing=json:/absent",
                     "--metric", "string=json:/s", "--metric", "null=json:/n"],
                 ["sh", "-c", 'echo \'{"s": "12", "n": null}\''], "kinds")
    for k, w in {"missing": "missing", "string": "non-numeric",
                 "null": "non-numeric"}.items():
        check(metric(rec, k)["failure"] == w, f"json failure {k}")
    # a stale file (older than the run) is not the program's output
    stale = os.path.join(d, "stale.json")
    open(stale, "w").write('{"a": 1}')
    os.utime(stale, (time.time() - 60, time.time() - 60))
    p, rec = run(d, ["--timeout", "5", "--cwd", d,
                     "--metric", "a=file:stale.json:json:/a"], ["true"], "stale")
    check(metric(rec, "a")["failure"] == "unreadable" and
          "not written during the run" in metric(rec, "a")["reason"],
          "stale file refused")


def ends(d):
    t0 = time.monotonic()
    p, rec = run(d, ["--timeout", "0.5"],
                 ["sh", "-c", "echo partial; sleep 30 & sleep 30"], "timeout")
    wall = time.monotonic() - t0
    check(p.returncode == 1 and rec["status"] == "failed", "timeout fails")
    check(rec["exec"]["outcome"]["kind"] == "timeout", "outcome timeout")
    check(rec["exec"]["outcome"]["signal"] == "SIGKILL", "killed with SIGKILL")
    check(not verdict(rec, "completed"), "completed check fails")
    check(open(os.path.join(d, "timeout.stdout.txt")).read() == "partial\n",
          "partial output kept")
    check(wall < 5, f"timeout took {wall:.1f} s (group kill)")
    check(subprocess.run(["pgrep", "-f", "sleep 30"]).returncode != 0,
          "no sleep left running (the whole group was killed)")
    p, rec = run(d, ["--timeout", "5"], ["sh", "-c", "kill -SEGV $$"], "signal")
    check(p.returncode == 1 and rec["exec"]["outcome"]["kind"] == "signaled"
          and rec["exec"]["outcome"]["signal"] == "SIGSEGV", "signal recorded")
    check(not verdict(rec, "exit_status"), "signal fails exit_status")
    p, rec = run(d, ["--timeout", "5"], ["sh", "-c", "exit 3"], "exit3")
    check(p.returncode == 1 and rec["exec"]["outcome"]["exit_code"] == 3 and
          not verdict(rec, "exit_status"), "unexpected exit fails")
    p, rec = run(d, ["--timeout", "5", "--expect-exit", "3"],
                 ["sh", "-c", "exit 3"], "exit3ok")
    check(p.returncode == 0 and rec["status"] == "passed", "--expect-exit 3")
    p, rec = run(d, ["--timeout", "5", "--output-limit", "1024",
                     "--metric", "a=json:/a"],
                 ["sh", "-c", "echo '{\"a\": 1}'; head -c 5000 /dev/zero"],
                 "trunc")
    s = rec["exec"]["stdout"]
    check(p.returncode == 1 and s["truncated"] and s["bytes"] == 1024 and
          s["total_bytes"] == 5009, f"truncated output recorded: {s}")
    check(os.path.getsize(os.path.join(d, "trunc.stdout.txt")) == 1024,
          "kept file holds the bound")
    check(metric(rec, "a")["failure"] == "truncated", "metric from cut output")
    check(not verdict(rec, "output_complete"), "output_complete fails")


def environment(d):
    env = dict(os.environ, NP_SECRET="s3", NP_KEEP="k")
    p, rec = run(d, ["--timeout", "5", "--env", "A=1", "--keep-env", "NP_KEEP",
                     "--keep-env", "NP_ABSENT"],
                 ["sh", "-c", "env | sort; cat; echo stdin-eof"], "env", env=env)
    text = open(os.path.join(d, "env.stdout.txt")).read()
    names = sorted(l.split("=")[0] for l in text.splitlines() if "=" in l)
    check("NP_SECRET" not in text, "our environment does not leak")
    check({"A", "NP_KEEP", "PATH", "HOME", "LC_ALL"} <= set(names),
          f"minimal set + --env + --keep-env: {names}")
    check(text.endswith("stdin-eof\n"), "stdin is closed (cat saw EOF)")
    e = rec["exec"]["environment"]
    check(e["A"] == "1" and e["NP_KEEP"] == "k" and e["LC_ALL"] == "C",
          "record lists the environment")
    check(rec["exec"]["environment_unset"] == ["NP_ABSENT"], "unset listed")


def usage(d):
    cases = [
        ([], ["true"], "--timeout: required"),
        (["--timeout", "5"], [], "no program"),
        (["--timeout", "5"], ["no-such-program-x"], "not found"),
        (["--timeout", "5", "--metric", "x=regex:(a)(b)"], ["true"],
         "capture groups"),
        (["--timeout", "5", "--check", "y<=1"], ["true"], "no --metric named y"),
        (["--timeout", "0"], ["true"], "--timeout"),
        (["--timeout", "5", "--env", "=x"], ["true"], "--env"),
        (["--timeout", "5", "--cwd", "/nonexistent"], ["true"], "--cwd"),
    ]
    for i, (opts, prog, want) in enumerate(cases):
        out = os.path.join(d, f"u{i}.json")
        argv = [BENCH, "exec"] + opts + ["--output", out]
        argv += ["--"] + prog if prog else []
        p = subprocess.run(argv, capture_output=True, text=True, timeout=10)
        lines = p.stderr.strip().splitlines()
        check(p.returncode == 2 and len(lines) == 1 and want in p.stderr,
              f"usage {i}: exit {p.returncode}, {p.stderr!r}")
        check(not any(f.startswith(f"u{i}.") for f in os.listdir(d)),
              f"usage {i}: nothing written")
    p = subprocess.run([BENCH, "exec", "--timeout", "5", "--", "true"],
                       capture_output=True, text=True)
    check(p.returncode == 2 and "--keep: required" in p.stderr,
          "--output - needs --keep")
    h = subprocess.run([BENCH, "exec", "--help"], capture_output=True,
                       text=True)
    check(h.returncode == 0 and "-- PROGRAM [ARGS...]" in h.stdout, "--help")


def interrupted(d):
    out = os.path.join(d, "int.json")
    p = subprocess.Popen([BENCH, "exec", "--timeout", "20", "--output", out,
                          "--", "sleep", "20"], stderr=subprocess.PIPE)
    time.sleep(0.5)
    p.send_signal(signal.SIGTERM)
    rc = p.wait(timeout=10)
    rec = json.load(open(out))
    check(rc == 143 and rec["status"] == "interrupted" and
          rec["exec"]["outcome"]["kind"] == "interrupted", "SIGTERM: 143")


def suite(d):
    plan = {"schema": "netproof/plan/1", "suite": "exec-t", "protocol": "exec",
            "repetitions": 2, "base": {"timeout": 5},
            "dimensions": {"n": [1, 22], "word": ["a b", "c"]},
            "exec": {"command": ["printf", "{{\"n\": {n}}}\\nword=%s\\n",
                                 "{word}"],
                     "metrics": [{"name": "n", "spec": "json:/n",
                                  "unit": "B", "better": "lower"}],
                     "checks": ["n<=100"]}}
    # stdout holds more than JSON: make the metric a regex on the JSON line
    plan["exec"]["metrics"] = [{"name": "n", "spec": "regex:\"n\": (\\d+)",
                                "unit": "B", "better": "lower"}]
    pf = os.path.join(d, "plan.json")
    json.dump(plan, open(pf, "w"))
    out = os.path.join(d, "suite")
    p = subprocess.run([BENCH, "matrix", pf, "--output", out, "--quiet"],
                       capture_output=True, text=True, timeout=60)
    check(p.returncode == 0, f"exec suite: exit {p.returncode}: {p.stderr}")
    rec = json.load(open(os.path.join(out, "runs/exec-n22-worda_b/rep-1.json")))
    check(rec["exec"]["argv"][2] == "a b", "a placeholder value stays one "
          f"argument: {rec['exec']['argv']}")
    kept = os.path.join(out, "runs/exec-n22-worda_b/rep-1.program.stdout.txt")
    check(open(kept).read() == '{"n": 22}\nword=a b\n', "kept stdout")
    summ = json.load(open(os.path.join(out, "summary.json")))
    st = summ["configurations"][2]["stats"]["exec.n"]
    check(st["median"] == 22 and st["n"] == 2, f"summary exec.n {st}")
    c = subprocess.run([REPORT, "--self-check", "--results", out],
                       capture_output=True, text=True)
    check(c.returncode == 0, f"self-check clean: {c.stdout}{c.stderr}")
    r = subprocess.run([REPORT, "--results", out, "--output",
                        os.path.join(d, "rep")], capture_output=True, text=True)
    check(r.returncode == 0 and os.path.exists(
        os.path.join(d, "rep/assets/suite-exec-n.svg")), f"report: {r.stderr}")
    # the dimension n and the metric n: one member each in a table row
    dups = []
    json.load(open(os.path.join(d, "rep/report.json")),
              object_pairs_hook=lambda kv: dups.extend(
                  k for i, (k, _) in enumerate(kv) if k in dict(kv[:i])) or
              dict(kv))
    check(dups == [], f"report.json has no member twice: {dups}")
    open(kept, "w").write('{"n": 23}\nword=a b\n')
    c = subprocess.run([REPORT, "--self-check", "--results", out],
                       capture_output=True, text=True)
    check(c.returncode == 1 and "SHA-256" in c.stderr + c.stdout and
          "re-derived value 23" in c.stderr + c.stdout,
          f"self-check catches a changed stdout: {c.stdout}{c.stderr}")
    # quoting: a shell template refuses a value that is not shell-safe
    plan["exec"]["command"] = ["sh", "-c", "echo {n} {word}"]
    json.dump(plan, open(pf, "w"))
    p = subprocess.run([BENCH, "matrix", pf, "--output", out + "2",
                        "--dry-run"], capture_output=True, text=True)
    check(p.returncode == 2 and "inside a sh -c script" in p.stderr,
          f"sh -c quoting rule: {p.stderr}")
    plan["exec"]["command"] = ["echo", "{nope}"]
    json.dump(plan, open(pf, "w"))
    p = subprocess.run([BENCH, "matrix", pf, "--output", out + "3",
                        "--dry-run"], capture_output=True, text=True)
    check(p.returncode == 2 and "placeholder" in p.stderr,
          f"unknown key refused: {p.stderr}")


def main():
    with tempfile.TemporaryDirectory() as d:
        for f in (sources, failures, ends, environment, usage, interrupted,
                  suite):
            sub = os.path.join(d, f.__name__)
            os.mkdir(sub)
            f(sub)
    if FAILS:
        print(f"{len(FAILS)} failed")
        return 1
    print("exec as a process: all cases passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
