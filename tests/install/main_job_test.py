#!/usr/bin/env python3
"""main_job_test.py SCRIPT - what `make run` (scripts/run-main-job.sh) tells
a newcomer, and what it does to a previous run's outputs.

The script runs from a copy of itself in a scratch tree (its root is the
folder above its own, so out/ lands in the scratch tree) over a build
folder of stand-in programs that write what the real ones would (a suite
folder, a report index with a headline table, a bundle).  Checked:

- the first run creates out/ and no out.prev/;
- a second run keeps the first run's out/ as out.prev/ (its marker file
  intact), says so, and a third replaces out.prev/ with the second run's;
- the end of the output names every program's path in the build folder
  and offers `make install PREFIX=$HOME/.local` for a user without root.
"""
import os
import shutil
import stat
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "lib"))
import nptest  # noqa: E402

SCRIPT = sys.argv[1]
T = nptest.Checks()
check = T.check


# Stand-ins: each answers the calls the script makes, and nothing else.
BENCH = r"""#!/bin/sh
case "$1" in
  --version) echo "netproof-bench 0.0.0-stub"; exit 0 ;;
  --help) echo "  rudp      stub"; exit 0 ;;
  matrix) mkdir -p "$4/runs"; echo "{}" > "$4/summary.json"
          echo "$STUB_MARK" > "$4/marker"; exit 0 ;;
  rudp) while [ $# -gt 0 ]; do
          [ "$1" = --output ] && { echo "{}" > "$2"; }
          shift
        done
        echo "rudp stub line" >&2; exit 0 ;;
esac
exit 2
"""
REPORT = r"""#!/bin/sh
if [ "$1" = --self-check ]; then echo "self-check clean"; exit 0; fi
mkdir -p "$4"
printf '### Throughput, latency and CPU\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n' \
  > "$4/index.md"
exit 0
"""
ARCHIVE = r"""#!/bin/sh
[ "$1" = pack ] && echo bundle > "$4"
exit 0
"""
VALIDATE = "#!/bin/sh\nexit 0\n"


def put(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)


def run(root, build, mark):
    env = dict(os.environ, STUB_MARK=mark)
    p = subprocess.run(["sh", os.path.join(root, "scripts", "run-main-job.sh"),
                        build], cwd=root, env=env, capture_output=True,
                       text=True, timeout=60)
    check(p.returncode == 0, "run %s exit %d: %s" % (mark, p.returncode,
                                                     p.stderr))
    return p.stdout


def read(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def main():
    with nptest.tmpdir(prefix="np-main-job-test-", checks=T) as root:
        os.makedirs(os.path.join(root, "scripts"))
        shutil.copy(SCRIPT, os.path.join(root, "scripts", "run-main-job.sh"))
        build = os.path.join(root, "build")
        progs = {"bench/netproof-bench": BENCH,
                 "report/netproof-report": REPORT,
                 "archive/netproof-archive": ARCHIVE,
                 "schema/netproof-validate": VALIDATE}
        for rel, text in progs.items():
            put(os.path.join(build, rel), text)
        out = os.path.join(root, "out")
        prev = os.path.join(root, "out.prev")

        first = run(root, build, "first")
        check(read(os.path.join(out, "quick", "marker")) == "first",
              "first run wrote out/quick")
        check(not os.path.exists(prev), "no out.prev/ after the first run")
        check("out.prev" not in first.split("== programs")[0],
              "first run mentions no previous outputs")

        second = run(root, build, "second")
        check(read(os.path.join(out, "quick", "marker")) == "second",
              "second run wrote out/quick")
        check(read(os.path.join(prev, "quick", "marker")) == "first",
              "second run kept the first run's out/ as out.prev/")
        check(prev + "/" in second, "second run says where the previous "
              "outputs went:\n" + second)

        run(root, build, "third")
        check(read(os.path.join(prev, "quick", "marker")) == "second",
              "third run's out.prev/ is the second run's out/")

        tail = second.split("== programs")
        check(len(tail) == 2, "output has a programs section:\n" + second)
        tail = tail[-1]
        for rel in progs:
            check(os.path.join(build, rel) in tail,
                  "programs section names %s:\n%s" % (rel, tail))
        check("make install PREFIX=$HOME/.local" in tail,
              "install hint for a user without root:\n" + tail)
    if T.fails:
        print("%d failure(s)" % len(T.fails))
        return 1
    print("main job: out.prev kept, programs and install hint printed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
