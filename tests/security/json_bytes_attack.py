#!/usr/bin/env python3
"""Attack: JSON that parsers read differently at the byte level.  Invalid
UTF-8 (Python refuses it, cJSON copies it through), a raw control
character in a string (RFC 8259 forbids it; cJSON took it), "\\u0000"
(cJSON cuts the string there: "a\\u0000b" reads as "a"), a lone surrogate,
nesting past the depth limit, and an integer written as 1.0 or past 2^53
where the schema says integer.  Each is refused in a record by the
self-check, and in a document by netproof-validate, with the file, the
JSON pointer and the reason.

usage: json_bytes_attack.py BUILD_DIR SOURCE_DIR
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from jbsec import (Box, args, check, copy_set, finish, first_record, fixture,
                   replace_once, run, tools)

# (name, bytes replacing the record's status value, what must be said)
CASES = [
    ("invalid UTF-8", b'"pass\xffed"',
     b"/status: invalid UTF-8 in a string"),
    ("overlong UTF-8", b'"pass\xc0\xafed"',
     b"/status: invalid UTF-8 in a string"),
    ("raw control character", b'"pass\x1b[2Jed"',
     b"/status: unescaped control character in a string"),
    ("escaped NUL", b'"passed\\u0000x"',
     b"/status: \\u0000 (NUL) in a string"),
    ("lone surrogate", b'"pass\\ud800ed"',
     b"/status: lone UTF-16 surrogate in a string"),
    ("over-deep nesting", b"[" * 100 + b"]" * 100,
     b"/status/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/"
     b"0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0: "
     b"nesting deeper than 64"),
]


def main():
    build, source = args()
    t = tools(build)
    box = Box("jsonbytes")
    try:
        sets = []
        for i, (name, value, needle) in enumerate(CASES):
            d = copy_set(fixture(source), os.path.join(box.inp, f"s{i}"))
            replace_once(first_record(d), b'"status":\t"passed"',
                         b'"status":\t' + value)
            sets.append((name, d, needle))
        # integers that are not exact as written, where the schema says
        # integer: 1.0 (another reader keeps a float) and 2^53 + 1
        d = copy_set(fixture(source), os.path.join(box.inp, "int1"))
        replace_once(first_record(d), b"\"clients\":\t4,",
                     b'"clients":\t4.0,')
        sets.append(("integer written 1.0", d,
                     b"/config/clients: schema: type: expected integer, got "
                     b"number written with a fraction or exponent"))
        d = copy_set(fixture(source), os.path.join(box.inp, "int2"))
        replace_once(first_record(d), b"\"clients\":\t4,",
                     b'"clients":\t9007199254740993,')
        sets.append(("integer past 2^53", d,
                     b"/config/clients: schema: type: expected integer, got an "
                     b"integer beyond 2^53-1"))
        docs = []
        for i, (name, value, needle) in enumerate(CASES[:5]):
            p = os.path.join(box.inp, f"doc{i}.json")
            open(p, "wb").write(b'{"schema": "netproof/compare/1", "x": ' +
                                value + b"}\n")
            docs.append((name, p, needle.replace(b"/status", b"/x")))
        box.seal()
        for name, d, needle in sets:
            rc, out, err = run([t["report"], "--self-check", "--results", d])
            line = next((ln for ln in out.splitlines() if needle in ln), b"")
            check(rc == 1 and line.startswith(os.path.basename(d).encode() +
                                               b"/runs/"),
                  f"{name}: self-check exit {rc} (want 1), "
                  f"'{needle.decode(errors='replace')[:70]}'")
            check(not any(c < 0x20 and c != 0x0a for c in out),
                  f"{name}: no control byte reaches the terminal")
        for name, p, needle in docs:
            rc, out, err = run([t["validate"], p])
            check(rc == 2 and needle in out + err and
                  (out + err).startswith(p.encode() + b": "),
                  f"{name}: validate exit {rc} (want 2): {(out + err)[:160]!r}")
        box.check_nothing_outside("byte-level JSON")
    finally:
        box.close()
    finish("json_bytes_attack")


if __name__ == "__main__":
    main()
