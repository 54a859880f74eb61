#!/usr/bin/env python3
"""The programs load only the libraries their work needs (issue 29):
netproof-report, netproof-archive and netproof-validate load no libuv and
no liburing, and only netproof-archive (its gzip streams) loads ISA-L;
netproof-bench, the one program that runs libuv loops and io_uring, loads
both (which also shows ldd answers here).  --version names libuv only
where it is loaded.
Usage: link_deps_test.py BENCH REPORT ARCHIVE VALIDATE"""
import re
import subprocess
import sys

# program -> the libraries it must not load: one table
FORBIDDEN = {
    "netproof-report": ("libuv", "liburing", "libisal"),
    "netproof-archive": ("libuv", "liburing"),
    "netproof-validate": ("libuv", "liburing", "libisal", "libplplot"),
}
REQUIRED = {"netproof-bench": ("libuv", "liburing", "libisal")}


def loaded(path):
    p = subprocess.run(["ldd", path], capture_output=True, text=True,
                       timeout=30)
    if p.returncode != 0:
        raise SystemExit(f"FAIL: ldd {path}: exit {p.returncode} {p.stderr}")
    return {re.sub(r"\.so.*", "", line.split()[0])
            for line in p.stdout.splitlines() if line.strip()}


def version_names_libuv(path):
    p = subprocess.run([path, "--version"], capture_output=True, text=True,
                       timeout=30)
    return any(l.startswith("libuv: ") for l in p.stdout.splitlines())


def main():
    progs = dict(zip(("netproof-bench", "netproof-report",
                      "netproof-archive", "netproof-validate"), sys.argv[1:5]))
    fails = []
    for name, libs in FORBIDDEN.items():
        have = loaded(progs[name])
        for lib in libs:
            if lib in have:
                fails.append(f"{name} loads {lib}")
        if version_names_libuv(progs[name]):
            fails.append(f"{name} --version names a libuv it does not load")
    for name, libs in REQUIRED.items():
        have = loaded(progs[name])
        for lib in libs:
            if lib not in have:
                fails.append(f"{name} does not load {lib} (ldd: {sorted(have)})")
        if not version_names_libuv(progs[name]):
            fails.append(f"{name} --version does not name libuv")
    for f in fails:
        print("FAIL:", f)
    if not fails:
        print("link_deps: ok")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
