#!/usr/bin/env python3
"""snapshots_test.py BUILD_DIR SRC_DIR - the self-check over a set whose
runner snapshots are content-addressed (kernel-snapshots/<sha256>.txt,
referred to by rep-N.cmd.txt's kernel_before_sha256 / kernel_after_sha256,
docs/results-layout.md): such a set passes, and so does its 0.2 form; a
changed snapshot byte, a missing snapshot, swapped references, a malformed
reference, a snapshot both referenced and kept as the 0.2 file, a file
nobody refers to and a badly named file are each reported on its own line
with exit 1; a bundle of the set carries every snapshot once and verifies.
"""
import hashlib
import os
import shutil
import sys
import tarfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "lib"))
import nptest  # noqa: E402

build, src = sys.argv[1], sys.argv[2]
report = os.path.join(build, "report", "netproof-report")
archive = os.path.join(build, "archive", "netproof-archive")
fixture = os.path.join(src, "tests", "selfcheck", "fixture-udp")
T = nptest.Checks()
check = T.check
SNAP = "kernel-snapshots"


def by_reference(d):
    """The 0.2 set d in the content-addressed form, as the runner now
    writes it; (repetitions, distinct snapshots)."""
    os.makedirs(os.path.join(d, SNAP), exist_ok=True)
    reps, hashes = 0, set()
    for top, _, files in os.walk(os.path.join(d, "runs")):
        for f in sorted(files):
            if not f.endswith(".cmd.txt"):
                continue
            reps += 1
            stem = os.path.join(top, f[:-len(".cmd.txt")])
            lines = []
            for when in ("before", "after"):
                k = f"{stem}.kernel-{when}.txt"
                data = open(k, "rb").read()
                h = hashlib.sha256(data).hexdigest()
                hashes.add(h)
                open(os.path.join(d, SNAP, h + ".txt"), "wb").write(data)
                os.remove(k)
                lines.append(f"kernel_{when}_sha256: {h}\n")
            with open(stem + ".cmd.txt", "a") as c:
                c.writelines(lines)
    return reps, len(hashes)


def selfcheck(d):
    return nptest.run([report, "--self-check", "--results", d], timeout=60)


def refs(d, stem):
    text = open(os.path.join(d, stem + ".cmd.txt")).read()
    return {ln.split(": ")[0]: ln.split(": ")[1]
            for ln in text.splitlines() if "_sha256: " in ln}


STEM = "runs/udp-p1024-c4-w1-single-uv/rep-1"


def tamper(tmp, name, edit, want):
    """A copy of the referenced set edited by edit(d); want in stderr."""
    d = os.path.join(tmp, name)
    shutil.copytree(os.path.join(tmp, "ref"), d)
    edit(d)
    rc, out, err = selfcheck(d)
    check(rc == 1 and f"{name}/{want}" in out,
          f"{name}: want exit 1 and {want!r}, got {rc}: {out[-1500:]}")


def flip(d):
    h = refs(d, STEM)["kernel_before_sha256"]
    p = os.path.join(d, SNAP, h + ".txt")
    b = bytearray(open(p, "rb").read())
    i = b.index(b"InDatagrams") + 30
    b[i] = ord("7") if b[i] != ord("7") else ord("8")
    open(p, "wb").write(bytes(b))


def missing(d):
    os.remove(os.path.join(d, SNAP, refs(d, STEM)["kernel_after_sha256"] +
                           ".txt"))


def swap(d):
    p = os.path.join(d, STEM + ".cmd.txt")
    r = refs(d, STEM)
    text = open(p).read()
    text = text.replace(r["kernel_before_sha256"], "B" * 64).replace(
        r["kernel_after_sha256"], r["kernel_before_sha256"]).replace(
        "B" * 64, r["kernel_after_sha256"])
    open(p, "w").write(text)


def malformed(d):
    p = os.path.join(d, STEM + ".cmd.txt")
    r = refs(d, STEM)
    text = open(p).read().replace(r["kernel_after_sha256"],
                                  r["kernel_after_sha256"][:40])
    open(p, "w").write(text)


def both(d):
    h = refs(d, STEM)["kernel_before_sha256"]
    shutil.copy(os.path.join(d, SNAP, h + ".txt"),
                os.path.join(d, STEM + ".kernel-before.txt"))


ORPHAN_TEXT = b"==> /proc/net/snmp <==\n"
ORPHAN = hashlib.sha256(ORPHAN_TEXT).hexdigest()


def orphan(d):
    open(os.path.join(d, SNAP, ORPHAN + ".txt"), "wb").write(ORPHAN_TEXT)


def badname(d):
    open(os.path.join(d, SNAP, "notes.txt"), "w").write("x\n")


def main():
    with nptest.tmpdir("np-snapshots-", T) as tmp:
        old = os.path.join(tmp, "old")
        shutil.copytree(fixture, old)
        rc, _, err = selfcheck(old)
        check(rc == 0, f"0.2 form: exit {rc}: {err[-800:]}")
        ref = os.path.join(tmp, "ref")
        shutil.copytree(fixture, ref)
        reps, distinct = by_reference(ref)
        print(f"{reps} repetitions, {2 * reps} runner snapshots, "
              f"{distinct} distinct")
        check(distinct <= 2 * reps, "more files than snapshots")
        rc, _, err = selfcheck(ref)
        check(rc == 0 and "self-check clean" in err,
              f"content-addressed form: exit {rc}: {err[-1500:]}")
        r = refs(ref, STEM)
        tamper(tmp, "flip", flip,
               f"{SNAP}/{r['kernel_before_sha256']}.txt: /: its content's "
               "SHA-256 is ")
        tamper(tmp, "missing", missing,
               f"{STEM}.cmd.txt: /: kernel_after_sha256 "
               f"{r['kernel_after_sha256']}: no {SNAP}/"
               f"{r['kernel_after_sha256']}.txt in the set")
        tamper(tmp, "swap", swap,
               f"{SNAP}/{r['kernel_after_sha256']}.txt: /: Udp.InDatagrams ")
        tamper(tmp, "malformed", malformed,
               f"{STEM}.cmd.txt: /: kernel_after_sha256: not 64 lowercase "
               "hex digits")
        tamper(tmp, "both", both,
               f"{STEM}.kernel-before.txt: /: beside cmd.txt's "
               "kernel_before_sha256: a repetition keeps its snapshot either "
               "by reference or as its own file, not both")
        tamper(tmp, "orphan", orphan,
               f"{SNAP}/{ORPHAN}.txt: /: no repetition's cmd.txt "
               "(kernel_before_sha256 / kernel_after_sha256) and no record's "
               "kernel.before / kernel.after (snapshot_sha256) refers to it")
        tamper(tmp, "badname", badname,
               f"{SNAP}/notes.txt: /: not a kernel snapshot")
        # a bundle carries the folder as it is: each snapshot once
        bundle = os.path.join(tmp, "set.tar.gz")
        rc, _, err = nptest.run([archive, "pack", ref, "--output", bundle],
                                timeout=60)
        check(rc == 0, f"pack: exit {rc}: {err[-800:]}")
        if rc == 0:
            with tarfile.open(bundle) as tf:
                names = [m.name for m in tf.getmembers()
                         if f"/{SNAP}/" in m.name]
            check(len(names) == distinct == len(set(names)),
                  f"bundle holds {len(names)} snapshots, want {distinct}")
            rc, _, err = nptest.run([archive, "verify", bundle], timeout=60)
            check(rc == 0, f"verify: exit {rc}: {err[-800:]}")
    return T.done("snapshots_test: ok")


if __name__ == "__main__":
    sys.exit(main())
