#!/usr/bin/env python3
"""The layering check (tools/np_layers.py --check) on the source tree, and
on small trees made here to show it fails on an upward include, on a
table entry above the tree's count, and on a header name in two folders.
Usage: layering_test.py SCRIPT SOURCE_DIR"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "lib"))
import nptest  # noqa: E402


def run(script, root, *extra):
    return nptest.run([sys.executable, script, "--check", "--root", root,
                       *extra], timeout=60)


def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main():
    script, source = sys.argv[1], sys.argv[2]
    T = nptest.Checks()
    rc, out, err = run(script, source)
    if rc != 0:
        T.fail(f"source tree: exit {rc}\n{err}")
    if "common -> " in out:
        T.fail(f"source tree: common includes another folder:\n{out}")

    with nptest.tmpdir(prefix="np-layers-", checks=T) as tmp:
        write(tmp, "CMakeLists.txt", "\n")
        write(tmp, "common/np_a.h", "\n")
        write(tmp, "report/np_r.h", '#include "np_a.h"\n')
        rc, out, err = run(script, tmp, "--no-known")
        if rc == 0 and "report -> common 1" in out:
            pass
        else:
            T.fail(f"downward include refused: exit {rc}\n{out}{err}")
        write(tmp, "common/np_a.c", '#include "np_a.h"\n#include "np_r.h"\n')
        rc, out, err = run(script, tmp, "--no-known")
        want = "common/np_a.c:2: common (rank 0) includes np_r.h from report"
        if rc != 1 or want not in err:
            T.fail(f"upward include not refused: exit {rc}\n{err}")
        os.remove(os.path.join(tmp, "common/np_a.c"))
        # siblings of one rank must not include each other
        write(tmp, "archive/np_b.c", '#include "np_r.h"\n')
        rc, out, err = run(script, tmp, "--no-known")
        if rc != 1 or "archive/np_b.c:1" not in err:
            T.fail(f"sibling include not refused: exit {rc}\n{err}")
        os.remove(os.path.join(tmp, "archive/np_b.c"))
        # the tree has none of the known upward arrows: the table is too big
        rc, out, err = run(script, tmp)
        if rc != 1 or "lower the table" not in err:
            T.fail(f"stale KNOWN_UPWARD not refused: exit {rc}\n{err}")
        # an internal header: np_x__ names only
        write(tmp, "report/np_r_int.h", "int np_r__ok(void);\n")
        rc, out, err = run(script, tmp, "--no-known")
        if rc != 0:
            T.fail(f"prefixed internal name refused: exit {rc}\n{err}")
        write(tmp, "report/np_r_int.h", "int np_r__ok(void);\n"
              "const char *np_r_plain(int x);\nstatic int np_r_s(void);\n")
        rc, out, err = run(script, tmp, "--no-known")
        if rc != 1 or "report/np_r_int.h: 1 internal name(s)" not in err \
                or "np_r_plain" not in err:
            T.fail(f"unprefixed internal name not refused: exit {rc}"
                         f"\n{err}")
        os.remove(os.path.join(tmp, "report/np_r_int.h"))
        write(tmp, "report/np_a.h", "\n")
        rc, out, err = run(script, tmp, "--no-known")
        if rc != 2 or "header name in two folders: np_a.h" not in err:
            T.fail(f"duplicate header not refused: exit {rc}\n{err}")
    return T.done()


if __name__ == "__main__":
    sys.exit(main())
