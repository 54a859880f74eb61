#!/usr/bin/env python3
"""exec_plain_test.py NETPROOF_BENCH - the plainest exec command works
(issue 28): `exec --timeout 5 -- echo hi`, with the record on stdout and no
--keep, exits 0 (it was a usage error, "--keep: required with --output -",
though --help says the output defaults to -).  The program's stdout and
stderr go to a new folder under $TMPDIR (here one the test owns), the
summary names that folder, and the record's exec.stdout names the kept
file, whose bytes and SHA-256 are the program's output.
"""
import glob
import hashlib
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "lib"))
import nptest  # noqa: E402

BENCH = sys.argv[1]
T = nptest.Checks(fatal=True)
fail = T.fail


def main():
    tmp = T.scratch("np-exec-plain-test-")
    env = dict(os.environ, TMPDIR=tmp)
    env.pop("NETPROOF_RUNNER_SESSION", None)
    rc, out, err = nptest.run([BENCH, "exec", "--timeout", "5", "--",
                               "echo", "hi"], timeout=30, env=env)
    if rc != 0:
        fail("exec --timeout 5 -- echo hi: exit %d: %s" % (rc, err))
    rec = json.loads(out)
    dirs = glob.glob(os.path.join(tmp, "netproof-exec-*"))
    if len(dirs) != 1:
        fail("one kept-output folder under TMPDIR, found %s" % dirs)
    if "kept in %s/" % dirs[0] not in err:
        fail("the summary names the folder %s: %r" % (dirs[0], err))
    kept_out = os.path.join(dirs[0], "run.stdout.txt")
    data = open(kept_out, "rb").read() if os.path.exists(kept_out) else None
    if data != b"hi\n":
        fail("kept stdout %r, expected b'hi\\n'" % data)
    kept = rec.get("exec", {}).get("stdout", {})
    if kept.get("file") != "run.stdout.txt" or \
            kept.get("sha256") != hashlib.sha256(data).hexdigest():
        fail("record's exec.stdout %r" % kept)
    if not os.path.exists(os.path.join(dirs[0], "run.stderr.txt")):
        fail("run.stderr.txt kept too")
    # with --output the files still go beside the record, no folder
    shutil.rmtree(dirs[0])
    rp = os.path.join(tmp, "r.json")
    rc, out, err = nptest.run([BENCH, "exec", "--timeout", "5",
                               "--output", rp, "--", "echo", "hi"],
                              timeout=30, env=env)
    if rc != 0 or not os.path.exists(os.path.join(tmp, "r.stdout.txt")):
        fail("--output FILE: exit %d, files %s" % (rc, os.listdir(tmp)))
    if glob.glob(os.path.join(tmp, "netproof-exec-*")) or \
            "kept in" in err:
        fail("--output FILE made a temporary folder: %r" % err)
    return T.done("exec_plain_test: exec -- echo hi works, kept output named")


if __name__ == "__main__":
    sys.exit(main())
