#!/usr/bin/env python3
"""Every ctest test has exactly one kind label (unit, process, package;
netns tests are process and netns), `slow` at most besides, and no other
label; `-L unit` selects C programs only.
Usage: labels_test.py CTEST BUILD_DIR"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "lib"))
import nptest  # noqa: E402

KINDS = ({"unit"}, {"process"}, {"process", "netns"}, {"package"})


def main():
    ctest, build = sys.argv[1], sys.argv[2]
    T = nptest.Checks()
    rc, out, err = nptest.run([ctest, "--show-only=json-v1"], cwd=build)
    if not T.check(rc == 0, f"ctest --show-only: exit {rc}: {err}"):
        return T.done()
    tests = json.loads(out)["tests"]
    T.check(len(tests) > 100, f"{len(tests)} tests listed")
    for t in tests:
        labels = set()
        for p in t.get("properties", []):
            if p["name"] == "LABELS":
                labels = set(p["value"])
        kind = labels - {"slow"}
        T.check(kind in KINDS, f"{t['name']}: labels {sorted(labels)}")
        if "unit" in labels:
            exe = os.path.basename(t["command"][0])
            T.check(not exe.startswith(("python", "sh", "bash")),
                    f"{t['name']}: a unit test runs {exe}")
    return T.done(f"labels: {len(tests)} tests, each of one kind")


if __name__ == "__main__":
    sys.exit(main())
