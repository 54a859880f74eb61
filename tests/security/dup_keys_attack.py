#!/usr/bin/env python3
"""Attack: one JSON text, two meanings.  cJSON keeps the first of two equal
member names, Python and jq the last, so a file with a name twice showed
different numbers to different readers and still passed the self-check,
pack and verify.  Every kind of file a reader takes - a record,
suite.json, summary.json, a plan, compare.json, a bundle's evidence.json,
a program's JSON output read by exec - must be refused, naming the file
and the member, before any value is used.

usage: dup_keys_attack.py BUILD_DIR SOURCE_DIR
"""
import gzip
import io
import json
import os
import sys
import tarfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from jbsec import (Box, args, check, copy_set, finish, first_record, fixture,
                   replace_once, run, tools)


def self_check_refuses(t, box, what, set_dir, needle):
    rc, out, err = run([t["report"], "--self-check", "--results", set_dir])
    check(rc == 1 and needle in out,
          f"{what}: self-check exit {rc} (want 1), '{needle.decode()}'")
    rc, out, err = run([t["report"], "--results", set_dir, "--output",
                        box.out])
    check(rc != 0 and not os.path.exists(os.path.join(box.out, "index.md")),
          f"{what}: not rendered (exit {rc})")
    rc, out, err = run([t["archive"], "pack", set_dir, "-o",
                        os.path.join(box.out, "b.tar.gz")])
    check(rc == 1 and not os.path.exists(os.path.join(box.out, "b.tar.gz")),
          f"{what}: not packed (exit {rc})")


def main():
    build, source = args()
    t = tools(build)
    box = Box("dupkeys")
    try:
        # a record: "status" twice (the first says passed)
        s1 = copy_set(fixture(source), os.path.join(box.inp, "rec"))
        rec = first_record(s1)
        replace_once(rec, b'"status":\t"passed",',
                     b'"status":\t"passed", "status": "failed",')
        # summary.json: a median twice
        s2 = copy_set(fixture(source), os.path.join(box.inp, "sum"))
        replace_once(os.path.join(s2, "summary.json"), b'"median":\t',
                     b'"median": 1000000, "median":\t')
        # suite.json: the suite's name twice
        s3 = copy_set(fixture(source), os.path.join(box.inp, "suite"))
        replace_once(os.path.join(s3, "suite.json"),
                     b'"suite":\t"selfcheck-udp",',
                     b'"suite":\t"selfcheck-udp", "suite": "other",')
        # a plan
        plan = os.path.join(box.inp, "plan.json")
        open(plan, "w").write(
            '{"schema": "netproof/plan/1", "suite": "dup", "repetitions": 1,'
            ' "repetitions": 1000, "base": {"seconds": 0.1},'
            ' "dimensions": {"payload": [64]}}\n')
        # compare.json (the compare gate's output, read back by validate)
        cmp_doc = os.path.join(box.inp, "compare.json")
        open(cmp_doc, "w").write('{"schema": "netproof/compare/1", '
                                 '"schema": "netproof/compare/1"}\n')
        # a program whose JSON output names its metric twice
        prog = os.path.join(box.inp, "prog.sh")
        open(prog, "w").write('#!/bin/sh\necho \'{"rate": 1, "rate": 1000000}\'\n')
        os.chmod(prog, 0o755)
        box.seal()

        self_check_refuses(t, box, "record", s1,
                           b"rep-1.json: /status: duplicate member name")
        self_check_refuses(
            t, box, "summary.json", s2,
            b"summary.json: /configurations/0/stats/roundtrips_per_sec/"
            b"median: duplicate member name")
        self_check_refuses(t, box, "suite.json", s3,
                           b"suite.json: /suite: duplicate member name")

        rc, out, err = run([t["bench"], "matrix", plan, "--dry-run"])
        check(rc == 2 and b"/repetitions: duplicate member name" in err,
              f"plan: matrix --dry-run exit {rc} (want 2): {err[:200]!r}")
        rc, out, err = run([t["validate"], cmp_doc])
        check(rc != 0 and b"/schema: duplicate member name" in out + err,
              f"compare.json: validate exit {rc}: {(out + err)[:200]!r}")

        # a bundle whose evidence.json holds a member twice, re-bagged
        # consistently (its tag manifest line updated): verify refuses it
        # for the duplicate, not for a checksum
        good = os.path.join(box.out, "good.tar.gz")
        rc, out, err = run([t["archive"], "pack", fixture(source), "-o",
                            good])
        check(rc == 0, f"pack of the clean fixture (exit {rc}) {err[:200]!r}")
        evil = os.path.join(box.out, "evil.tar.gz")
        rebag_evidence(good, evil)
        rc, out, err = run([t["archive"], "verify", evil])
        check(rc == 1 and b"evidence.json" in err and
              b"duplicate member name" in err and b"checksum" not in err,
              f"evidence.json: verify exit {rc}: {err[:300]!r}")

        # a program's JSON output, read by exec for a metric
        recf = os.path.join(box.out, "exec.json")
        rc, out, err = run([t["bench"], "exec", "--timeout", "10", "--quiet",
                            "--metric", "rate=json:/rate", "--output", recf,
                            "--", prog])
        text = open(recf, "rb").read() if os.path.exists(recf) else b""
        check(rc == 1 and b"duplicate member name" in text + err and
              b'"failed"' in text,
              f"exec metric from duplicate names: exit {rc} (want 1, "
              f"the run failed): {err[:200]!r}")
        box.check_nothing_outside("duplicate names")
    finally:
        box.close()
    finish("dup_keys_attack")


def rebag_evidence(good, evil):
    """good's members with a duplicated first member in evidence.json and
    the tag manifest's digest of it updated, in the same order."""
    import hashlib
    raw = gzip.decompress(open(good, "rb").read())
    src = tarfile.open(fileobj=io.BytesIO(raw))
    members = [(m, src.extractfile(m).read() if m.isfile() else None)
               for m in src.getmembers()]
    ev = next(m.name for m, _ in members if m.name.endswith("/evidence.json"))
    data = dict((m.name, d) for m, d in members)
    text = data[ev].decode()
    doc = json.loads(text)
    k = next(iter(doc))
    body = text.lstrip()
    assert body.startswith("{")
    new_ev = ("{" + json.dumps(k) + ": " + json.dumps(doc[k]) + ", " +
              body[1:]).encode()
    tm_name = ev.rsplit("/", 1)[0] + "/tagmanifest-sha256.txt"
    old_h = hashlib.sha256(data[ev]).hexdigest().encode()
    new_h = hashlib.sha256(new_ev).hexdigest().encode()
    data[ev] = new_ev
    data[tm_name] = data[tm_name].replace(old_h, new_h)
    bio = io.BytesIO()
    with tarfile.open(fileobj=bio, mode="w", format=src.format) as out:
        for m, _ in members:
            d = data[m.name]
            if d is not None:
                m.size = len(d)
            out.addfile(m, io.BytesIO(d) if d is not None else None)
    open(evil, "wb").write(gzip.compress(bio.getvalue(), mtime=0))


if __name__ == "__main__":
    main()
