#!/usr/bin/env python3
"""record_snapshots_test.py BUILD_DIR - a record written under the matrix
runner refers to the runner's snapshot before it (kernel-snapshots/) for
its own kernel.before / kernel.after, with the counters that changed
({"snapshot_sha256": hex, "changed": {...}}, docs/results-layout.md), and
keeps kernel.delta inline; a standalone run keeps its snapshots inline.

A tiny real suite (one configuration, two repetitions of 0.2 s) is run:
every record refers by hash, each referenced file is in the set (the
runner's end-of-session sweep keeps what only a record refers to), the
set self-checks clean, the report reads the referenced counters (the
loopback MTU line), and a bundle carries each snapshot once.  Then each
kind of damage is named on its own line with exit 1: a reference to a
file the set lacks, a malformed reference, before and after swapped (the
delta re-derived from the references no longer matches), a changed
counter the referenced snapshot lacks, a referenced file changed.  Prints the bytes per record beside the bytes
the snapshots would take inline.

The same records carry tool.measuring_source_sha256, equal to suite.json's
and to `scripts/source-hash.sh --measuring` of this tree; a record with
another value, or without one, is named (mixed builds).
"""
import json
import os
import shutil
import sys
import tarfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "lib"))
import nptest  # noqa: E402

build = sys.argv[1]
bench = os.path.join(build, "bench", "netproof-bench")
report = os.path.join(build, "report", "netproof-report")
archive = os.path.join(build, "archive", "netproof-archive")
T = nptest.Checks()
check = T.check
SNAP = "kernel-snapshots"
CID = "udp-p64-c2-w1-single-uv"
REC = f"runs/{CID}/rep-1.json"

PLAN = {
    "schema": "netproof/plan/1",
    "suite": "record-snapshots",
    "description": "two short repetitions for the record snapshot test",
    "protocol": "udp",
    "repetitions": 2,
    "timeout_seconds": 30,
    "base": {"payload": 64, "clients": 2, "window": 1, "warmup": 0.1,
             "seconds": 0.2},
    "configurations": [{"io-model": "single", "backend": "uv"}],
}


def records(d):
    out = []
    for top, _, files in os.walk(os.path.join(d, "runs")):
        out += [os.path.join(top, f) for f in sorted(files)
                if f.endswith(".json")]
    return out


def selfcheck(d):
    return nptest.run([report, "--self-check", "--results", d], timeout=60)


def edit_record(d, fn):
    p = os.path.join(d, REC)
    doc = json.load(open(p))
    fn(doc["kernel"])
    json.dump(doc, open(p, "w"), indent="\t")


def tamper(tmp, name, edit, want, all_referred=False):
    """A copy of the set edited by edit(d): exit 1 and want on a line;
    with all_referred, no snapshot reported as referred to by nobody (a
    reference to a damaged file is still a reference)."""
    d = os.path.join(tmp, name)
    shutil.copytree(os.path.join(tmp, "set"), d)
    edit(d)
    rc, out, err = selfcheck(d)
    check(rc == 1 and f"{name}/{want}" in out,
          f"{name}: want exit 1 and {want!r}, got {rc}: {out[-1500:]}")
    check(not all_referred or "refers to it" not in out,
          f"{name}: a referenced snapshot called unreferenced: {out[-1500:]}")


def missing(d):
    edit_record(d, lambda k: k["after"].update(snapshot_sha256="0" * 64))


def malformed(d):
    edit_record(d, lambda k: k["before"].update(snapshot_sha256="ABC"))


def set_tool(d, value):
    p = os.path.join(d, REC)
    doc = json.load(open(p))
    if value is None:
        del doc["tool"]["measuring_source_sha256"]
    else:
        doc["tool"]["measuring_source_sha256"] = value
    json.dump(doc, open(p, "w"), indent="\t")


def stranger(d):
    edit_record(d, lambda k: k["after"]["changed"].update({"Udp.Nope": 1}))


def swap(d):
    def fn(k):
        k["before"], k["after"] = k["after"], k["before"]
    edit_record(d, fn)


def changed(d):
    h = json.load(open(os.path.join(d, REC)))["kernel"]["before"][
        "snapshot_sha256"]
    p = os.path.join(d, SNAP, h + ".txt")
    open(p, "ab").write(b"\n")


def standalone(tmp):
    """A run outside the runner keeps its snapshots inline."""
    out = os.path.join(tmp, "alone.json")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("NETPROOF_")}
    env["NETPROOF_KERNEL_SNAPSHOTS"] = os.path.join(tmp, "nowhere")
    rc, _, err = nptest.run([bench, "udp", "--payload", "64", "--clients",
                             "2", "--seconds", "0.2", "--warmup", "0.1",
                             "--output", out], timeout=60, env=env)
    check(rc == 0, f"standalone udp: exit {rc}: {err[-800:]}")
    if rc != 0:
        return 0
    k = json.load(open(out))["kernel"]
    check("counters" in k["before"] and "counters" in k["after"],
          f"standalone record: snapshots not inline: {list(k['before'])}")
    check(not os.path.exists(os.path.join(tmp, "nowhere")),
          "standalone run wrote a snapshot folder without a runner session")
    return os.path.getsize(out)


def main():
    with nptest.tmpdir("np-recsnap-", T) as tmp:
        plan = os.path.join(tmp, "plan.json")
        json.dump(PLAN, open(plan, "w"))
        d = os.path.join(tmp, "set")
        rc, _, err = nptest.run([bench, "matrix", plan, "--output", d,
                                 "--quiet"], timeout=120)
        check(rc == 0, f"matrix: exit {rc}: {err[-1500:]}")
        if rc != 0:
            return T.done()
        recs = records(d)
        check(len(recs) == 2, f"want 2 records, got {recs}")
        for p in recs:
            k = json.load(open(p))["kernel"]
            for w in ("before", "after"):
                ref = k[w].get("snapshot_sha256", "")
                check(list(k[w]) == ["snapshot_sha256", "changed"],
                      f"{p}: kernel.{w} is not a reference: {list(k[w])}")
                cmd = open(p[:-len(".json")] + ".cmd.txt").read()
                check(f"kernel_before_sha256: {ref}\n" in cmd,
                      f"{p}: kernel.{w} {ref} is not the runner's before")
                check(os.path.isfile(os.path.join(d, SNAP, ref + ".txt")),
                      f"{p}: kernel.{w} {ref}: not in {SNAP}/")
            check(isinstance(k.get("delta"), dict) and
                  "Udp.InDatagrams" in k["delta"],
                  f"{p}: kernel.delta not inline")
        rc, out, err = selfcheck(d)
        check(rc == 0 and "self-check clean" in err,
              f"self-check: exit {rc}: {out[-1500:]}{err[-500:]}")
        rep = os.path.join(tmp, "report")
        rc, _, err = nptest.run([report, "--results", d, "--output", rep],
                                timeout=60)
        check(rc == 0, f"report: exit {rc}: {err[-800:]}")
        if rc == 0:
            text = open(os.path.join(rep, "index.md")).read()
            check("loopback MTU recorded in these runs: 65,536" in text,
                  "report: the referenced kernel.before's lo.mtu not read")
        alone = standalone(tmp)
        per = sum(os.path.getsize(p) for p in recs) / len(recs)
        print(f"bytes per record: {per:.0f} by reference, {alone} for a "
              f"standalone record with its snapshots inline; "
              f"{len(os.listdir(os.path.join(d, SNAP)))} snapshot files "
              f"for {len(recs)} repetitions")
        tamper(tmp, "missing", missing,
               f"{REC}: /kernel/after: snapshot_sha256 {'0' * 64}: no "
               f"{SNAP}/{'0' * 64}.txt in the set")
        tamper(tmp, "malformed", malformed,
               f"{REC}: /kernel/before: snapshot_sha256: not 64 lowercase "
               "hex digits")
        tamper(tmp, "swap", swap, f"{REC}: /kernel/delta")
        h = json.load(open(os.path.join(d, REC)))["kernel"]["after"][
            "snapshot_sha256"]
        tamper(tmp, "stranger", stranger,
               f"{REC}: /kernel/after: {SNAP}/{h}.txt: changed Udp.Nope: not "
               "a counter of the referenced snapshot")
        h = json.load(open(os.path.join(d, REC)))["kernel"]["before"][
            "snapshot_sha256"]
        tamper(tmp, "changed", changed,
               f"{SNAP}/{h}.txt: /: its content's SHA-256 is ",
               all_referred=True)
        src = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           os.pardir, os.pardir)
        rc, want, _ = nptest.run(["sh", os.path.join(src, "scripts",
                                                     "source-hash.sh"),
                                  "--measuring", src])
        want = want.strip()
        suite = json.load(open(os.path.join(d, "suite.json")))
        for p in recs:
            got = json.load(open(p))["tool"].get("measuring_source_sha256")
            check(got == want == suite["tool"]["measuring_source_sha256"],
                  f"{p}: measuring hash {got}, tree {want}")
        tamper(tmp, "othermeas", lambda x: set_tool(x, "a" * 64),
               f"{REC}: /tool/measuring_source_sha256: {'a' * 64}, but "
               f"suite.json's is {want} (mixed builds")
        tamper(tmp, "nomeas", lambda x: set_tool(x, None),
               f"{REC}: /tool/measuring_source_sha256: absent, but "
               "suite.json's tool has one (mixed builds")
        bundle = os.path.join(tmp, "set.tar.gz")
        rc, _, err = nptest.run([archive, "pack", d, "--output", bundle],
                                timeout=60)
        check(rc == 0, f"pack: exit {rc}: {err[-800:]}")
        if rc == 0:
            with tarfile.open(bundle) as tf:
                names = [m.name for m in tf.getmembers()
                         if f"/{SNAP}/" in m.name]
            n = len(os.listdir(os.path.join(d, SNAP)))
            check(len(names) == n == len(set(names)),
                  f"bundle holds {len(names)} snapshots, want {n}")
            rc, _, err = nptest.run([archive, "verify", bundle], timeout=60)
            check(rc == 0, f"verify: exit {rc}: {err[-800:]}")
    return T.done("record_snapshots_test: ok")


if __name__ == "__main__":
    sys.exit(main())
