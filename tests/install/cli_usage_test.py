#!/usr/bin/env python3
"""cli_usage_test.py BENCH REPORT ARCHIVE VALIDATE FAKE_BENCH - usage errors
of every program, the way a newcomer makes them (issue 28).

- A misspelt option, command or plan key gets one line on stderr, exit 2,
  naming the closest name ("did you mean --clients?") and ending
  "(try --help)"; stdout stays empty.
- Other usage errors of netproof-report, netproof-archive and
  netproof-validate are one line too, never the whole usage.
- `--output` works for every program: netproof-archive keygen (besides -o
  and --out), netproof-validate (the verdict lines).
- A port in use: serve's and relay's bind error names the address, with
  the program's prefix once ("relay: relay:" before).
- `matrix --dry-run` prints commands a shell reads back argument for
  argument (shell-quoted).
- `matrix --output` and `netproof-report --output` under a missing parent
  are refused (exit 2, one line) and create nothing.
"""
import json
import os
import shlex
import shutil
import socket
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "lib"))
import nptest  # noqa: E402

BENCH, REPORT, ARCHIVE, VALIDATE, FAKE = sys.argv[1:6]
T = nptest.Checks()
check = T.check


def run(argv):
    e = dict(os.environ)
    e.pop("NETPROOF_RUNNER_SESSION", None)
    return nptest.run(argv, env=e)


def one_line(argv, *needles):
    """argv is a usage error: exit 2, one stderr line holding needles."""
    rc, out, err = run(argv)
    name = " ".join(os.path.basename(a) for a in argv[:3])
    lines = err.splitlines()
    check(rc == 2, "%s: exit %d (expected 2): %r" % (name, rc, err))
    check(len(lines) == 1, "%s: %d stderr lines (expected one): %r"
          % (name, len(lines), err))
    check(out == "", "%s: nothing on stdout: %r" % (name, out[:200]))
    for n in needles:
        check(n in err, "%s: %r not in %r" % (name, n, err))


def main():
    tmp = tempfile.mkdtemp(prefix="np-cli-usage-test-")
    try:
        cases(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if T.fails:
        print("%d failure(s)" % len(T.fails))
        return 1
    print("cli_usage_test: one line each, with suggestions; --output "
          "everywhere; missing parents refused")
    return 0


def cases(tmp):
    mean = "(try --help)"
    # suggestions
    one_line([BENCH, "udp", "--clinets", "3"],
             "unknown option '--clinets'; did you mean --clients?", mean)
    one_line([BENCH, "rudp", "--windw", "3"], "did you mean --window?")
    one_line([BENCH, "udpp"], "unknown command 'udpp'; did you mean udp?")
    one_line([BENCH, "matrix", "quick", "--outptu", "x"],
             "did you mean --output?", mean)
    one_line([REPORT, "--resluts", "x"], "did you mean --results?", mean)
    one_line([REPORT, "compare", "a", "b", "--otput", "x"],
             "did you mean --output?", mean)
    one_line([REPORT, "compare", "a"], "give two result sets", mean)
    one_line([ARCHIVE, "pakc", "x"], "unknown command 'pakc'; did you mean "
             "pack?", mean)
    one_line([ARCHIVE, "verify", "b.tar.gz", "--pubky", "k"],
             "did you mean --pubkey?", mean)
    one_line([VALIDATE, "--schma", "s.json", "x.json"],
             "did you mean --schema?", mean)
    one_line([BENCH, "udp", "--zzzzzz"], "unknown option '--zzzzzz' " + mean)
    plan = os.path.join(tmp, "typo.json")
    with open(plan, "w") as f:
        json.dump({"schema": "netproof/plan/1", "suite": "typo",
                   "protocol": "udp", "repetitions": 1,
                   "configurations": [{"clinets": 2}]}, f)
    rc, out, err = run([BENCH, "matrix", plan, "--dry-run"])
    check(rc == 2 and 'did you mean "clients"?' in err,
          "plan key typo: exit %d, %r" % (rc, err))

    # matrix through its option table: the lines its hand parser printed,
    # word for word (issue 29), and PLAN before or after the options
    quick = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                         os.pardir, os.pardir, "bench", "plans", "quick.json")
    m = "netproof-bench matrix: "
    for extra, line in (
            (["--until-stable", "0"], "--until-stable 0: expected a "
             "half-width in percent of the median, > 0 and <= 100"),
            (["--until-stable", "5", "--min-reps", "4"], "--min-reps 4: "
             "expected a whole number of repetitions from 5 (the fewest an "
             "interval is computed from) to 1000"),
            (["--until-stable", "5", "--max-reps", "x"], "--max-reps x: "
             "expected a whole number of repetitions from 5 (the fewest an "
             "interval is computed from) to 1000"),
            (["--max-reps", "9"], "--max-reps needs --until-stable CI_PCT "
             "(try --help)"),
            (["--until-stable", "5", "--min-reps", "40", "--max-reps", "35"],
             "--max-reps 35: below --min-reps 40"),
            (["--shard", "x"], "--shard 'x': expected K/N (0 <= K < N), "
             "e.g. 0/4"),
            (["--shard", "0/2", "--only", "x"], "--shard and --only: choose "
             "one (a slice that leaves configurations out cannot be merged)"),
            (["extra"], "unexpected argument 'extra' (try --help)"),
            (["--only"], "--only needs a value (try --help)")):
        rc, out, err = run([BENCH, "matrix", quick, "--dry-run"] + extra)
        check(rc == 2 and out == "" and err == m + line + "\n",
              "matrix %s: exit %d, %r (want %r)" % (" ".join(extra), rc, err,
                                                    m + line))
    one_line([BENCH, "matrix", "--dry-run"], m + "missing PLAN (try --help)")
    one_line([BENCH, "matrix", quick], m + "missing --output DIR (try --help)")
    rc, out, err = run([BENCH, "matrix", "--dry-run", "--quiet", quick,
                        "--until-stable", "3", "--max-reps", "7"])
    check(rc == 0 and "suite quick: 4 configurations x 5-7 repetitions" in out
          and err == "",
          "matrix: PLAN between options: exit %d, %r" % (rc, err))
    rc, out, err = run([BENCH, "--verison"])
    check(rc == 2 and err == "netproof-bench: unknown option '--verison'; "
          "did you mean --version? (try --help)\n",
          "netproof-bench's own options from its table: %r" % err)

    # --connect with --mode stream: one answer whatever the io model,
    # naming both combinations that work (it sent the user back and forth)
    for extra in ([], ["--backend", "raw", "--io-model", "split"]):
        one_line([BENCH, "udp", "--connect", "127.0.0.1:9", "--mode",
                  "stream"] + extra, "--mode stream: not with --connect",
                 "--backend raw --io-model split", "--io-model single or pool")

    # a port in use: the bind error names the address, with one prefix
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    for argv in ([BENCH, "serve", "--listen", "127.0.0.1:%d" % port,
                  "--max-seconds", "5"],
                 [BENCH, "relay", "--listen", "127.0.0.1:%d" % port,
                  "--forward", "127.0.0.1:9", "--max-seconds", "5"]):
        rc, out, err = run(argv)
        check(rc == 3 and err.count("\n") == 1 and
              "bind udp 127.0.0.1:%d: " % port in err and
              "relay: relay:" not in err,
              "%s on a port in use: exit %d, %r" % (argv[1], rc, err))
    sock.close()

    # one-line usage errors, no whole usage
    one_line([REPORT, "--results", "x"], "--output OUTDIR is required", mean)
    one_line([REPORT, "--results", "x", "--output", "o", "--format", "pdf"],
             "--format pdf", mean)
    one_line([REPORT], "--results DIR is required", mean)
    one_line([ARCHIVE], "missing command", mean)
    one_line([ARCHIVE, "pack", "x"], "expected pack DIR... --output", mean)
    one_line([ARCHIVE, "sign", "b.tar.gz"], "--key KEY.pem", mean)
    one_line([ARCHIVE, "pack", "x", "--output"], "--output needs a value",
             mean)
    one_line([VALIDATE], "missing FILE", mean)

    # --dry-run's commands paste back into a shell: shlex gives each
    # argument whole (a --check with '<' and ':' is quoted)
    rc, out, err = run([BENCH, "matrix", "exec-iperf3", "--dry-run"])
    cmds = [shlex.split(l) for l in out.splitlines()
            if l.startswith("  ") and " exec " in l]
    check(rc == 0 and cmds and all(
        c[1] == "exec" and "sent<=kernel:Udp.OutDatagrams" in c and
        "loss=json:/end/sum/lost_percent:%" in c and
        c[c.index("--") + 1] == "iperf3" for c in cmds),
        "dry-run commands are shell-quoted: exit %d, %r" % (rc, out[:400]))
    check("'sent<=kernel:Udp.OutDatagrams'" in out,
          "dry-run quotes a --check: %r" % out[:400])

    # --output everywhere
    key = os.path.join(tmp, "k.pem")
    rc, out, err = run([ARCHIVE, "keygen", "--output", key])
    check(rc == 0 and os.path.exists(key) and
          os.path.exists(os.path.join(tmp, "k.pub.pem")),
          "archive keygen --output: exit %d %r" % (rc, err))
    doc = os.path.join(tmp, "doc.json")
    with open(doc, "w") as f:
        json.dump({"type": "x"}, f)
    schema = os.path.join(tmp, "s.json")
    with open(schema, "w") as f:
        json.dump({"$schema": "https://json-schema.org/draft/2020-12/schema",
                   "type": "object"}, f)
    verdict = os.path.join(tmp, "verdict.txt")
    rc, out, err = run([VALIDATE, "--schema", schema, "--output", verdict,
                        doc])
    text = open(verdict).read() if os.path.exists(verdict) else ""
    check(rc == 0 and out == "" and text == "%s: valid\n" % doc,
          "validate --output: exit %d, stdout %r, file %r" % (rc, out, text))

    # a missing parent is refused, nothing created
    missing = os.path.join(tmp, "missing")
    one_line([REPORT, "--results", tmp, "--output",
              os.path.join(missing, "a", "b")],
             "folder %s/a does not exist" % missing)
    check(not os.path.exists(missing), "report --output created %s" % missing)
    fplan = os.path.join(tmp, "plan.json")
    with open(fplan, "w") as f:
        json.dump({"schema": "netproof/plan/1", "suite": "p",
                   "protocol": "udp", "repetitions": 1,
                   "configurations": [{"payload": 64}]}, f)
    one_line([BENCH, "matrix", fplan, "--output",
              os.path.join(missing, "x", "y"), "--bench-binary", FAKE],
             "folder %s/x does not exist" % missing)
    check(not os.path.exists(missing), "matrix --output created %s" % missing)
    # the last component alone is still created
    made = os.path.join(tmp, "suite")
    rc, out, err = run([BENCH, "matrix", fplan, "--output", made,
                        "--bench-binary", FAKE])
    check(rc == 0 and os.path.isfile(os.path.join(made, "suite.json")),
          "matrix --output NEW under an existing folder: exit %d %r"
          % (rc, err))
    check(": 1 repetition to run," in out + err and
          ": 1 repetition run (1 passed)" in out + err,
          "matrix: '1 repetition', not '1 repetitions': %r" % (out + err))


if __name__ == "__main__":
    sys.exit(main())
