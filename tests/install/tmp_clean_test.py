#!/usr/bin/env python3
"""tmp_clean_test.py SCRIPT - scripts/check-tmp-clean.sh, the CI check that
a test run leaves nothing in /tmp, catches what it must:

- a command that leaves /tmp/np-... behind: exit 1, the path named;
- a command that leaves a file in its TMPDIR: exit 1, the path named;
- a command that cleans up: exit 0, "nothing left";
- a command that fails: its own exit status;
- --compare BEFORE AFTER: a new matching name is a leftover, a new name
  matching no pattern is not.
Every /tmp entry it makes for the check is removed again.
"""
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "lib"))
import nptest  # noqa: E402

SCRIPT = sys.argv[1]
T = nptest.Checks()
check = T.check


def run(*argv):
    rc, out, err = nptest.run(["sh", SCRIPT] + list(argv))
    return rc, out + err


def main():
    leak = "/tmp/np-tmpclean-leak-%d" % os.getpid()
    try:
        rc, out = run("--", "mkdir", leak)
        check(rc == 1 and "leftover: %s\n" % leak in out,
              "a /tmp leftover: exit %d: %s" % (rc, out))
    finally:
        shutil.rmtree(leak, ignore_errors=True)

    rc, out = run("--", "sh", "-c", 'touch "$TMPDIR/stray"')
    check(rc == 1 and "stray (in the command's TMPDIR)" in out,
          "a TMPDIR leftover: exit %d: %s" % (rc, out))

    rc, out = run("--", "sh", "-c",
                  'd=$(mktemp -d /tmp/np-tmpclean-ok-XXXXXX) && rm -r "$d"')
    check(rc == 0 and "nothing left" in out, "clean: exit %d: %s" % (rc, out))

    rc, out = run("--", "sh", "-c", "exit 7")
    check(rc == 7, "a failing command's status: %d: %s" % (rc, out))

    rc, out = run("--", "true", "extra")
    check(rc == 0, "arguments pass through: %d %s" % (rc, out))
    rc, out = run()
    check(rc == 2, "no command: usage error, exit %d" % rc)

    with nptest.tmpdir(prefix="np-tmpclean-test-", checks=T) as d:
        before, after = os.path.join(d, "b"), os.path.join(d, "a")
        with open(before, "w") as f:
            f.write("keep\nnp-old\n")
        with open(after, "w") as f:
            f.write("keep\nnp-old\nnp-new-test-1\nsystemd-private-x\n")
        rc, out = run("--compare", before, after)
        check(rc == 1 and "leftover: /tmp/np-new-test-1" in out and
              "systemd" not in out, "--compare: exit %d: %s" % (rc, out))
        with open(after, "w") as f:
            f.write("keep\nsystemd-private-x\n")
        rc, out = run("--compare", before, after)
        check(rc == 0, "--compare, nothing new matching: exit %d: %s"
              % (rc, out))
    if T.fails:
        print("%d failure(s)" % len(T.fails))
        return 1
    print("tmp_clean_test: leftovers in /tmp and TMPDIR caught")
    return 0


if __name__ == "__main__":
    sys.exit(main())
