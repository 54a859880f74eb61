#!/usr/bin/env python3
"""completion_test.py DOCGEN COMPLETION BENCH REPORT ARCHIVE VALIDATE SRC -
the generated bash completion offers what the programs accept.

Each case runs bash with the completion sourced, COMP_WORDS/COMP_CWORD set
as bash would set them, and compares COMPREPLY:
- netproof-bench's commands; every option of every option table, and
  exactly those; every choice row's values; files for FILE placeholders;
- matrix: the plan names beside the build (the source tree's bench/plans),
  beside an installed program (PREFIX/share/netproof/plans), and in
  --plans-dir;
- netproof-bench itself, netproof-report, netproof-archive (subcommands,
  folders for -C), netproof-validate: the rows of their tables;
- exec: commands after "--".
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "lib"))
import nptest  # noqa: E402

DOCGEN, COMPLETION, BENCH, REPORT, ARCHIVE, VALIDATE, SRC = sys.argv[1:8]
T = nptest.Checks()
check = T.check
DRIVER = r'''
source "$1"; shift
COMP_WORDS=("$@")
COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
_netproof "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
printf '%s\n' "${COMPREPLY[@]}"
'''


def complete(words, path=None, cwd=None):
    """COMPREPLY for the command line words (the last is being typed)."""
    env = dict(os.environ)
    if path is not None:
        env["PATH"] = path + os.pathsep + env.get("PATH", "")
    p = subprocess.run(["bash", "-c", DRIVER, "driver", COMPLETION] + words,
                       capture_output=True, text=True, timeout=20, env=env,
                       cwd=cwd)
    check(p.returncode == 0 and p.stderr == "",
          "completion of %s runs cleanly: %s" % (words, p.stderr.strip()))
    return [w for w in p.stdout.split("\n") if w]


def prefix_of(table):
    """The words before an option of a program's table: "netproof-validate"
    -> [netproof-validate]; "netproof-report/OPTIONS-COMPARE" ->
    [netproof-report, compare]."""
    page, _, marker = table.partition("/")
    return [page] + ([marker[len("OPTIONS-"):].lower()] if marker else [])


def main():
    bench_dir = os.path.dirname(os.path.abspath(BENCH))
    rows = {}
    out = subprocess.run([DOCGEN, "options"], capture_output=True, text=True,
                         timeout=20).stdout
    for line in out.splitlines():
        cmd, opt, mv, choices = line.split("\t")
        rows.setdefault(cmd, []).append((opt, mv, choices.split()))

    top = complete(["netproof-bench", ""])
    check(set(top) >= {"udp", "rudp", "exec", "matrix", "--help", "--version"},
          "netproof-bench commands: %s" % top)
    check(complete(["netproof-bench", "ma"]) == ["matrix"], "ma -> matrix")

    with tempfile.TemporaryDirectory() as d:
        open(os.path.join(d, "zz-record.json"), "w").close()
        os.mkdir(os.path.join(d, "zz-folder"))
        for cmd, r in rows.items():
            # a netproof-bench command's table, or a program's own
            # ("netproof-validate"; "PAGE/OPTIONS-SUB" for a subcommand)
            pre = (prefix_of(cmd) if cmd.startswith("netproof-")
                   else ["netproof-bench", cmd])
            got = complete(pre + ["-"])  # "-" offers -h aliases too
            want = [o for o, _, _ in r]
            check(sorted(got) == sorted(want),
                  "%s options are the table's: %s" % (cmd, sorted(set(got) ^ set(want))))
            for opt, mv, choices in r:
                if choices:
                    got = complete(pre + [opt, ""])
                    check(got == choices, "%s %s values %s, want %s"
                          % (cmd, opt, got, choices))
                elif mv == "FILE":
                    got = complete(pre + [opt, "zz"], cwd=d)
                    check(sorted(got) == ["zz-folder", "zz-record.json"],
                          "%s %s completes files: %s" % (cmd, opt, got))
                elif mv == "DIR":
                    got = complete(pre + [opt, "zz"], cwd=d)
                    check(got == ["zz-folder"],
                          "%s %s completes folders: %s" % (cmd, opt, got))
        got = complete(["netproof-archive", "extract", "b.tar.gz", "-C", "zz"],
                       cwd=d)
        check(got == ["zz-folder"], "archive -C completes folders: %s" % got)

    # matrix: plan names where netproof-bench looks them up
    shipped = sorted(f[:-5] for f in os.listdir(os.path.join(SRC, "bench/plans"))
                     if f.endswith(".json"))
    got = complete(["netproof-bench", "matrix", ""], path=bench_dir)
    check(set(got) >= set(shipped),
          "matrix offers the build's plans: %s" % sorted(set(shipped) - set(got)))
    check(complete(["netproof-bench", "matrix", "qui"], path=bench_dir) == ["quick"],
          "matrix qui -> quick")
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "usr/bin"))
        os.makedirs(os.path.join(d, "usr/share/netproof/plans"))
        exe = os.path.join(d, "usr/bin/netproof-bench")
        shutil.copy(BENCH, exe)
        open(os.path.join(d, "usr/share/netproof/plans/staged-only.json"), "w").close()
        got = complete(["netproof-bench", "matrix", "stag"], path=os.path.join(d, "usr/bin"),
                       cwd=d)
        check(got == ["staged-only"], "matrix offers installed plans: %s" % got)
        os.makedirs(os.path.join(d, "mine"))
        open(os.path.join(d, "mine/my-plan.json"), "w").close()
        got = complete(["netproof-bench", "matrix", "--plans-dir",
                        os.path.join(d, "mine"), "my"], path=bench_dir, cwd=d)
        check(got == ["my-plan"], "matrix offers --plans-dir plans: %s" % got)

    # every program and command completes from a table: none is left out
    tables = {t.partition("/")[0] for t in rows}
    check({"netproof-bench", "netproof-report", "netproof-archive",
           "netproof-validate", "matrix"} <= tables,
          "every program's options come from a table: %s" % sorted(tables))
    got = complete(["netproof-archive", ""])
    check(set(got) >= {"pack", "verify", "list", "extract", "snapshot"},
          "archive subcommands: %s" % got)

    # exec: the program after --
    got = complete(["netproof-bench", "exec", "--timeout", "1", "--", "bas"])
    check("bash" in got, "exec -- completes commands: %s" % got[:5])
    check(complete(["netproof-bench", "udp", "--payload", ""]) == [],
          "a number offers nothing")

    if T.fails:
        print("%d failure(s)" % len(T.fails))
        return 1
    print("completion_test: %d commands, %d options checked"
          % (len(rows), sum(len(r) for r in rows.values())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
