#!/usr/bin/env python3
"""The include graph between netproof's top-level folders, and its check.

With --check it also checks the internal headers (*_int.h): every function
or extern they declare is named np_x__name (the component, two
underscores), so an internal symbol is told from the API at a glance.

Every `#include "x.h"` in a C source or header of a component folder is
resolved to the folder that holds x.h (header names are unique in the
tree; system headers, <...>, are not counted).  The script prints one line
per arrow, `FROM -> TO COUNT`, and with --check fails (exit 1) on an arrow
that runs up the layer order below, naming each offending include as
FILE:LINE.  Exit 2 on usage errors or a header name found in two folders.

The layer order (docs/architecture.md has the picture): a folder may
include only folders of a lower rank, or its own.  Folders of the same rank
are siblings that must not include each other.  A layer is a top-level
folder or a path prefix inside one (the longest prefix wins): netproof-bench's
main and command table (bench/main.c, bench/np_bench_commands.*) name every
command, the runner's too, so they sit above runner/.
"""
import argparse
import os
import re
import sys

# (folder, rank): one table, lowest first.  tests/ and tools/ sit above
# everything: they may include any component and nothing includes them.
LAYERS = (
    ("common", 0),
    ("schema", 1),
    ("model", 2),
    ("bench", 3),
    ("resultset", 3),
    ("runner", 4),
    ("report", 5),
    ("archive", 5),
    ("bench/np_bench_commands", 5),  # netproof-bench's command table
    ("bench/main.c", 6),             # and its main
    ("man", 6),
    ("completions", 6),
    ("tools", 7),
    ("tests", 7),
)
RANK = dict(LAYERS)
# Upward arrows the tree still has, with their include counts (none now:
# issue 29's last one, model -> bench, went when the results, the ARQ,
# FEC and relay configurations and the --agent-relay parser moved into
# model/).  --check fails on an upward arrow not listed here, on a count
# above the listed one, and on a listed arrow that is gone or smaller (so
# the table is kept true: shrink it with the code).
KNOWN_UPWARD = {}
# Internal headers still declaring names without the np_x__ prefix, with
# their counts (same rules as KNOWN_UPWARD): only the generated schema
# table, whose name the CMake embedding step writes.
KNOWN_UNPREFIXED = {
    "schema/np_schema_int.h": 1,      # np_schema_embedded, generated table
}
SOURCE_EXT = (".c", ".h")
DECL_RE = re.compile(r'^(?!static|typedef|#)[A-Za-z_][\w \t*]*?\b(np_\w+)\s*\(',
                     re.M)
EXTERN_RE = re.compile(r'^extern\s+[\w \t*]*?\b(np_\w+)\b', re.M)
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SKIP_DIRS = {".git", "build", "build-asan"}


def layer_of(root, path):
    """The layer (LAYERS key) of path: the longest prefix that matches."""
    rel = os.path.relpath(path, root).replace(os.sep, "/")
    best = None
    for key in RANK:
        if rel == key or rel.startswith(key + "/") or (
                "/" in key and rel.startswith(key)):
            if best is None or len(key) > len(best):
                best = key
    return best


def sources(root):
    """Every .c/.h under the layered folders, as (layer, path)."""
    for folder in RANK:
        base = os.path.join(root, folder)
        if "/" in folder or not os.path.isdir(base):
            continue
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = sorted(d for d in dirnames
                                 if d not in SKIP_DIRS
                                 and not d.startswith("build"))
            for name in sorted(filenames):
                if name.endswith(SOURCE_EXT):
                    path = os.path.join(dirpath, name)
                    yield layer_of(root, path), path


def header_homes(root):
    """header basename -> folder; a name in two folders is an error."""
    homes = {}
    clashes = []
    for folder, path in sources(root):
        if not path.endswith(".h"):
            continue
        name = os.path.basename(path)
        if name in homes and homes[name][0] != folder:
            clashes.append(f"{name}: {homes[name][1]} and {path}")
        homes.setdefault(name, (folder, path))
    return {k: v[0] for k, v in homes.items()}, clashes


def arrows(root):
    """(counts {(from, to): n}, upward [(file:line, from, to, header)])."""
    homes, clashes = header_homes(root)
    counts = {}
    upward = []
    for folder, path in sources(root):
        with open(path, encoding="utf-8", errors="replace") as f:
            for lineno, line in enumerate(f, 1):
                m = INCLUDE_RE.match(line)
                if not m:
                    continue
                name = os.path.basename(m.group(1))
                to = homes.get(name)
                if to is None or to == folder:
                    continue
                counts[(folder, to)] = counts.get((folder, to), 0) + 1
                if RANK[to] >= RANK[folder]:
                    rel = os.path.relpath(path, root)
                    upward.append((f"{rel}:{lineno}", folder, to, name))
    return counts, upward, clashes


def unprefixed(root):
    """{header: [names]} of the *_int.h declarations without np_x__."""
    out = {}
    for _, path in sources(root):
        if not path.endswith("_int.h"):
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        names = set(DECL_RE.findall(text)) | set(EXTERN_RE.findall(text))
        bad = sorted(n for n in names if "__" not in n)
        if bad:
            out[os.path.relpath(path, root).replace(os.sep, "/")] = bad
    return out


def check_prefixes(root, known):
    """Problems of the internal headers against the known table."""
    problems = []
    found = unprefixed(root)
    for hdr, names in sorted(found.items()):
        if len(names) > known.get(hdr, 0):
            problems.append(f"{hdr}: {len(names)} internal name(s) without "
                            f"the np_x__ prefix (listed: {known.get(hdr, 0)}"
                            f"): {', '.join(names[:6])}")
    for hdr, n in sorted(known.items()):
        if len(found.get(hdr, ())) < n:
            problems.append(f"KNOWN_UNPREFIXED lists {hdr} {n}, the tree has "
                            f"{len(found.get(hdr, ()))}: lower the table")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(
        os.path.abspath(__file__)), os.pardir),
        help="the source tree (default: this script's parent folder)")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 on an include that runs up the layers")
    ap.add_argument("--no-known", action="store_true",
                    help="check against an empty KNOWN_UPWARD table")
    args = ap.parse_args()
    known = {} if args.no_known else KNOWN_UPWARD
    known_unprefixed = {} if args.no_known else KNOWN_UNPREFIXED
    root = os.path.abspath(args.root)
    if not os.path.isfile(os.path.join(root, "CMakeLists.txt")):
        print(f"np_layers: {root}: not a netproof source tree",
              file=sys.stderr)
        return 2
    counts, upward, clashes = arrows(root)
    for c in clashes:
        print(f"np_layers: header name in two folders: {c}", file=sys.stderr)
    if clashes:
        return 2
    for (src, dst), n in sorted(counts.items(),
                                key=lambda kv: (RANK[kv[0][0]], kv[0])):
        mark = "  UPWARD" if RANK[dst] >= RANK[src] else ""
        print(f"{src} -> {dst} {n}{mark}")
    if not args.check:
        return 0
    found = {}
    for _, src, dst, _ in upward:
        found[(src, dst)] = found.get((src, dst), 0) + 1
    bad = 0
    for where, src, dst, name in upward:
        if found[(src, dst)] <= known.get((src, dst), 0):
            continue
        bad += 1
        print(f"np_layers: {where}: {src} (rank {RANK[src]}) includes "
              f"{name} from {dst} (rank {RANK[dst]}): an upward include",
              file=sys.stderr)
    for (src, dst), n in sorted(known.items()):
        if found.get((src, dst), 0) < n:
            bad += 1
            print(f"np_layers: KNOWN_UPWARD lists {src} -> {dst} {n}, the "
                  f"tree has {found.get((src, dst), 0)}: lower the table",
                  file=sys.stderr)
    for problem in check_prefixes(root, known_unprefixed):
        bad += 1
        print(f"np_layers: {problem}", file=sys.stderr)
    if bad:
        print(f"np_layers: {bad} layering problem(s)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
