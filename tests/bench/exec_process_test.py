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
import html
import json
import os
import re
import signal
import subprocess
import sys
import time

import jsonschema

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "lib"))
import nptest  # noqa: E402

BENCH, SCHEMA, VALIDATE, REPORT = sys.argv[1:5]
VALIDATOR = jsonschema.Draft202012Validator(json.load(open(SCHEMA)))
T = nptest.Checks()
check = T.check


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
                 ["sh", "-c", "echo partial; sleep 30.0417 & sleep 30.0417"],
                 "timeout")
    wall = time.monotonic() - t0
    check(p.returncode == 1 and rec["status"] == "failed", "timeout fails")
    check(rec["exec"]["outcome"]["kind"] == "timeout", "outcome timeout")
    check(rec["exec"]["outcome"]["signal"] == "SIGKILL", "killed with SIGKILL")
    check(not verdict(rec, "completed"), "completed check fails")
    check(open(os.path.join(d, "timeout.stdout.txt")).read() == "partial\n",
          "partial output kept")
    check(wall < 5, f"timeout took {wall:.1f} s (group kill)")
    # an odd duration, so another test's sleep on this machine is not ours
    check(subprocess.run(["pgrep", "-f", "sleep 30.0417"]).returncode != 0,
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
    env = dict(os.environ, NP_SECRET="s3", NP_KEEP="k-secret-value")
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
    check(e["A"] == "1" and e["LC_ALL"] == "C", "record lists the environment")
    check(text.count("NP_KEEP=k-secret-value\n") == 1,
          "the program got the --keep-env value")
    raw = open(os.path.join(d, "env.json")).read()
    check("NP_KEEP" not in e and "k-secret-value" not in raw,
          "a --keep-env value is not in the record without "
          "--record-env-values")
    check(rec["exec"].get("environment_kept") == ["NP_KEEP"] and
          rec["exec"].get("environment_kept_values") is False,
          f"--keep-env names recorded: {rec['exec'].get('environment_kept')}")
    check(rec["exec"]["environment_unset"] == ["NP_ABSENT"], "unset listed")
    p, rec = run(d, ["--timeout", "5", "--keep-env", "NP_KEEP",
                     "--record-env-values"], ["true"], "envvals", env=env)
    check(p.returncode == 0, f"--record-env-values: exit {p.returncode}")
    x = rec["exec"] if rec else {"environment": {}}
    check(x["environment"].get("NP_KEEP") == "k-secret-value" and
          x.get("environment_kept_values") is True,
          "--record-env-values records the value")


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
                       capture_output=True, text=True,
                       env=dict(os.environ, TMPDIR=d))
    check(p.returncode == 0 and "kept in %s/netproof-exec-" % d in p.stderr,
          "--output - without --keep: kept output in a named temporary "
          "folder (exec_plain_test.py checks it): %r" % p.stderr)
    h = subprocess.run([BENCH, "exec", "--help"], capture_output=True,
                       text=True)
    check(h.returncode == 0 and "-- PROGRAM [ARGS...]" in h.stdout, "--help")


def gone(pid):
    """True when pid no longer runs (no /proc entry, or a zombie)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except (FileNotFoundError, ProcessLookupError):
        return True


def leftover_pids(d, name):
    """The pids the program printed (one a line) on its kept stdout."""
    text = open(os.path.join(d, name + ".stdout.txt")).read()
    return [int(l) for l in text.split() if l.isdigit()]


def leftovers(d):
    """Processes the program leaves running are found, ended and listed, on
    a normal exit, a timeout and a SIGTERM to netproof-bench; they fail
    no_leftover_processes unless --allow-leftovers."""
    cases = [
        # (name, options, script, outcome kind, exit code)
        ("setsid", ["--timeout", "5"],
         "setsid sleep 305 & echo $!; sleep .2", "exited", 1),
        ("daemon", ["--timeout", "5"],
         "sh -c 'sleep 306 & echo $!'; sleep .2", "exited", 1),
        ("allowed", ["--timeout", "5", "--allow-leftovers"],
         "sh -c 'setsid sleep 307 & echo $!'; sleep .2", "exited", 0),
        ("timeout", ["--timeout", "0.5"],
         "setsid sleep 308 & echo $!; sleep 30", "timeout", 1),
        ("stubborn", ["--timeout", "5"],
         "setsid sh -c 'trap \"\" TERM; echo $$; exec sleep 309' & sleep .3",
         "exited", 1),
    ]
    for name, opts, script, kind, code in cases:
        t0 = time.monotonic()
        p, rec = run(d, opts, ["sh", "-c", script], name)
        wall = time.monotonic() - t0
        x = rec["exec"]
        pids = leftover_pids(d, name)
        lo = x.get("leftovers", {})
        listed = {q["pid"]: q for q in lo.get("processes", [])}
        check(p.returncode == code and x["outcome"]["kind"] == kind,
              f"{name}: exit {p.returncode}, {x['outcome']['kind']}")
        check(pids and all(q in listed for q in pids),
              f"{name}: leftovers {pids} listed: {lo}")
        check(all(gone(q) for q in pids),
              f"{name}: leftovers {pids} no longer run")
        check(any(c["name"] == "no_leftover_processes" for c in rec["checks"])
              and verdict(rec, "no_leftover_processes") ==
              ("allow" in opts[-1]),
              f"{name}: no_leftover_processes verdict")
        check(wall < 6, f"{name}: took {wall:.1f} s")
        if name == "stubborn" and pids:
            check(listed.get(pids[0], {}).get("fate") == "killed",
                  f"stubborn: SIGTERM ignored, SIGKILL: {listed}")
        for q in pids:  # never leave one behind, even when the test fails
            try:
                os.kill(q, signal.SIGKILL)
            except ProcessLookupError:
                pass
    # an exec plan says the same in its exec object (not in base: a flag)
    plan = {"schema": "netproof/plan/1", "suite": "exec-left",
            "protocol": "exec", "repetitions": 1, "base": {"timeout": 5},
            "dimensions": {"n": [1]},
            "exec": {"command": ["sh", "-c", "setsid sleep 311 & echo $!; "
                                 "echo n={n}"],
                     "metrics": [{"name": "n", "spec": "regex:n=(\\d+)",
                                  "unit": "B", "better": "lower"}],
                     "keep_env": ["HOME"], "record_env_values": True,
                     "allow_leftovers": True}}
    pf = os.path.join(d, "plan.json")
    json.dump(plan, open(pf, "w"))
    out = os.path.join(d, "suite")
    p = subprocess.run([BENCH, "matrix", pf, "--output", out, "--quiet"],
                       capture_output=True, text=True, timeout=60)
    rec = json.load(open(os.path.join(out, "runs/exec-n1/rep-1.json")))
    x = rec["exec"]
    check(p.returncode == 0 and rec["status"] == "passed" and
          x["leftovers"]["allowed"] and x["leftovers"]["count"] == 1 and
          x["environment_kept_values"] and "HOME" in x["environment"],
          f"plan allow_leftovers / record_env_values: {p.stderr} "
          f"{x.get('leftovers')}")
    c = subprocess.run([REPORT, "--self-check", "--results", out],
                       capture_output=True, text=True)
    check(c.returncode == 0, f"plan with leftovers: self-check: {c.stdout}")
    plan["base"]["allow-leftovers"] = "yes"
    json.dump(plan, open(pf, "w"))
    p = subprocess.run([BENCH, "matrix", pf, "--output", out + "2",
                        "--dry-run"], capture_output=True, text=True)
    check(p.returncode == 2 and 'give it in \"exec\"' in p.stderr,
          f"allow-leftovers in base refused: {p.stderr}")
    # SIGTERM / SIGINT to netproof-bench: the program and its escapee end
    for sig, code in ((signal.SIGTERM, 143), (signal.SIGINT, 130)):
        name = f"sig{int(sig)}"
        out = os.path.join(d, name + ".json")
        p = subprocess.Popen([BENCH, "exec", "--timeout", "20", "--keep",
                              os.path.join(d, name), "--output", out, "--",
                              "sh", "-c",
                              "setsid sleep 310 & echo $!; sleep 30"],
                             stderr=subprocess.PIPE)
        time.sleep(0.5)
        p.send_signal(sig)
        rc = p.wait(timeout=10)
        rec = json.load(open(out))
        pids = leftover_pids(d, name)
        listed = [q["pid"] for q in
                  rec["exec"].get("leftovers", {}).get("processes", [])]
        check(rc == code and pids and pids == listed and
              all(gone(q) for q in pids),
              f"{sig.name}: exit {rc}, leftovers {pids} ended and listed "
              f"{listed}")
        for q in pids:
            try:
                os.kill(q, signal.SIGKILL)
            except ProcessLookupError:
                pass


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
            "dimension_units": {"n": "B"},
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
    # dimension units: "n / B" heads the column; a dimension without one
    # is named in a series label ("word c"), one with one is not ("22 B")
    md = open(os.path.join(d, "rep/index.md")).read()
    # plplot writes each string as one <text> of &#xNN; entities
    svg = "\n".join(html.unescape(re.sub(r"<[^>]*>", "", t)) for t in re.findall(
        r"<text[^>]*>.*?</text>", open(os.path.join(
            d, "rep/assets/suite-exec-n.svg")).read(), re.S))
    check("| n / B | word |" in md, "dimension unit in the table header")
    check("word c" in svg and "n / B" in svg,
          "series named, axis with its unit")
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
    # a leftover the record lists but its verdict ignores, and an
    # --allow-leftovers the command never had
    rf = os.path.join(out, "runs/exec-n1-wordc/rep-1.json")
    r1 = json.load(open(rf))
    lo = r1["exec"].get("leftovers", {})
    check(lo.get("count") == 0 and verdict(r1, "no_leftover_processes"),
          f"a suite run leaves nothing: {lo}")
    lo.setdefault("processes", []).append(
        {"pid": 4242, "ppid": 1, "pgid": 4242, "sid": 4242, "comm": "sleep",
         "fate": "terminated"})
    lo["count"] = 1
    json.dump(r1, open(rf, "w"))
    c = subprocess.run([REPORT, "--self-check", "--results", out],
                       capture_output=True, text=True)
    check(c.returncode == 1 and "no_leftover_processes says passed" in c.stdout,
          f"self-check catches a leftover that passed: {c.stdout}{c.stderr}")
    lo["allowed"] = True
    json.dump(r1, open(rf, "w"))
    c = subprocess.run([REPORT, "--self-check", "--results", out],
                       capture_output=True, text=True)
    check(c.returncode == 1 and "lacks --allow-leftovers" in c.stdout,
          f"self-check catches allowed without the option: {c.stdout}")
    # quoting: a shell template refuses a value that is not shell-safe
    plan["exec"]["command"] = ["sh", "-c", "echo {n} {word}"]
    json.dump(plan, open(pf, "w"))
    p = subprocess.run([BENCH, "matrix", pf, "--output", out + "2",
                        "--dry-run"], capture_output=True, text=True)
    check(p.returncode == 2 and "inside a sh -c script" in p.stderr,
          f"sh -c quoting rule: {p.stderr}")
    # the same guard in every -c-style argument of an interpreter it knows
    for cmd, where in ((["python3", "-c", "print('{word}')"], "python"),
                       (["/usr/bin/env", "A=1", "bash", "-ec", "echo {word}"],
                        "sh -c"),
                       (["perl", "-e", "print '{word}'"], "perl"),
                       (["busybox", "sh", "-c", "echo {word}"], "sh -c")):
        plan["exec"]["command"] = cmd + ["{n}"]
        json.dump(plan, open(pf, "w"))
        p = subprocess.run([BENCH, "matrix", pf, "--output", out + "2",
                            "--dry-run"], capture_output=True, text=True)
        check(p.returncode == 2 and f"inside a {where}" in p.stderr and
              "not a security boundary" in p.stderr,
              f"{cmd}: program text guarded: {p.stderr}")
    # a value that is an argument of the script, not its text, is fine
    plan["exec"]["command"] = ["python3", "-c", "import sys", "{word}", "{n}"]
    json.dump(plan, open(pf, "w"))
    p = subprocess.run([BENCH, "matrix", pf, "--output", out + "2",
                        "--dry-run"], capture_output=True, text=True)
    check(p.returncode == 0, f"python3 -c CODE {{word}}: {p.stderr}")
    plan["exec"]["command"] = ["echo", "{nope}"]
    json.dump(plan, open(pf, "w"))
    p = subprocess.run([BENCH, "matrix", pf, "--output", out + "3",
                        "--dry-run"], capture_output=True, text=True)
    check(p.returncode == 2 and "placeholder" in p.stderr,
          f"unknown key refused: {p.stderr}")


def main():
    with nptest.tmpdir(prefix="np-exec-process-test-", checks=T) as d:
        for f in (sources, failures, ends, environment, leftovers, usage,
                  interrupted, suite):
            sub = os.path.join(d, f.__name__)
            os.mkdir(sub)
            f(sub)
    return T.done("exec as a process: all cases passed")


if __name__ == "__main__":
    sys.exit(main())
