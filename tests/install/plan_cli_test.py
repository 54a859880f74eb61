#!/usr/bin/env python3
"""plan_cli_test.py BENCH SRC - `netproof-bench matrix PLAN` with a plan
given by name, as a process from the build tree: a shipped name reads the
source tree's bench/plans; --plans-dir reads its folder only; a real run
by name records the file it read in suite.json; every bad input (a name
found nowhere, a bad name, --plans-dir with a path, --plans-dir without a
value, no plan) is exit 2 with one line naming it, and nothing written.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "lib"))
import nptest  # noqa: E402

BENCH, SRC = sys.argv[1:3]
PLANS = os.path.join(SRC, "bench", "plans")
T = nptest.Checks()
check = T.check

TINY = {
    "schema": "netproof/plan/1",
    "suite": "tiny",
    "description": "one short repetition, for tests/install",
    "protocol": "udp",
    "repetitions": 1,
    "timeout_seconds": 20,
    "base": {"payload": 64, "clients": 1, "window": 1, "warmup": 0,
             "seconds": 0.1},
    "configurations": [{"io-model": "single", "backend": "uv"}],
}


def matrix(args, cwd=None):
    p = subprocess.run([BENCH, "matrix"] + args, capture_output=True,
                       text=True, timeout=60, cwd=cwd)
    return p.returncode, p.stdout, p.stderr


def usage_error(args, want, cwd, out_dir=None):
    rc, out, err = matrix(args, cwd)
    check(rc == 2 and err.count("\n") == 1 and want in err,
          "%s: exit 2, one line with '%s': rc %d, %r" % (args, want, rc, err))
    check(out == "", "%s: nothing on stdout" % args)
    if out_dir is not None:
        check(not os.path.exists(out_dir), "%s: %s not created" % (args, out_dir))


def main():
    with nptest.tmpdir(prefix="np-plan-cli-test-", checks=T) as d:
        # every shipped plan by name
        for f in sorted(os.listdir(PLANS)):
            name = f[:-5]
            rc, out, err = matrix([name, "--dry-run"], cwd=d)
            suite = json.load(open(os.path.join(PLANS, f)))["suite"]
            check(rc == 0 and ("suite %s: " % suite) in out,
                  "matrix %s --dry-run: rc %d %s" % (name, rc, err))
        # --plans-dir: its folder only
        mine = os.path.join(d, "mine")
        os.mkdir(mine)
        with open(os.path.join(mine, "tiny.json"), "w") as f:
            json.dump(TINY, f)
        rc, out, err = matrix(["tiny", "--plans-dir", mine, "--dry-run"], d)
        check(rc == 0 and "suite tiny: 1 configuration x 1 repetition" in out,
              "tiny from --plans-dir: %s %s" % (out, err))
        usage_error(["quick", "--plans-dir", mine, "--dry-run"],
                    "plan 'quick': no quick.json in %s (" % mine, d)
        # a real run by name: suite.json says which file was read
        res = os.path.join(d, "res")
        rc, out, err = matrix(["tiny", "--plans-dir", mine, "--output", res,
                               "--quiet"], d)
        check(rc == 0, "tiny runs: %s" % err)
        suite = json.load(open(os.path.join(res, "suite.json")))
        check(suite.get("plan_file") == os.path.join(mine, "tiny.json"),
              "plan_file %s" % suite.get("plan_file"))
        # a file in the cwd is a path, read as given
        with open(os.path.join(d, "here.json"), "w") as f:
            json.dump(dict(TINY, suite="here"), f)
        rc, out, err = matrix(["here.json", "--dry-run"], d)
        check(rc == 0 and "suite here: " in out, "here.json: %s" % err)
        # bad input
        out_dir = os.path.join(d, "never")
        usage_error(["no-such-plan", "--output", out_dir],
                    "plan 'no-such-plan': no no-such-plan.json in %s (" % PLANS,
                    d, out_dir)
        usage_error([".hidden", "--output", out_dir],
                    "plan name '.hidden': expected letters", d, out_dir)
        usage_error(["a$b", "--output", out_dir], "plan name 'a$b'", d, out_dir)
        usage_error(["./here.json", "--plans-dir", mine, "--output", out_dir],
                    "--plans-dir %s: applies to a plan given by name, and "
                    "'./here.json' is a path" % mine, d, out_dir)
        usage_error(["quick", "--output", out_dir, "--plans-dir"],
                    "--plans-dir needs a value (try --help)", d, out_dir)
        usage_error(["--output", out_dir], "missing PLAN", d, out_dir)
    if T.fails:
        print("%d failure(s)" % len(T.fails))
        return 1
    print("plan_cli_test: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
