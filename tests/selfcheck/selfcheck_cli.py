#!/usr/bin/env python3
"""selfcheck_cli.py BUILD_DIR SRC_DIR - `netproof-report --self-check` as a
command: exit 0 on a clean set, 4 on an incomplete one (its note on
stderr), 1 when a problem is found (also in an incomplete set), 2 for an
unreadable folder or a symbolic link inside it, the exit codes in --help;
and the streaming engine on a generated 400-run set: clean, with a peak
resident set below 1.2 x the set's size on disk."""
import os
import shutil
import subprocess
import sys
import tempfile

build, src = sys.argv[1], sys.argv[2]
report = os.path.join(build, "report", "netproof-report")
here = os.path.join(src, "tests", "selfcheck")


def check(args):
    p = subprocess.run([report, "--self-check"] + sum(
        (["--results", a] for a in args), []), capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


tmp = tempfile.mkdtemp()
try:
    rc, out, err = check([os.path.join(here, "fixture-udp")])
    if rc != 0 or "self-check clean" not in err:
        fail("clean set: %d %s %s" % (rc, out, err))
    rc, out, err = check([os.path.join(here, "fixture-udp-interrupted")])
    if rc != 4 or "fixture-udp-interrupted: incomplete: 3 of 6 repetitions" not in err \
            or out:
        fail("interrupted set: %d %r %r" % (rc, out, err))
    rc, out, err = check([os.path.join(here, "fixture-udp"),
                          os.path.join(here, "fixture-udp-killed")])
    if rc != 4:
        fail("clean + killed: %d" % rc)
    bad = os.path.join(tmp, "bad")
    shutil.copytree(os.path.join(here, "fixture-udp-interrupted"), bad)
    f = os.path.join(bad, "runs", "udp-p1024-c4-w1-single-uv", "rep-1.cmd.txt")
    text = open(f).read().replace("outcome: exit 0", "outcome: exit 1")
    open(f, "w").write(text)
    rc, out, err = check([bad])
    want = ("bad/runs/udp-p1024-c4-w1-single-uv/rep-1.cmd.txt: /: outcome "
            "\"exit 1\", but runs/udp-p1024-c4-w1-single-uv/rep-1.json is "
            "passed, which exits with 0\n")
    if rc != 1 or want not in out or "incomplete: 3 of 6" not in err:
        fail("tampered incomplete set: %d %r %r" % (rc, out, err))
    rc, out, err = check([os.path.join(tmp, "missing")])
    if rc != 2 or "missing: No such file or directory" not in err:
        fail("missing folder: %d %r" % (rc, err))
    os.symlink("/etc/passwd", os.path.join(bad, "runs", "link"))
    rc, out, err = check([bad])
    if rc != 2 or "a symbolic link" not in err:
        fail("symbolic link: %d %r" % (rc, err))
    h = subprocess.run([report, "--help"], capture_output=True, text=True).stdout
    if "4 self-check: the result set is incomplete" not in h:
        fail("--help: %r" % h)
    # streaming on a larger set
    big = os.path.join(tmp, "big")
    subprocess.run([sys.executable, os.path.join(here, "large_set.py"), build,
                    big, "--configs", "200"], check=True)
    size = sum(os.path.getsize(os.path.join(d, n))
               for d, _, ns in os.walk(big) for n in ns)
    probe = ("import resource, subprocess, sys\n"
             "p = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
             "print(p.returncode, resource.getrusage("
             "resource.RUSAGE_CHILDREN).ru_maxrss)\n"
             "sys.stderr.write(p.stdout + p.stderr)\n")
    p = subprocess.run([sys.executable, "-c", probe, report, "--self-check",
                        "--results", big], capture_output=True, text=True)
    code, rss_kb = (int(x) for x in p.stdout.split())
    if code != 0:
        fail("generated set: %d %s" % (code, p.stderr[:2000]))
    # A sanitizer build's peak RSS is mostly its shadow memory and
    # quarantine: the bound is checked on the plain build only.
    if os.environ.get("NP_SANITIZE"):
        print("selfcheck_cli: peak RSS bound not checked under the %s "
              "sanitizer (%d KiB measured)" % (os.environ["NP_SANITIZE"], rss_kb))
    elif rss_kb * 1024 > 1.2 * size:
        fail("peak RSS %d KiB above 1.2 x the set's %d bytes" % (rss_kb, size))
    print("selfcheck_cli: ok (%d runs, %.1f MB on disk, peak RSS %.1f MB)" %
          (400, size / 1e6, rss_kb / 1024))
finally:
    shutil.rmtree(tmp)
