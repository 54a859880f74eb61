#!/bin/sh
# check-readings.sh PAGES_DIR|FILE.md... - every figure in a hand-written
# reading comes from the data (issue 33, "make it mechanical").
#
# A PAGES_DIR argument checks its <page>.reading.md files; a FILE.md
# argument (README.md) checks its "## Published results" section, which is
# plain Markdown, so it may hold no reference at all.  Exit 0 clean, 1 on
# any problem (one line each: FILE:LINE: "figure": reason), 2 usage or a
# missing build.  Environment: NP_REPORT (default
# <NP_BUILD or root/build>/report/netproof-report) is the report program;
# NP_RESULTS (default <root>/results) the folder of result sets.
#
# 1. No bare measured-looking number.  Outside references ({{...}},
#    report/np_report_refs.h), code spans, fenced code, link targets, HTML
#    comments and quoted blocks whose first line starts with
#    "> **Not measured here" (figures from a paper, another tool's notes or
#    arithmetic bounds, each saying where it came from), a number is
#    measured-looking when it
#      - has a thousands separator (81,602) or decimals (0.84),
#      - is a percentage (31 %, 31%) or a ratio (0.83x, 2.9×),
#      - carries a unit: µs ms ns s B KiB MiB GiB kB MB GB bit/s Mbit/s
#        Gbit/s "round trips", or a k suffix (54k), or a "~" before it.
#    Configuration is not measurement: such a number is allowed when its
#    value (bytes for B/KiB/MiB, bit/s for Mbit/s and Gbit/s, a fraction
#    for %) equals an option value of a configuration in the sets'
#    summary.json (payload, clients, window, seconds, buffer, bitrate,
#    rate fraction ...) or any number of a suite.json's "plan" (a plan
#    value whose key names a percent counts as a %), i.e. the plan set
#    it.  A "×" followed by a number is a product (16 × 256), not a
#    ratio.  Plain integers without a unit below 100 (16 clients, window 64, 3 rounds, 6 of 18) are not
#    measured-looking; from 100 up a bare integer is a count and is
#    measured-looking too, unless it is a configuration value as above or
#    a name ("RFC 8681", "issue 20", "reference 003", after RFC, issue,
#    reference, port, Linux or kernel).  Release numbers of netproof
#    named as versions (ALLOW_VERSIONS below) are allowed.
# 2. Every reference resolves: the readings are copied into a temporary
#    folder and `netproof-report --pages` runs over every set under
#    NP_RESULTS into it; a reference that does not resolve makes it exit 2
#    with "FILE:LINE: {{...}}: reason", reported here as a problem.
# Changing a figure by hand therefore fails: a bare figure fails step 1, a
# reference's expansion comes from the records.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
build=${NP_BUILD:-$root/build}
results=${NP_RESULTS:-$root/results}
report=${NP_REPORT:-$build/report/netproof-report}
[ $# -gt 0 ] || { echo "usage: check-readings.sh PAGES_DIR|FILE.md..." >&2; exit 2; }
for a in "$@"; do
  [ -e "$a" ] || { echo "check-readings: $a: no such file or folder" >&2; exit 2; }
done
rc=0
python3 - "$results" "$@" <<'PY' || rc=$?
import glob, json, os, re, sys

ALLOW_VERSIONS = {"0.1", "0.2", "0.2.0", "0.3", "0.3.0"}   # netproof releases, by name
LARGE_INTEGER = 100   # a bare integer from here up is a count, not prose
NAMED = re.compile(r"(RFC|issue|reference|port|Linux|kernel)\s+$", re.I)
results, args = sys.argv[1], sys.argv[2:]

# option values the plans set: configuration, not measurement
config = set()
def add_value(v):
    if isinstance(v, bool):
        return
    if isinstance(v, (int, float)):
        config.add(float(v))
    elif isinstance(v, str):
        m = re.fullmatch(r"(\d+(?:\.\d+)?)([kKMG]?)", v)
        if m:
            mul = {"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9}[m.group(2)]
            config.add(float(m.group(1)) * mul)
percent_config = set()   # plan values named *percent*, already in %
def add_plan(o, key=""):
    if isinstance(o, dict):
        for k, v in o.items():
            if k != "description":
                add_plan(v, k)
    elif isinstance(o, list):
        for v in o:
            add_plan(v, key)
    else:
        add_value(o)
        if "percent" in key and isinstance(o, (int, float)):
            percent_config.add(float(o))
def load(f):
    try:
        return json.load(open(f))
    except (OSError, ValueError) as e:
        print(f"check-readings: {f}: {e}", file=sys.stderr)
        sys.exit(2)
for f in sorted(glob.glob(os.path.join(results, "*", "summary.json"))):
    for c in load(f).get("configurations", []):
        for v in c.get("options", {}).values():
            add_value(v)
for f in sorted(glob.glob(os.path.join(results, "*", "suite.json"))):
    add_plan(load(f).get("plan", {}))

UNIT = (r"µs|μs|us|ms|ns|s|B|KiB|MiB|GiB|kB|KB|MB|GB|bit/s|Mbit/s|Gbit/s|"
        r"round trips")
NUM = re.compile(r"(~\s*)?(?<![\w.,/#-])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)*)"
                 r"(k\b)?(?:(\s?)(%|(?:×|x\b)(?!\s*\d)|(?:" + UNIT + r")(?![\w])))?")
SCALE = {"B": 1, "KiB": 1024, "MiB": 1048576, "GiB": 1 << 30, "kB": 1e3,
         "KB": 1e3, "MB": 1e6, "GB": 1e9, "bit/s": 1, "Mbit/s": 1e6,
         "Gbit/s": 1e9, "s": 1, "%": 0.01}

def strip(line):
    line = re.sub(r"\{\{.*?\}\}", " ", line)
    line = re.sub(r"`[^`]*`", " ", line)
    line = re.sub(r"\]\([^)]*\)", "]", line)
    line = re.sub(r"<!--.*?-->", " ", line)
    return line

def scan(name, lines, first_line, problems):
    fenced = quoted_exempt = False
    in_quote = False
    for i, raw in enumerate(lines):
        n = first_line + i
        s = raw.rstrip("\n")
        if s.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        if s.startswith(">"):
            if not in_quote:
                quoted_exempt = re.match(r">\s*\*\*not measured here",
                                         s, re.I) is not None
            in_quote = True
            if quoted_exempt:
                continue
        else:
            in_quote = quoted_exempt = False
        stripped = strip(s)
        for m in NUM.finditer(stripped):
            tilde, num, ksuf, _, unit = m.groups()
            measured = ("," in num or "." in num or ksuf or tilde
                        or unit is not None
                        or float(num) >= LARGE_INTEGER)
            if not measured:
                continue
            if num in ALLOW_VERSIONS and unit is None and not ksuf:
                continue
            if (unit is None and not ksuf and not tilde and "," not in num
                    and "." not in num
                    and NAMED.search(stripped[:m.start()])):
                continue   # a name: RFC 8681, issue 33, reference 003
            if unit in SCALE and not ksuf and not tilde:
                v = float(num.replace(",", "")) * SCALE[unit]
                if any(abs(v - c) <= 1e-9 * max(1, abs(c)) for c in config):
                    continue
                if unit == "%" and float(num.replace(",", "")) in percent_config:
                    continue
            if unit is None and not ksuf and not tilde and "." not in num:
                v = float(num.replace(",", ""))
                if v in config:
                    continue
            problems.append(f'{name}:{n}: "{m.group(0).strip()}": bare '
                            "measured-looking figure")

def join_refs(text):
    # references may wrap lines; blank them out keeping the line count
    return re.sub(r"\{\{.*?\}\}", lambda m: " " * 3 + "\n" * m.group(0).count("\n"),
                  text, flags=re.S)

problems = []
for a in args:
    if os.path.isdir(a):
        for f in sorted(glob.glob(os.path.join(a, "*.reading.md"))):
            text = join_refs(open(f, encoding="utf-8").read())
            scan(f, text.splitlines(), 1, problems)
    else:
        lines = open(a, encoding="utf-8").read().splitlines()
        start = next((i for i, l in enumerate(lines)
                      if l.strip() == "## Published results"), None)
        if start is None:
            problems.append(f"{a}: no '## Published results' section")
            continue
        end = next((i for i in range(start + 1, len(lines))
                    if lines[i].startswith("## ")), len(lines))
        sec = lines[start:end]
        for i, l in enumerate(sec):
            if "{{" in l:
                problems.append(f"{a}:{start + 1 + i}: a reference in plain "
                                "Markdown is never expanded")
        scan(a, sec, start + 1, problems)
for p in problems:
    print(p)
if any("bare measured-looking" in p for p in problems):
    print("check-readings: write each as a reference ({{SET: CONFIG QUANTITY}},"
          " report/np_report_refs.h) or quote it under **Not measured here**")
sys.exit(1 if problems else 0)
PY
[ $rc -le 1 ] || exit 2
# step 2: the references resolve (readings of the PAGES_DIR arguments)
for a in "$@"; do
  [ -d "$a" ] || continue
  ls "$a"/*.reading.md >/dev/null 2>&1 || continue
  [ -x "$report" ] || { echo "check-readings: $report not built" >&2; exit 2; }
  tmp=$(mktemp -d) || exit 2
  trap 'rm -rf "$tmp"' EXIT
  cp "$a"/*.reading.md "$tmp/"
  set --
  for d in "$results"/*/; do
    [ -f "$d/suite.json" ] && set -- "$@" --results "${d%/}"
  done
  out=$("$report" --pages "$@" --output "$tmp" 2>&1 </dev/null)
  prc=$?
  if [ $prc -ne 0 ]; then
    # name the reading as the caller gave it, not the temporary copy
    printf '%s\n' "$out" | grep -v '^netproof-report: wrote' |
      sed "s|$tmp/|$a/|g; s|^netproof-report: ||"
    rc=1
  fi
  rm -rf "$tmp"
  trap - EXIT
done
exit $rc
