#!/usr/bin/env python3
"""Attack: a reader made to write elsewhere.  A symlink planted in the
output folder (OUT/assets -> /elsewhere) had netproof-report write its SVGs
through it.  Every file is now created under one O_DIRECTORY|O_NOFOLLOW
folder descriptor: a symlink anywhere under OUT, or OUT itself, is refused
with one line naming it, and nothing lands outside.

usage: output_symlink_attack.py BUILD_DIR SOURCE_DIR
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from jbsec import Box, args, check, finish, fixture, run, tools


def main():
    build, source = args()
    t = tools(build)
    box = Box("outlink")
    try:
        o1 = os.path.join(box.out, "assets-link")
        os.makedirs(o1)
        os.symlink(box.outside, os.path.join(o1, "assets"))
        o2 = os.path.join(box.out, "file-link")
        os.makedirs(o2)
        os.symlink(os.path.join(box.outside, "bashrc"),
                   os.path.join(o2, "index.md"))
        o3 = os.path.join(box.out, "out-link")
        os.symlink(box.outside, o3)
        o4 = os.path.join(box.out, "nested")
        os.makedirs(o4)
        os.symlink(box.outside, os.path.join(o4, "assets"))
        cases = [("OUT/assets is a symlink", o1, f"{o1}/assets: a symbolic "
                  "link in the output folder; refusing to write through it"),
                 ("OUT/index.md is a symlink", o2, f"{o2}/index.md: a "
                  "symbolic link in the output folder"),
                 ("OUT itself is a symlink", o3, f"{o3}: the output folder "
                  "is a symbolic link")]
        box.seal()
        for name, out_dir, needle in cases:
            rc, out, err = run([t["report"], "--results", fixture(source),
                                "--output", out_dir])
            check(rc != 0 and needle.encode() in err,
                  f"{name}: refused (exit {rc}): {err.strip()[:200]!r}")
            check(os.listdir(box.outside) == [],
                  f"{name}: nothing written through it")
        # the compare pages go through the same writer
        rc, out, err = run([t["report"], "compare", fixture(source),
                            fixture(source), "--output", o4])
        check(rc != 0 and b"a symbolic link in the output folder" in err,
              f"compare --output with OUT/assets a symlink: exit {rc} "
              f"{err.strip()[-200:]!r}")
        # a clean folder is written as before
        ok = os.path.join(box.out, "clean")
        rc, out, err = run([t["report"], "--results", fixture(source),
                            "--output", ok])
        check(rc == 0 and os.path.isfile(os.path.join(ok, "index.md")) and
              os.listdir(os.path.join(ok, "assets")) != [],
              f"a clean output folder is written (exit {rc})")
        box.check_nothing_outside("symlinked output")
    finally:
        box.close()
    finish("output_symlink_attack")


if __name__ == "__main__":
    main()
