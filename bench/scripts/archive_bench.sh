#!/bin/sh
# Pack and verify throughput of netproof-archive on a synthetic results set.
#   bench/scripts/archive_bench.sh [BUILD_DIR] [MIB] [FIXTURE]
# BUILD_DIR (default build) holds archive/netproof-archive and
# bench/netproof-bench.  The set is a real `quick` results folder (FIXTURE,
# or a fresh `netproof-bench matrix quick`) plus MIB (default 100) MiB of
# evidence-like text under raw/: copies of its records and kernel snapshots
# with every number re-drawn, so it compresses like real evidence rather
# than like zeros.  Prints MB/s (10^6 bytes of payload per second) for the
# best of 3 packs and 3 verifies; target >= 150 MB/s each.
set -eu
build=$(cd "${1:-build}" && pwd)
mib=${2:-100}
fixture=${3:-}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/np-archive-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
A="$build/archive/netproof-archive"

if [ -z "$fixture" ]; then
  "$build/bench/netproof-bench" matrix "$root/bench/plans/quick.json" \
    --output "$work/src" --quiet
  fixture="$work/src"
fi
mkdir -p "$work/set"
cp -r "$fixture" "$work/set/synthetic"
python3 - "$work/set/synthetic" "$mib" <<'PY'
import os, random, re, sys
d, mib = sys.argv[1], int(sys.argv[2])
rnd = random.Random(42)
samples = []
for root, _, files in os.walk(os.path.join(d, "runs")):
    for f in sorted(files):
        if f.endswith((".json", ".txt")):
            samples.append(open(os.path.join(root, f)).read())
num = re.compile(r"\d+")
os.makedirs(os.path.join(d, "raw"))
total, i = 0, 0
while total < mib << 20:
    text = num.sub(lambda m: str(rnd.randrange(10 ** len(m.group()))),
                   samples[i % len(samples)])
    with open(os.path.join(d, "raw", "f%05d.txt" % i), "w") as f:
        f.write(text)
    total += len(text)
    i += 1
print("synthetic set: %d files, %.1f MiB under raw/" % (i, total / 2**20))
PY
bytes=$(du -sb "$work/set/synthetic" | cut -f1)
now() { date +%s.%N; }
best_pack=999999; best_verify=999999
for rep in 1 2 3; do
  rm -f "$work/b.tar.gz"
  t0=$(now); "$A" pack "$work/set/synthetic" -o "$work/b.tar.gz"; t1=$(now)
  best_pack=$(awk -v a="$t0" -v z="$t1" -v b="$best_pack" 'BEGIN {d=z-a; print (d<b)?d:b}')
  t0=$(now); "$A" verify "$work/b.tar.gz" >/dev/null 2>"$work/verify.err" || true
  t1=$(now)
  best_verify=$(awk -v a="$t0" -v z="$t1" -v b="$best_verify" 'BEGIN {d=z-a; print (d<b)?d:b}')
done
problems=$(wc -l <"$work/verify.err")
comp=$(stat -c %s "$work/b.tar.gz")
awk -v b="$bytes" -v c="$comp" -v p="$best_pack" -v v="$best_verify" -v n="$problems" 'BEGIN {
  printf "payload %.1f MiB, bundle %.1f MiB (ratio %.1f)\n", b/1048576, c/1048576, b/c
  printf "pack:   %.3f s  %.0f MB/s\n", p, b/p/1e6
  printf "verify: %.3f s  %.0f MB/s  (%d problem line(s))\n", v, b/v/1e6, n }'
