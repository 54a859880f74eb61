#!/usr/bin/env python3
"""docs_test.py DOCGEN MANDIR BENCH REPORT ARCHIVE VALIDATE SRC - the man
pages cannot drift from the programs.

- Every row of every option table (np_docgen options) is a term of its
  command's rendered page (MANDIR/man1/netproof-bench-CMD.1, or the
  program's page for a program's own table: netproof-validate), in table
  order, with the same placeholder and every choice value, and the page
  has no option the table lacks; and it is in that command's --help.
- Every command `netproof-bench --help` lists has its page (roff and
  gzipped), and there is no page for a command that does not exist.
- Every command has an option table, and every program (netproof-bench
  itself too) has one behind its page's OPTIONS: nothing is parsed by
  hand, so no page's options are written by hand.
- The generic page a new table command gets (np_docgen man-generic,
  rendered with scdoc) holds every row of each table as well.
- Every page has a NAME line "name \\- summary" and renders without a
  groff warning.
- A page's prose that counts a choice option's values ("one of four IO
  models" for --io-model) counts as many as the table offers.
- The checks themselves: a page with a row removed, a --help with an
  option added and a stale count in prose are all caught.
"""
import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "lib"))
import nptest  # noqa: E402

DOCGEN, MANDIR, BENCH, REPORT, ARCHIVE, VALIDATE, SRC = sys.argv[1:8]
MAN1 = os.path.join(MANDIR, "man1")
T = nptest.Checks()
check = T.check


def run(argv):
    rc, out, err = nptest.run(argv, timeout=20)
    return rc, out + err


def table_rows():
    """{command: [(option, metavar, [choices])]} from the option tables."""
    rc, out = run([DOCGEN, "options"])
    check(rc == 0, "np_docgen options exits 0")
    rows = {}
    for line in out.splitlines():
        cmd, opt, mv, choices = line.split("\t")
        rows.setdefault(cmd, []).append((opt, mv, choices.split()))
    return rows


def roff_section(text, name):
    """The lines of section .SH NAME of a roff page."""
    lines, inside = [], False
    for line in text.splitlines():
        if line.startswith(".SH "):
            inside = line[4:].strip().strip('"') == name
            continue
        if inside:
            lines.append(line)
    return lines


# a placeholder may hold roff's "\&" (scdoc writes KEY.pem as KEY.\&pem)
TERM = re.compile(r"^\\fB(--?[A-Za-z0-9][\w-]*)\\fR(?: \\fI((?:[^\\]|\\&)*)\\fR)?")


def roff_terms(text, section="OPTIONS"):
    """[(option, metavar, description)] of a page's OPTIONS section (or
    another: "COMPARE OPTIONS")."""
    terms, cur = [], None
    for line in roff_section(text, section):
        m = TERM.match(line)
        if m:
            cur = [m.group(1), (m.group(2) or "").replace("\\&", ""), ""]
            terms.append(cur)
        elif cur is not None and not line.startswith("."):
            cur[2] += line + " "
    return [tuple(t) for t in terms]


def page(name):
    path = os.path.join(MAN1, name + ".1")
    return open(path, encoding="utf-8").read() if os.path.exists(path) else None


def table_problems(cmd, rows, text, section="OPTIONS"):
    """What a table command's page lacks (empty: nothing)."""
    if text is None:
        return ["%s: no page" % cmd]
    terms = roff_terms(text, section)
    names = [t[0] for t in terms]
    probs = []
    for opt, mv, choices in rows:
        if opt not in names:
            probs.append("%s: %s is in the table, not in the page" % (cmd, opt))
            continue
        t = terms[names.index(opt)]
        if t[1] != mv:
            probs.append("%s %s: page shows '%s', table '%s'" % (cmd, opt, t[1], mv))
        for c in choices:
            if "\\fB%s\\fR" % c not in t[2]:
                probs.append("%s %s: choice %s not in the page" % (cmd, opt, c))
    table_order = [r[0] for r in rows]
    if [n for n in names if n in table_order] != table_order:
        probs.append("%s: page options not in table order" % cmd)
    extra = [n for n in names if n not in table_order]
    if extra:
        probs.append("%s: page options not in the table: %s" % (cmd, extra))
    return probs


NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
           "seven": 7, "eight": 8, "nine": 9, "ten": 10}


def prose_count_problems(cmd, rows, text):
    """Counts in a page's text ("four IO models") of the values of a
    choice row (io-model: "IO models", "io models") that differ from the
    number the table offers."""
    if text is None:
        return []
    plain = re.sub(r"\\f[BIRP]", "", text)
    plain = re.sub(r"\s+", " ", plain.replace("\\-", "-"))
    probs = []
    for opt, _, choices in rows:
        if len(choices) < 2:
            continue
        noun = re.escape(opt.lstrip("-")).replace("\\-", "[ -]")
        for m in re.finditer(r"(?i)\b(%s|\d+) %ss?\b"
                             % ("|".join(NUMBERS), noun), plain):
            word = m.group(1).lower()
            n = NUMBERS.get(word) or int(word)
            if n != len(choices):
                probs.append("%s: the page says '%s', the table offers %d "
                             "(%s)" % (cmd, m.group(0), len(choices),
                                       " ".join(choices)))
    return probs


def bench_commands():
    """The commands `netproof-bench --help` lists under "commands:"."""
    rc, out = run([BENCH, "--help"])
    check(rc == 0, "netproof-bench --help exits 0")
    block = out.split("commands:\n", 1)[-1].split("\n\n", 1)[0]
    return re.findall(r"(?m)^  ([a-z][\w-]*) ", block), out


def main():
    rows = table_rows()
    check(set(rows) >= {"udp", "rudp", "exec"}, "tables of udp, rudp, exec")
    cmds, bench_help = bench_commands()
    check(set(cmds) >= {"udp", "rudp", "exec", "matrix"},
          "netproof-bench --help lists its commands: %s" % cmds)

    # programs' own tables: their page and --help hold every row
    table_programs = set()
    validate_rows = rows.get("netproof-validate", [])
    programs = {"netproof-validate": VALIDATE, "netproof-report": REPORT,
                "netproof-archive": ARCHIVE, "netproof-bench": BENCH}
    for cmd in [c for c in rows if c.startswith("netproof-")]:
        r = rows.pop(cmd)
        name, _, marker = cmd.partition("/")
        sub = marker[len("OPTIONS-"):].lower()
        check(name in programs, "%s: a program's table" % cmd)
        # a subcommand's table is its own section: "COMPARE OPTIONS"
        section = "%s OPTIONS" % sub.upper() if sub else "OPTIONS"
        for p in table_problems(cmd, r, page(name), section):
            check(False, p)
        rc, help_text = run([programs.get(name, name)] + ([sub] if sub else [])
                            + ["--help"])
        check(rc == 0, "%s --help exits 0" % name)
        for opt, _, _ in r:
            check(re.search(r"(?m)^  %s\b" % re.escape(opt), help_text),
                  "%s --help shows %s" % (cmd, opt))
        table_programs.add(name)
    check(table_programs == set(programs),
          "every program is checked against its table: %s" % table_programs)

    # table commands: page and --help hold every row
    for cmd, r in rows.items():
        check(cmd in cmds, "%s has a table and is a command" % cmd)
        for p in table_problems(cmd, r, page("netproof-bench-" + cmd)):
            check(False, p)
        for p in prose_count_problems(cmd, r, page("netproof-bench-" + cmd)):
            check(False, p)
        rc, help_text = run([BENCH, cmd, "--help"])
        check(rc == 0, "%s --help exits 0" % cmd)
        for opt, _, _ in r:
            check(re.search(r"(?m)^  %s\b" % re.escape(opt), help_text),
                  "%s --help shows %s" % (cmd, opt))

    # a new command's page: the generic template alone
    scdoc = shutil.which("scdoc")
    check(scdoc is not None, "scdoc (a build package) is installed")
    with tempfile.TemporaryDirectory() as d:
        rc, out = run([DOCGEN, "man-generic", os.path.join(SRC, "man"), d])
        check(rc == 0, "np_docgen man-generic: %s" % out)
        for cmd, r in rows.items():
            scd = os.path.join(d, "netproof-bench-%s.1.scd" % cmd)
            p = subprocess.run([scdoc], stdin=open(scd), capture_output=True,
                               text=True, timeout=20) if scdoc else None
            check(p is not None and p.returncode == 0,
                  "generic page of %s renders: %s" % (cmd, p and p.stderr))
            for prob in table_problems(cmd, r, p.stdout if p else None):
                check(False, "generic page: " + prob)

    # every command has its page, and no page is stale
    for cmd in cmds:
        for suffix in (".1", ".1.gz"):
            check(os.path.exists(os.path.join(MAN1, "netproof-bench-%s%s" % (cmd, suffix))),
                  "page netproof-bench-%s%s" % (cmd, suffix))
    for f in sorted(os.listdir(MAN1)):
        m = re.match(r"^netproof-bench-(.+)\.1$", f)
        if m:
            check(m.group(1) in cmds, "%s documents an existing command" % f)

    # nothing parses by hand: every command has its table
    check(sorted(rows) == sorted(cmds),
          "every command has an option table: %s" % sorted(set(cmds) ^ set(rows)))

    # every page: whatis line, gz equal to roff, renders cleanly
    groff = shutil.which("groff")
    pages = sorted(f[:-2] for f in os.listdir(MAN1) if f.endswith(".1"))
    check(len(pages) == 4 + len(cmds), "one page per program and command: %s" % pages)
    for name in pages:
        text = page(name)
        nl = roff_section(text, "NAME")
        check(any(re.match(r"^%s \\?- \S" % re.escape(name), l) for l in nl),
              "%s: NAME line 'name - summary'" % name)
        with gzip.open(os.path.join(MAN1, name + ".1.gz"), "rt",
                       encoding="utf-8") as g:
            check(g.read() == text, "%s.1.gz is %s.1" % (name, name))
        if groff:
            p = subprocess.run([groff, "-man", "-Tutf8", "-ww", "-z",
                                os.path.join(MAN1, name + ".1")],
                               capture_output=True, text=True, timeout=20)
            check(p.returncode == 0 and p.stderr == "",
                  "%s renders without warnings: %s" % (name, p.stderr.strip()))

    # the checks catch drift
    udp = page("netproof-bench-udp")
    cut = re.sub(r"(?m)^\\fB--seconds\\fR.*\n", "", udp)
    check(any("--seconds is in the table, not in the page" in p
              for p in table_problems("udp", rows["udp"], cut)),
          "a row missing from a page is caught")
    stale = udp.replace("under one of the IO\nmodels",
                        "under one of four IO\nmodels", 1)
    check(stale != udp, "the udp page's IO-model sentence is where expected")
    probs = prose_count_problems("udp", rows["udp"], stale)
    check(any("'four IO models'" in p for p in probs),
          "a stale count of choices in prose is caught: %s" % probs)
    vpage = page("netproof-validate") or ""
    cut = re.sub(r"(?m)^\\fB--output\\fR.*\n", "", vpage)
    check(cut != vpage and any(
        "--output is in the table, not in the page" in p
        for p in table_problems("v", validate_rows, cut)),
        "a program's table row missing from its page is caught")
    mpage = page("netproof-bench-matrix") or ""
    cut = re.sub(r"(?m)^\\fB--plans-dir\\fR.*\n", "", mpage)
    check(cut != mpage and any(
        "--plans-dir is in the table, not in the page" in p
        for p in table_problems("matrix", rows["matrix"], cut)),
        "a matrix row missing from its page is caught")
    extra = mpage.replace(".SH OPTIONS\n", ".SH OPTIONS\n\\fB--bogus\\fR\n.RS 4\nnew\n.RE\n", 1)
    check(extra != mpage and any(
        "page options not in the table: ['--bogus']" in p
        for p in table_problems("matrix", rows["matrix"], extra)),
        "an option the table lacks on a page is caught")

    if T.fails:
        print("%d failure(s)" % len(T.fails))
        return 1
    print("docs_test: %d table rows, %d pages, all consistent"
          % (sum(len(r) for r in rows.values()), len(pages)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
