#!/usr/bin/env python3
"""Attack: a file that writes on the reader's terminal.  A member named
"\\u001b[2J\\nnetproof-report: self-check clean" cleared the screen and
printed a fake verdict in netproof-report's problem lines.  Member names,
file names and labels reach the terminal only escaped (\\xNN for C0, DEL,
C1 and bytes that are not UTF-8), one problem per line.

usage: terminal_escape_attack.py BUILD_DIR SOURCE_DIR
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from jbsec import (Box, args, check, copy_set, finish, first_record, fixture,
                   run, tools)

EVIL = "\x1b[2J\x1b[H\nnetproof-report: self-check clean\n\x9b31m\x07"
FORGED = b"netproof-report: self-check clean"


def clean_bytes(b):
    """No control byte but the newline, no DEL, no C1 control."""
    return (not any((c < 0x20 and c != 0x0a) or c == 0x7f for c in b) and
            not any(b[i] == 0xc2 and 0x80 <= b[i + 1] <= 0x9f
                    for i in range(len(b) - 1)))


def main():
    build, source = args()
    t = tools(build)
    box = Box("termesc")
    try:
        # a record with a member of that name (valid JSON: escaped)
        s1 = copy_set(fixture(source), os.path.join(box.inp, "member"))
        rec = first_record(s1)
        doc = json.load(open(rec))
        doc[EVIL] = 1
        open(rec, "w").write(json.dumps(doc))
        # a file of that name among a repetition's files
        s2 = copy_set(fixture(source), os.path.join(box.inp, "filename"))
        cfg = os.path.dirname(first_record(s2))
        open(os.path.join(cfg, "rep-1." + EVIL.replace("\n", "_") + ".txt"),
             "w").write("x\n")
        # a set folder (the label) of that name
        s3 = copy_set(fixture(source), os.path.join(
            box.inp, "\x1b[2J" + "\x1b]0;owned\x07"))
        rec3 = first_record(s3)
        doc3 = json.load(open(rec3))
        doc3["extra"] = 1
        open(rec3, "w").write(json.dumps(doc3))
        # a lone document for netproof-validate
        lone = os.path.join(box.inp, "lone.json")
        open(lone, "w").write(json.dumps({"schema": "netproof/compare/1",
                                          EVIL: 1}))
        box.seal()
        for name, argv in [
                ("member name, self-check",
                 [t["report"], "--self-check", "--results", s1]),
                ("file name, self-check",
                 [t["report"], "--self-check", "--results", s2]),
                ("label, self-check",
                 [t["report"], "--self-check", "--results", s3]),
                ("label, report",
                 [t["report"], "--results", s3, "--output", box.out]),
                ("member name, report",
                 [t["report"], "--results", s1, "--output", box.out]),
                ("member name, pack",
                 [t["archive"], "pack", s1, "-o",
                  os.path.join(box.out, "b.tar.gz")]),
                ("member name, validate", [t["validate"], lone])]:
            rc, out, err = run(argv)
            both = out + err
            check(rc in (1, 2) and clean_bytes(both),
                  f"{name}: exit {rc}, no control byte on the terminal")
            forged = [ln for ln in both.splitlines() if ln.startswith(FORGED)]
            check(forged == [], f"{name}: no forged verdict line")
            check(b"\\x1b[2J" in both,
                  f"{name}: the name is shown, escaped: "
                  f"{both[:160]!r}")
        box.check_nothing_outside("escape sequences")
    finally:
        box.close()
    finish("terminal_escape_attack")


if __name__ == "__main__":
    main()
