#!/usr/bin/env python3
"""netproof-archive end-to-end tests: hostile bundles, reproducibility,
interoperability with GNU tar / bsdtar / sha256sum / jq, extract, CLI,
signatures (with openssl interop both ways), packing refusals.

usage: archive_tests.py GROUP BUILD_DIR WORK_DIR
  GROUP: setup | hostile | hostile_content | repro | interop | extract | cli
         | sign | pack | largeset | limits | memory
`setup` runs `netproof-bench matrix bench/plans/quick.json` once into
WORK_DIR/fixture/quick (a real results folder) and packs WORK_DIR/base.tar.gz;
the other groups craft their cases from those.  Every case states the exit
code and the message it expects, and checks that nothing was written.
"""
import base64
import glob
import gzip
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zlib

GROUP, BUILD, WORK = sys.argv[1], os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
SRC = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
ARCHIVE = os.path.join(BUILD, "archive", "netproof-archive")
BENCH = os.path.join(BUILD, "bench", "netproof-bench")
FIXTURE = os.path.join(WORK, "fixture", "quick")
BASE = os.path.join(WORK, "base.tar.gz")
failures = []


def run(args, env=None, cwd=None, timeout=60):
    e = dict(os.environ)
    e.pop("SOURCE_DATE_EPOCH", None)
    if env:
        e.update(env)
    p = subprocess.run(args, capture_output=True, text=True, env=e, cwd=cwd,
                       timeout=timeout)
    return p.returncode, p.stdout + p.stderr


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def snapshot_dir(d):
    out = []
    for root, dirs, files in os.walk(d):
        for n in dirs + files:
            out.append(os.path.relpath(os.path.join(root, n), d))
    return sorted(out)


# ---- crafting -------------------------------------------------------------

def load(path):
    """Members of a bundle as [(TarInfo, bytes or None)]."""
    out = []
    with tarfile.open(path, "r:gz") as t:
        for m in t.getmembers():
            data = t.extractfile(m).read() if m.isfile() else None
            out.append((m, data))
    return out


def write(members, path, compress=True):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
        for m, data in members:
            if data is not None:
                m.size = len(data)
                t.addfile(m, io.BytesIO(data))
            else:
                t.addfile(m)
    raw = buf.getvalue()
    with open(path, "wb") as f:
        f.write(gzip.compress(raw, mtime=0) if compress else raw)


def member(name, data=None, kind=tarfile.REGTYPE, link="", mtime=None):
    m = tarfile.TarInfo(name)
    m.type = kind
    m.linkname = link
    m.mode = 0o755 if kind == tarfile.DIRTYPE else 0o644
    m.mtime = mtime if mtime is not None else BASE_MTIME
    if kind == tarfile.REGTYPE:
        m.size = len(data or b"")
    return (m, data if kind == tarfile.REGTYPE else None)


def replace(members, name, fn):
    return [(m, fn(d) if m.name == name else d) for m, d in members]


def top():
    return load(BASE)[0][0].name.rstrip("/")


def rebag(members, t, edits, ev_fn=None):
    """A dishonest re-bagging: replace payload files (edits: entry name ->
    bytes) and make every checksum agree again - manifest lines,
    evidence.json's file entries and payload size, bag-info's
    Payload-Oxum, the tag manifest - exactly what a careful forger does."""
    members = [(m, edits.get(m.name, d)) for m, d in members]
    data = {m.name: d for m, d in members if d is not None}
    pre = f"{t}/"
    payload = {n[len(pre):]: d for n, d in data.items() if n.startswith(pre + "data/")}
    man = "".join(f"{hashlib.sha256(d).hexdigest()}  {p}\n" for p, d in sorted(payload.items()))
    ev = json.loads(data[pre + "evidence.json"])
    def fix(o):
        if isinstance(o, dict):
            if "path" in o and "sha256" in o and o["path"] in payload:
                o["sha256"] = hashlib.sha256(payload[o["path"]]).hexdigest()
                o["bytes"] = len(payload[o["path"]])
            for v in o.values():
                fix(v)
        elif isinstance(o, list):
            for v in o:
                fix(v)
    fix(ev)
    ev["payload"]["bytes"] = sum(len(d) for d in payload.values())
    if ev_fn is not None:
        ev_fn(ev)
    info = data[pre + "bag-info.txt"].decode()
    info = "".join(f"Payload-Oxum: {ev['payload']['bytes']}.{len(payload)}\n"
                   if l.startswith("Payload-Oxum:") else l for l in info.splitlines(True))
    tags = {"bag-info.txt": info.encode(), "bagit.txt": data[pre + "bagit.txt"],
            "evidence.json": json.dumps(ev, indent="\t").encode() + b"\n",
            "manifest-sha256.txt": man.encode()}
    tags["tagmanifest-sha256.txt"] = "".join(
        f"{hashlib.sha256(d).hexdigest()}  {n}\n" for n, d in sorted(tags.items())).encode()
    return [(m, tags.get(m.name[len(pre):], d) if m.name[len(pre):] in tags else d)
            for m, d in members]


def expect_verify(name, path, code, needles, extra=()):
    """verify and extract must both reject path with code and every needle;
    the working folder and DEST's parent must stay untouched."""
    cwd = tempfile.mkdtemp(dir=WORK, prefix="cwd-")
    rc, out = run([ARCHIVE, "verify", path, *extra], cwd=cwd)
    ok = rc == code and all(n in out for n in needles)
    check(ok, f"{name}: verify exit {rc} (want {code}) needles {needles}" +
          ("" if ok else "\n" + out[:2000]))
    lines = [l for l in out.splitlines() if l.strip()]
    check(all(l.startswith(path) or l.startswith("netproof-archive:") for l in lines),
          f"{name}: one line per problem, each naming the bundle")
    rc2, out2 = run([ARCHIVE, "extract", path, "-C", os.path.join(cwd, "dest"), *extra],
                    cwd=cwd)
    check(rc2 == code, f"{name}: extract exit {rc2} (want {code})")
    if code == 0:
        check(os.path.isdir(os.path.join(cwd, "dest")), f"{name}: extracted")
    else:
        check(snapshot_dir(cwd) == [], f"{name}: nothing written ({snapshot_dir(cwd)})")
    shutil.rmtree(cwd)


# ---- groups ---------------------------------------------------------------

def group_setup():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(os.path.dirname(FIXTURE))
    given = os.environ.get("NP_ARCHIVE_FIXTURE")  # a quick results folder
    if given:
        shutil.copytree(given, FIXTURE)
    else:
        rc, out = run([BENCH, "matrix", os.path.join(SRC, "bench/plans/quick.json"),
                       "--output", FIXTURE, "--quiet"], timeout=120)
        check(rc == 0, f"matrix quick ran (exit {rc})\n{out[-2000:]}")
    rc, out = run([ARCHIVE, "pack", FIXTURE, "-o", BASE])
    check(rc == 0, f"pack exit {rc}: {out}")
    rc, out = run([ARCHIVE, "verify", BASE])
    check(rc == 0 and "valid" in out, f"the fresh bundle verifies: {out}")


def group_hostile():
    """Entry-level cases: paths, types, duplicates, limits."""
    t, base, d, p, run_rec = hostile_setup()

    write(base + [member(f"{t}/../../evil.txt", b"x")], p("traversal.tgz"))
    expect_verify("path traversal", p("traversal.tgz"), 1, ["'..' component"])
    write(base + [member("/tmp/evil.txt", b"x")], p("absolute.tgz"))
    expect_verify("absolute path", p("absolute.tgz"), 1, ["absolute path"])
    write(base + [member(f"{t}/data/quick/link", kind=tarfile.SYMTYPE,
                         link="../../../../etc/passwd")], p("symlink.tgz"))
    expect_verify("symlink out of the bag", p("symlink.tgz"), 1,
                  ["symlink not allowed", "etc/passwd"])
    write(base + [member(f"{t}/data/quick/hl", kind=tarfile.LNKTYPE,
                         link=f"{t}/bagit.txt")], p("hardlink.tgz"))
    expect_verify("hardlink", p("hardlink.tgz"), 1, ["hardlink not allowed"])
    write(base + [member(f"{t}/data/quick/dev", kind=tarfile.CHRTYPE)], p("device.tgz"))
    expect_verify("device node", p("device.tgz"), 1, ["device node not allowed"])
    write(base + [member(f"{t}/data/quick/fifo", kind=tarfile.FIFOTYPE)], p("fifo.tgz"))
    expect_verify("FIFO", p("fifo.tgz"), 1, ["FIFO not allowed"])
    dup = next((m, x) for m, x in base if m.name == f"{t}/bagit.txt")
    write(base + [dup], p("duplicate.tgz"))
    expect_verify("duplicate entry", p("duplicate.tgz"), 1,
                  [f"{t}/bagit.txt: duplicate entry"])

    # Decompression bomb: a 200 MiB file of zeros in a ~200 KiB gzip.
    hdr = tarfile.TarInfo(f"{t}/data/quick/zeros")
    hdr.size = 200 << 20
    hdr.mtime = BASE_MTIME
    top_hdr = tarfile.TarInfo(t)
    top_hdr.type, top_hdr.mode, top_hdr.mtime = tarfile.DIRTYPE, 0o755, BASE_MTIME
    head = top_hdr.tobuf(tarfile.PAX_FORMAT)
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    parts = [z.compress(head + hdr.tobuf(tarfile.PAX_FORMAT))]
    block = bytes(1 << 20)
    for _ in range(200):
        parts.append(z.compress(block))
    parts.append(z.compress(bytes(1024)))
    parts.append(z.flush())
    with open(p("bomb.tgz"), "wb") as f:
        f.write(b"".join(parts))
    t0 = time.monotonic()
    expect_verify("decompression bomb", p("bomb.tgz"), 1, ["decompression ratio above"])
    check(time.monotonic() - t0 < 5, f"bomb stopped fast ({time.monotonic() - t0:.2f} s)")
    expect_verify("bomb vs --max-bytes", p("bomb.tgz"), 1, ["--max-bytes"],
                  extra=["--max-ratio", "100000", "--max-bytes", "10485760"])
    hdr.size = 4 << 30
    with open(p("huge-header.tgz"), "wb") as f:
        f.write(gzip.compress(head + hdr.tobuf(tarfile.PAX_FORMAT) + bytes(1024), mtime=0))
    expect_verify("4 GiB header", p("huge-header.tgz"), 1, ["--max-file-bytes"])
    write(base + [member(f"{t}/data/quick/f{i}", b"") for i in range(50)], p("many.tgz"))
    expect_verify("too many entries", p("many.tgz"), 1, ["--max-entries"],
                  extra=["--max-entries", "40"])

    # Order: entry paths must increase bytewise (what lets verify
    # self-check a suite as it streams past).
    recs = [i for i, (m, _) in enumerate(base) if m.name.endswith("/rep-1.json")]
    moved = base[:recs[0]] + base[recs[0] + 1:recs[1]] + [base[recs[0]]] + base[recs[1]:]
    write(moved, p("reentered.tgz"))
    before = base[recs[1] - 1][0].name[len(t) + 1:].rstrip("/")
    expect_verify("a record moved into the next configuration", p("reentered.tgz"), 1,
                  [f"{base[recs[0]][0].name}: out of order: after '{before}' (entries must "
                   "be sorted bytewise by path, as pack writes them)"])
    write(base[:recs[0]] + base[recs[0] + 1:] + [base[recs[0]]], p("reentered-top.tgz"))
    expect_verify("a record after the tag files", p("reentered-top.tgz"), 1,
                  ["out of order: after 'tagmanifest-sha256.txt'"])
    i = recs[0]
    swapped = base[:i - 1] + [base[i], base[i - 1]] + base[i + 1:]
    write(swapped, p("swapped.tgz"))
    expect_verify("two files of a run swapped", p("swapped.tgz"), 1,
                  [f"{base[i - 1][0].name}: out of order: after '"])



def hostile_setup():
    t = top()
    base = load(BASE)
    d = os.path.join(WORK, "hostile-" + GROUP)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    p = lambda n: os.path.join(d, n)
    run_rec = next(m.name for m, _ in base if m.name.endswith("/rep-1.json"))
    return t, base, d, p, run_rec


def group_hostile_content():
    """Streams, BagIt, evidence, self-check and top-folder cases."""
    t, base, d, p, run_rec = hostile_setup()
    data = open(BASE, "rb").read()
    open(p("trunc-end.tgz"), "wb").write(data[:-5])
    expect_verify("truncated gzip (trailer)", p("trunc-end.tgz"), 1, ["truncated gzip stream"])
    open(p("trunc-mid.tgz"), "wb").write(data[:len(data) // 2])
    expect_verify("truncated gzip (middle)", p("trunc-mid.tgz"), 1, ["truncated gzip stream"])
    flip = bytearray(data)
    flip[len(flip) // 2] ^= 0xff
    open(p("corrupt.tgz"), "wb").write(bytes(flip))
    expect_verify("corrupt gzip", p("corrupt.tgz"), 1, [])
    open(p("trailing.tgz"), "wb").write(data + b"garbage!")
    expect_verify("data after the gzip stream", p("trailing.tgz"), 1,
                  ["data after the end of the gzip stream"])
    open(p("two-members.tgz"), "wb").write(data + gzip.compress(bytes(1024), mtime=0))
    expect_verify("second gzip member (even of zeros)", p("two-members.tgz"),
                  1, ["a second gzip member after the first"])
    write(base, p("plain.tar"), compress=False)
    expect_verify("plain tar (no gzip)", p("plain.tar"), 1, ["not gzip-compressed"])
    with open(p("bz2.tar.bz2"), "wb") as f:
        import bz2
        f.write(bz2.compress(open(p("plain.tar"), "rb").read()))
    expect_verify("bzip2 filter", p("bz2.tar.bz2"), 1, ["not gzip-compressed"])
    open(p("notar.gz"), "wb").write(gzip.compress(b"hello world\n" * 100, mtime=0))
    expect_verify("gzip of a non-tar", p("notar.gz"), 1, ["tar"])
    open(p("gzgz.gz"), "wb").write(gzip.compress(data, mtime=0))
    expect_verify("gzip inside gzip", p("gzgz.gz"), 1, ["tar"])

    man = f"{t}/manifest-sha256.txt"
    def wrong_hash(b):
        lines = b.decode().splitlines(True)
        lines[0] = ("0" * 64) + lines[0][64:]
        return "".join(lines).encode()
    write(replace(base, man, wrong_hash), p("wrong-hash.tgz"))
    expect_verify("manifest line with a wrong hash", p("wrong-hash.tgz"), 1,
                  ["manifest-sha256.txt: line 1", "checksum mismatch"])
    write(replace(base, man, lambda b: b"".join(b.splitlines(True)[1:])), p("missing-line.tgz"))
    expect_verify("payload file missing from the manifest", p("missing-line.tgz"), 1,
                  ["not listed in manifest-sha256.txt"])
    write(base + [member(f"{t}/data/quick/extra.txt", b"extra\n")], p("extra.tgz"))
    expect_verify("extra file not in the manifest", p("extra.tgz"), 1,
                  [f"{t}/data/quick/extra.txt: not listed in manifest-sha256.txt"])
    write(replace(base, run_rec, lambda b: b.replace(b'"status"', b'"status" ', 1)),
          p("edited-record.tgz"))
    expect_verify("edited record, manifests not updated", p("edited-record.tgz"), 1,
                  ["checksum mismatch"])

    # Tampered record: pack refuses the folder; re-bagged by hand so that
    # every checksum is consistent, only the self-check can see it.
    tam = os.path.join(d, "tampered", "quick")
    shutil.copytree(FIXTURE, tam)
    rec_path = os.path.join(tam, os.path.relpath(run_rec, f"{t}/data/quick"))
    rec = json.load(open(rec_path))
    rec["counters"]["received"] -= 1
    json.dump(rec, open(rec_path, "w"), indent=2)
    rc, out = run([ARCHIVE, "pack", tam, "-o", p("tampered.tgz")])
    check(rc == 1 and os.path.basename(run_rec) in out and "not packed" in out
          and not os.path.exists(p("tampered.tgz")),
          f"pack refuses the tampered folder, exit 1 ({rc}: {out.strip()[:400]})")
    write(rebag(base, t, {run_rec: open(rec_path, "rb").read()}), p("tampered.tgz"))
    expect_verify("tampered record, re-bagged consistently (self-check)",
                  p("tampered.tgz"), 1, [os.path.basename(run_rec)])

    renamed = []
    for m, x in base:
        m2 = tarfile.TarInfo("other" + m.name[len(t):])
        m2.type, m2.mode, m2.mtime, m2.size = m.type, m.mode, m.mtime, m.size
        renamed.append((m2, x))
    write(renamed, p("wrong-top.tgz"))
    expect_verify("wrong top folder", p("wrong-top.tgz"), 1,
                  [f"/name: '{t}' but the top folder is 'other'"])
    write([member("bagit.txt", b"BagIt-Version: 1.0\n")] + base, p("no-top.tgz"))
    expect_verify("no top folder", p("no-top.tgz"), 1, ["first entry must be the bundle's top folder"])
    write(base + [member("elsewhere/x.txt", b"x")], p("outside.tgz"))
    expect_verify("entry outside the top folder", p("outside.tgz"), 1,
                  ["entry outside the top folder"])
    write([(m, x) for m, x in base if not m.name.endswith("/bagit.txt")], p("no-bagit.tgz"))
    expect_verify("bagit.txt missing", p("no-bagit.tgz"), 1, ["bagit.txt: missing"])
    write(replace(base, f"{t}/evidence.json",
                  lambda b: b.replace(b'"bytes":', b'"bytes": ', 1)), p("evidence.tgz"))
    expect_verify("evidence.json edited", p("evidence.tgz"), 1, ["tagmanifest-sha256.txt"])
    expect_verify("unreadable bundle", p("does-not-exist.tgz"), 2, ["No such file"])


def pack_to(dirs, out, env=None):
    rc, text = run([ARCHIVE, "pack", *dirs, "-o", out], env=env)
    check(rc == 0, f"pack {out}: exit {rc} {text}")


def group_repro():
    d = os.path.join(WORK, "repro")
    shutil.rmtree(d, ignore_errors=True)
    a, b = os.path.join(d, "a"), os.path.join(d, "b")
    os.makedirs(a)
    shutil.copytree(FIXTURE, os.path.join(a, "quick"))
    long_dir = os.path.join(a, "quick", "notes", "x" * 90)
    os.makedirs(long_dir)
    open(os.path.join(long_dir, "y" * 90 + ".txt"), "w").write("long path\n")
    pack_to([os.path.join(a, "quick")], os.path.join(a, "qb.tar.gz"))
    time.sleep(1.2)
    shutil.copytree(os.path.join(a, "quick"), os.path.join(b, "quick"))  # new mtimes
    os.makedirs(os.path.join(b, "elsewhere"))
    pack_to([os.path.join(b, "quick")], os.path.join(b, "elsewhere", "qb.tar.gz"))
    h1, h2 = sha256(os.path.join(a, "qb.tar.gz")), sha256(os.path.join(b, "elsewhere", "qb.tar.gz"))
    check(h1 == h2, f"same input, same bytes ({h1[:16]} vs {h2[:16]})")
    env = {"SOURCE_DATE_EPOCH": "1700000000"}
    pack_to([os.path.join(a, "quick")], os.path.join(a, "e1.tar.gz"), env)
    time.sleep(1.1)
    pack_to([os.path.join(b, "quick")], os.path.join(b, "elsewhere", "e1.tar.gz"), env)
    check(sha256(os.path.join(a, "e1.tar.gz")) == sha256(os.path.join(b, "elsewhere", "e1.tar.gz")),
          "SOURCE_DATE_EPOCH: same bytes")
    mts = {m.mtime for m, _ in load(os.path.join(a, "e1.tar.gz"))}
    check(mts == {1700000000}, f"every mtime is SOURCE_DATE_EPOCH ({mts})")
    mts = {m.mtime for m, _ in load(os.path.join(a, "qb.tar.gz"))}
    check(len(mts) == 1, f"one mtime for all entries ({mts})")
    members = load(os.path.join(a, "qb.tar.gz"))
    names = [m.name for m, _ in members]
    check(names == sorted(names, key=lambda s: s.rstrip("/").encode()),
          "entries sorted by path")
    check(all(m.uid == 0 and m.gid == 0 and m.uname == "" and m.gname == "" for m, _ in members),
          "uid/gid 0, no user/group names")
    check(all(m.mode == (0o755 if m.isdir() else 0o644) for m, _ in members), "modes 0644/0755")
    raw = open(os.path.join(a, "qb.tar.gz"), "rb").read(10)
    check(raw[4:8] == b"\0\0\0\0", "gzip header has no timestamp")
    rc, out = run([ARCHIVE, "verify", os.path.join(a, "e1.tar.gz")])
    check(rc == 0 or "notes/" in out, f"SOURCE_DATE_EPOCH bundle verifies ({out[:300]})")


def group_interop():
    d = tempfile.mkdtemp(dir=WORK, prefix="interop-")
    t = top()
    rc, out = run(["tar", "-tzf", BASE])
    check(rc == 0 and f"{t}/bagit.txt" in out, "GNU tar lists")
    rc, out = run(["bsdtar", "-tzf", BASE])
    check(rc == 0 and f"{t}/bagit.txt" in out, "bsdtar lists")
    rc, out = run(["gzip", "-t", BASE])
    check(rc == 0, "gzip -t passes")
    for tool in ("tar", "bsdtar"):
        dest = os.path.join(d, tool)
        os.makedirs(dest)
        rc, out = run([tool, "-xzf", BASE, "-C", dest])
        check(rc == 0, f"{tool} extracts ({out})")
        root = os.path.join(dest, t)
        rc, out = run(["sha256sum", "-c", "manifest-sha256.txt"], cwd=root)
        check(rc == 0 and "FAILED" not in out, f"{tool}: sha256sum -c manifest-sha256.txt")
        rc, out = run(["sha256sum", "-c", "tagmanifest-sha256.txt"], cwd=root)
        check(rc == 0, f"{tool}: sha256sum -c tagmanifest-sha256.txt")
        rc, out = run(["jq", "-e", ".schema == \"netproof/evidence/1\" and (.suites|length) >= 1",
                       "evidence.json"], cwd=root)
        check(rc == 0, f"{tool}: jq reads evidence.json ({out.strip()})")
        info = open(os.path.join(root, "bag-info.txt")).read()
        check("Payload-Oxum: " in info and "Bagging-Date: " in info, "bag-info fields")
        check(open(os.path.join(root, "bagit.txt")).read() ==
              "BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n", "bagit.txt")
    rc, out = run(["diff", "-r", os.path.join(d, "tar"), os.path.join(d, "bsdtar")])
    check(rc == 0, "GNU tar and bsdtar extract the same tree")
    # A bag re-made by GNU tar from the extracted tree still verifies.
    out_tgz = os.path.join(d, "gnu.tar.gz")
    rc, out = run(["tar", "-czf", out_tgz, "--sort=name", "--owner=0", "--group=0",
                   "--numeric-owner", f"--mtime=@{BASE_MTIME}", "-C", os.path.join(d, "tar"), t])
    rc, out = run([ARCHIVE, "verify", out_tgz])
    check(rc == 0, f"a GNU-tar-made copy verifies ({out.strip()[:500]})")


def group_extract():
    d = tempfile.mkdtemp(dir=WORK, prefix="extract-")
    t = top()
    dest = os.path.join(d, "dest")
    rc, out = run([ARCHIVE, "extract", BASE, "-C", dest])
    check(rc == 0, f"extract exit {rc} {out}")
    ref = os.path.join(d, "ref")
    os.makedirs(ref)
    run(["tar", "-xzf", BASE, "-C", ref])
    rc, out = run(["diff", "-r", ref, dest])
    check(rc == 0, f"extract gives what tar gives ({out[:300]})")
    check(sorted(os.listdir(d)) == ["dest", "ref"], f"no temp folder left ({os.listdir(d)})")
    before = snapshot_dir(dest)
    rc, out = run([ARCHIVE, "extract", BASE, "-C", dest])
    check(rc == 2 and "refusing to overwrite" in out, f"second extract refused ({rc} {out.strip()})")
    check(snapshot_dir(dest) == before, "DEST untouched")
    empty = os.path.join(d, "empty")
    os.makedirs(empty)
    rc, out = run([ARCHIVE, "extract", BASE, "-C", empty])
    check(rc == 0 and os.path.exists(os.path.join(empty, t, "bagit.txt")),
          "extract into an existing empty folder")
    rc, out = run([ARCHIVE, "list", BASE])
    check(rc == 0 and f"{t}/bagit.txt" in out and f"{t}/data/quick/suite.json" in out, "list")


def group_cli():
    d = tempfile.mkdtemp(dir=WORK, prefix="cli-")
    for args, code in [([], 2), (["bogus"], 2), (["verify"], 2), (["verify", "a", "b"], 2),
                       (["pack", FIXTURE], 2), (["extract", BASE], 2),
                       (["verify", BASE, "--max-bytes", "-5"], 2),
                       (["verify", BASE, "--frobnicate"], 2), (["--help"], 0),
                       (["--version"], 0), (["verify", d], 2)]:
        rc, out = run([ARCHIVE, *args])
        check(rc == code, f"netproof-archive {' '.join(args)}: exit {rc} (want {code})")
    # Huge limits mean "no limit": the decompression cap derived from them
    # (bytes + 3 KiB x entries + 1 MiB) saturates instead of wrapping to 0.
    rc, out = run([ARCHIVE, "verify", BASE, "--max-entries", str(1 << 54),
                   "--max-bytes", str((1 << 64) - (1 << 20))])
    check(rc == 0, f"verify with huge limits ({out.strip()[:300]})")
    rc, out = run([ARCHIVE, "pack", d, "-o", os.path.join(d, "x.tar.gz")])
    check(rc == 2 and "no suite.json" in out, f"pack of a non-results folder refused ({out.strip()})")
    check(not os.path.exists(os.path.join(d, "x.tar.gz")), "no output on failure")
    rc, out = run([ARCHIVE, "pack", FIXTURE, "-o", os.path.join(d, "x.tar.gz"), "--name", "../x"])
    check(rc == 2, f"unsafe --name refused ({out.strip()})")
    snap = os.path.join(d, "snap")
    rc, out = run([ARCHIVE, "snapshot", "-o", snap])
    check(rc == 0 and sorted(os.listdir(snap)) == ["kernel.json", "kernel.txt", "machine.json"],
          f"snapshot writes three files ({out})")
    if rc == 0:
        json.load(open(os.path.join(snap, "machine.json")))
        json.load(open(os.path.join(snap, "kernel.json")))
        check(open(os.path.join(snap, "kernel.txt")).read().startswith("==> /proc/net/snmp"),
              "kernel.txt is the raw snapshot format")
    rc, out = run([ARCHIVE, "snapshot", "-o", snap])
    check(rc == 2 and "refusing to overwrite" in out, "snapshot refuses to overwrite")
    os.chmod(d, 0o755)


def openssl_verify(pub, bundle, sig, d):
    """The documented check with nothing but coreutils, tar and openssl:
    the tag manifest's digest and the bundle file's are the ones signed,
    every line but the last is the message, the signature line is base64."""
    t = top()
    msg, raw = os.path.join(d, "msg"), os.path.join(d, "sig.bin")
    lines = open(sig, "rb").read().splitlines(True)
    open(msg, "wb").write(b"".join(lines[:-1]))
    rc, out = run(["sh", "-c", f"sed -n 's/^signature: //p' '{sig}' | base64 -d > '{raw}'"])
    rc1, out1 = run(["openssl", "pkeyutl", "-verify", "-pubin", "-inkey", pub, "-rawin",
                     "-in", msg, "-sigfile", raw])
    rc2, tm = run(["sh", "-c", f"tar -xzOf '{bundle}' '{t}/tagmanifest-sha256.txt' | sha256sum"])
    rc3, fp = run(["sh", "-c", f"openssl pkey -pubin -in '{pub}' -outform DER | sha256sum"])
    rc4, bd = run(["sha256sum", bundle])
    fields = dict(l.decode().rstrip("\n").split(": ", 1) for l in lines)
    return (rc1 == 0 and "Signature Verified Successfully" in out1,
            tm.split()[0] == fields.get("tagmanifest-sha256"),
            bd.split()[0] == fields.get("bundle-sha256"),
            fp.split()[0] == fields.get("key-sha256"))


def group_sign():
    d = tempfile.mkdtemp(dir=WORK, prefix="sign-")
    p = lambda n: os.path.join(d, n)
    b = p("b.tar.gz")
    shutil.copyfile(BASE, b)
    key, pub = p("k.pem"), p("k.pub.pem")
    rc, out = run([ARCHIVE, "keygen", "--out", key])
    check(rc == 0 and os.path.exists(pub), f"keygen writes KEY.pem and KEY.pub.pem ({rc} {out})")
    check(os.stat(key).st_mode & 0o777 == 0o600, f"private key 0600 ({oct(os.stat(key).st_mode)})")
    check(b"BEGIN PRIVATE KEY" in open(key, "rb").read() and
          b"BEGIN PUBLIC KEY" in open(pub, "rb").read(), "PKCS#8 and SubjectPublicKeyInfo PEM")
    before = open(key, "rb").read()
    rc, out = run([ARCHIVE, "keygen", "--out", key])
    check(rc == 2 and "refusing to overwrite" in out and open(key, "rb").read() == before,
          f"keygen never overwrites ({rc} {out.strip()})")
    rc, out = run([ARCHIVE, "sign", b, "--key", key])
    check(rc == 0 and os.path.exists(b + ".sig"), f"sign writes BUNDLE.sig ({rc} {out})")
    sig = open(b + ".sig", "rb").read()
    lines = sig.decode().splitlines()
    check([l.split(": ")[0] for l in lines] == ["netproof-signature", "algorithm", "bag",
                                               "tagmanifest-sha256", "bundle-sha256",
                                               "key-sha256", "signature"]
          and lines[0] == "netproof-signature: 2"
          and lines[1] == "algorithm: ed25519" and lines[2] == f"bag: {top()}",
          f"signature file format ({lines})")
    check(before not in sig and b"PRIVATE" not in sig, "no key material in the signature")
    rc, out = run([ARCHIVE, "sign", b, "--key", key])
    check(rc == 2 and "refusing to overwrite" in out and open(b + ".sig", "rb").read() == sig,
          f"sign never overwrites a signature ({rc} {out.strip()})")
    rc, out = run([ARCHIVE, "verify", b, "--pubkey", pub])
    check(rc == 0 and "valid, signed by key sha256 " in out, f"good signature: exit {rc} {out.strip()}")
    ok = openssl_verify(pub, b, b + ".sig", d)
    check(all(ok), f"openssl pkeyutl -verify -rawin checks our signature; digests match ({ok})")

    # wrong key
    rc, out = run([ARCHIVE, "keygen", "--out", p("other.pem")])
    rc, out = run([ARCHIVE, "verify", b, "--pubkey", p("other.pub.pem")])
    check(rc == 1 and f"{b}.sig: signed by key sha256 " in out and "other.pub.pem" in out,
          f"wrong key: exit {rc} {out.strip()}")
    # modified signature: one character of the signature, or a signed line
    def sig_case(name, text, code, needle):
        f = p(name + ".sig")
        open(f, "wb").write(text)
        rc, out = run([ARCHIVE, "verify", b, "--pubkey", pub, "--sig", f])
        check(rc == code and needle in out, f"{name}: exit {rc} (want {code}) '{needle}'\n{out.strip()}")
    s64 = lines[6][len("signature: "):]
    flip = s64[:10] + ("A" if s64[10] != "A" else "B") + s64[11:]
    sig_case("flipped", "\n".join(lines[:6] + ["signature: " + flip]).encode() + b"\n", 1,
             "signature does not verify with")
    bd = lines[4][:-1] + ("0" if lines[4][-1] != "0" else "1")
    sig_case("signed-bundle-line", "\n".join(lines[:4] + [bd] + lines[5:]).encode() + b"\n",
             1, "signature does not verify with")
    tm = lines[3][:-1] + ("0" if lines[3][-1] != "0" else "1")
    sig_case("signed-line", "\n".join(lines[:3] + [tm] + lines[4:]).encode() + b"\n", 1,
             "signature does not verify with")
    sig_case("truncated", sig[:-20], 1, "line 7: ")
    sig_case("truncated-lines", b"\n".join(sig.split(b"\n")[:4]) + b"\n", 1,
             "line 5: missing (the file ends early: truncated?)")
    sig_case("crlf", sig.replace(b"\n", b"\r\n"), 1, "carriage return")
    sig_case("trailing", sig + b"extra\n", 1, "line 8: unexpected text after the signature")
    sig_case("version", sig.replace(b"netproof-signature: 2", b"netproof-signature: 3"), 1,
             "line 1: unsupported signature format version")
    sig_case("version-1-lines-of-2", sig.replace(b"netproof-signature: 2",
                                                 b"netproof-signature: 1"), 1,
             "line 5: expected 'key-sha256: ...'")
    # modified bundle: a valid bundle of other bytes (re-packed with another
    # mtime) under the first bundle's signature
    b2 = p("b2.tar.gz")
    rc, out = run([ARCHIVE, "pack", FIXTURE, "-o", b2, "--name", top()],
                  env={"SOURCE_DATE_EPOCH": "1700000000"})
    rc0, out0 = run([ARCHIVE, "verify", b2])
    shutil.copyfile(b + ".sig", b2 + ".sig")
    rc, out = run([ARCHIVE, "verify", b2, "--pubkey", pub])
    check(rc0 == 0 and rc == 1 and "(the bundle changed after it was signed)" in out,
          f"modified bundle: alone valid ({rc0}), signed check exit {rc}: {out.strip()}")
    # a forged record re-bagged consistently: self-check and signature
    t = top()
    base = load(BASE)
    rec = next(m.name for m, _ in base if m.name.endswith("/rep-1.json"))
    forged = rebag(base, t, {rec: dict(base_map(base))[rec].replace(b'"lost":', b'"lost": ', 1)})
    b3 = p("b3.tar.gz")
    write(forged, b3)
    shutil.copyfile(b + ".sig", b3 + ".sig")
    rc, out = run([ARCHIVE, "verify", b3, "--pubkey", pub])
    check(rc == 1 and "changed after it was signed" in out and "checksum" not in out,
          f"re-bagged forgery: exit {rc}: {out.strip()[:600]}")
    rc, out = run([ARCHIVE, "extract", b3, "-C", p("x3"), "--pubkey", pub])
    check(rc == 1 and not os.path.exists(p("x3")), f"extract refuses it too ({rc})")
    rc, out = run([ARCHIVE, "extract", b, "-C", p("x1"), "--pubkey", pub])
    check(rc == 0 and os.path.isdir(p("x1")), f"extract of the signed bundle ({rc} {out.strip()})")
    # unreadable inputs: exit 2
    os.remove(b2 + ".sig")
    for args, needle in [(["verify", b2, "--pubkey", pub], "No such file"),
                         (["verify", b, "--pubkey", key], "not an unencrypted PEM public key"),
                         (["verify", b, "--pubkey", p("missing.pem")], "No such file"),
                         (["verify", b, "--sig", b + ".sig"], "--pubkey goes with"),
                         (["sign", b2], "expected sign BUNDLE.tar.gz --key KEY.pem"),
                         (["keygen"], "expected keygen --output KEY.pem")]:
        rc, out = run([ARCHIVE, *args])
        check(rc == 2 and needle in out, f"{' '.join(args[:1] + args[2:])}: exit {rc}, '{needle}'")
    # a private key file readable by group or others is refused, untouched
    os.chmod(key, 0o640)
    rc, out = run([ARCHIVE, "sign", b2, "--key", key])
    check(rc == 2 and "accessible by group or others (mode 0640)" in out and "chmod 600" in out
          and not os.path.exists(b2 + ".sig"), f"key with mode 0640: exit {rc} {out.strip()}")
    os.chmod(key, 0o604)
    rc, out = run([ARCHIVE, "sign", b2, "--key", key])
    check(rc == 2 and "(mode 0604)" in out, f"key with mode 0604: exit {rc}")
    os.chmod(key, 0o600)
    os.symlink(key, p("link.pem"))
    rc, out = run([ARCHIVE, "sign", b2, "--key", p("link.pem")])
    check(rc == 2 and "symbolic link" in out, f"key through a symlink: exit {rc} {out.strip()}")
    # never sign an invalid bundle
    bad = p("bad.tar.gz")
    open(bad, "wb").write(open(BASE, "rb").read()[:-9])
    rc, out = run([ARCHIVE, "sign", bad, "--key", key])
    check(rc == 1 and not os.path.exists(bad + ".sig"), f"invalid bundle not signed ({rc})")

    # openssl the other way: a key openssl made signs with our tool, and a
    # signature openssl made over our message verifies with our tool
    okey, opub = p("ossl.pem"), p("ossl.pub.pem")
    rc1, _ = run(["openssl", "genpkey", "-algorithm", "ed25519", "-out", okey])
    os.chmod(okey, 0o600)
    rc2, _ = run(["openssl", "pkey", "-in", okey, "-pubout", "-out", opub])
    rc, out = run([ARCHIVE, "sign", b2, "--key", okey])
    rc3, out3 = run([ARCHIVE, "verify", b2, "--pubkey", opub])
    check(rc1 == rc2 == rc == rc3 == 0 and all(openssl_verify(opub, b2, b2 + ".sig", d)),
          f"openssl-made key: sign {rc}, verify {rc3} {out3.strip()}")
    def ossl_sig(msg, name):
        open(p("m"), "wb").write(msg)
        rc, _ = run(["openssl", "pkeyutl", "-sign", "-inkey", okey, "-rawin", "-in", p("m"),
                     "-out", p("osig.bin")])
        s64 = base64.b64encode(open(p("osig.bin"), "rb").read()).decode()
        open(p(name), "wb").write(msg + f"signature: {s64}\n".encode())
        return rc
    l2 = open(b2 + ".sig", "rb").read().splitlines(True)
    rc = ossl_sig(b"".join(l2[:6]), "osig.sig")
    rc2, out2 = run([ARCHIVE, "verify", b2, "--pubkey", opub, "--sig", p("osig.sig")])
    check(rc == 0 and rc2 == 0 and "0.2 rule" not in out2,
          f"signature made by openssl pkeyutl -sign verifies ({rc2} {out2.strip()})")
    # a netproof 0.2 signature (version 1: five signed lines, no bundle
    # digest) still verifies, and says which rule it was made under
    v1 = b"".join([b"netproof-signature: 1\n"] + l2[1:4] + [l2[5]])
    rc = ossl_sig(v1, "v1.sig")
    rc2, out2 = run([ARCHIVE, "verify", b2, "--pubkey", opub, "--sig", p("v1.sig")])
    check(rc == 0 and rc2 == 0 and "valid, signed by key sha256" in out2 and
          "signed with the 0.2 rule" in out2, f"0.2 signature: exit {rc2} {out2.strip()}")
    # the same tar in other gzip bytes: the version 2 signature refuses it,
    # the 0.2 one (tag manifest only) cannot tell
    b4 = p("b4.tar.gz")
    open(b4, "wb").write(gzip.compress(gzip.decompress(open(b2, "rb").read()),
                                       compresslevel=1, mtime=0))
    rc0, _ = run([ARCHIVE, "verify", b4])
    rc, out = run([ARCHIVE, "verify", b4, "--pubkey", opub, "--sig", b2 + ".sig"])
    rc2, out2 = run([ARCHIVE, "verify", b4, "--pubkey", opub, "--sig", p("v1.sig")])
    check(rc0 == 0 and rc == 1 and "signs the bundle file with sha256" in out and
          rc2 == 0 and "0.2 rule" in out2,
          f"re-compressed bundle: alone {rc0}, v2 signature {rc} {out.strip()}, 0.2 {rc2}")


def base_map(members):
    return [(m.name, d) for m, d in members if d is not None]


def group_pack():
    """pack refuses what must never be bundled."""
    d = tempfile.mkdtemp(dir=WORK, prefix="pack-")
    p = lambda n: os.path.join(d, n)
    def refused(name, folder, code, needles):
        out_b = p(name + ".tar.gz")
        rc, out = run([ARCHIVE, "pack", folder, "-o", out_b])
        check(rc == code and all(n in out for n in needles) and not os.path.exists(out_b)
              and [f for f in os.listdir(d) if f.startswith(name + ".tar.gz")] == [],
              f"pack {name}: exit {rc} (want {code}) {needles}\n{out.strip()[:800]}")
        return out
    # a truncated record
    tr = os.path.join(d, "trunc", "quick")
    shutil.copytree(FIXTURE, tr)
    rec = sorted(glob.glob(os.path.join(tr, "runs", "*", "rep-1.json")))[0]
    data = open(rec, "rb").read()
    open(rec, "wb").write(data[:len(data) // 2])
    rel = os.path.relpath(rec, os.path.dirname(tr))
    out = refused("truncated", tr, 1, [f"{rel}: /: ", "not packed"])
    # edited counters (every number consistent within the record's legs
    # but not with the summary)
    ed = os.path.join(d, "edited", "quick")
    shutil.copytree(FIXTURE, ed)
    rec = sorted(glob.glob(os.path.join(ed, "runs", "*", "rep-2.json")))[0]
    r = json.load(open(rec))
    r["counters"]["sent"] += 7
    json.dump(r, open(rec, "w"), indent="\t")
    rel = os.path.relpath(rec, os.path.dirname(ed))
    out = refused("edited", ed, 1, [f"{rel}: /counters/", "1 of 1 result set(s) fail their "
                                    "self-check; not packed"])
    lines = [l for l in out.splitlines() if l.strip()]
    check(all(l.startswith("quick/") or l.startswith("netproof-archive:") for l in lines),
          f"problems printed as the self-check prints them (file: pointer: reason)")
    # one bad folder among good ones refuses the whole bundle
    ok = os.path.join(d, "ok", "quick2")
    shutil.copytree(FIXTURE, ok)
    out_b = p("mixed.tar.gz")
    rc, out = run([ARCHIVE, "pack", ok, ed, "-o", out_b])
    check(rc == 1 and "1 of 2 result set(s)" in out and not os.path.exists(out_b),
          f"one failing set of two: exit {rc}")
    # a private key never enters a bundle
    kd = os.path.join(d, "withkey", "quick")
    shutil.copytree(FIXTURE, kd)
    rc, out = run([ARCHIVE, "keygen", "--out", os.path.join(kd, "signing.pem")])
    refused("withkey", kd, 2, ["signing.pem: holds a PEM private key; keys never enter bundles"])
    # --allow-incomplete belongs to pack only
    rc, out = run([ARCHIVE, "verify", BASE, "--allow-incomplete"])
    check(rc == 2, f"verify --allow-incomplete: usage error ({rc})")
    # incomplete sets (real ones: interrupted by SIGINT, runner SIGKILLed):
    # refused with exit 4 unless --allow-incomplete, which marks them
    for kind in ("interrupted", "killed"):
        folder = os.path.join(d, "inc", kind)
        shutil.copytree(os.path.join(SRC, "tests", "selfcheck", f"fixture-udp-{kind}"), folder)
        refused(kind, folder, 4, [f"netproof-archive: {kind}: incomplete: ",
                                  "; not packed (--allow-incomplete packs it, marked "
                                  "incomplete in evidence.json)"])
        b = p(kind + "-allowed.tar.gz")
        rc, out = run([ARCHIVE, "pack", folder, "-o", b, "--allow-incomplete"])
        check(rc == 0 and f"{kind}: incomplete: " in out and "packed with --allow-incomplete" in out,
              f"{kind}: packed with --allow-incomplete ({rc} {out.strip()})")
        members = load(b)
        bt = members[0][0].name.rstrip("/")
        ev = json.loads(dict(base_map(members))[f"{bt}/evidence.json"])
        check([x["self_check"] for x in ev["suites"]] == ["incomplete"],
              f"{kind}: evidence.json marks the suite incomplete")
        rc, out = run([ARCHIVE, "verify", b])
        check(rc == 4 and f"{b}: valid" in out and "1 incomplete result set(s): " in out,
              f"{kind}: verify says valid and incomplete, exit 4 ({rc} {out.strip()})")
        forged = p(kind + "-forged.tar.gz")
        def claim_clean(e):
            e["suites"][0]["self_check"] = "clean"
        write(rebag(members, bt, {}, claim_clean), forged)
        rc, out = run([ARCHIVE, "verify", forged])
        check(rc == 1 and "evidence.json: /suites/0/self_check: does not match the payload" in out,
              f"{kind}: evidence re-bagged to claim a clean set: exit {rc} ({out.strip()[:300]})")
    rc, out = run([ARCHIVE, "pack", FIXTURE, "-o", p("complete.tar.gz"), "--allow-incomplete"])
    ev = json.loads(dict(base_map(load(p("complete.tar.gz"))))["complete/evidence.json"])
    check(rc == 0 and "incomplete" not in out and ev["suites"][0]["self_check"] == "clean",
          f"a complete set with --allow-incomplete is simply clean ({rc} {out.strip()})")


def group_limits():
    """pack and verify share one set of limits: what pack writes under a
    --max-bytes, verify accepts under the same (with none, under none), and
    a bundle whose bag-info.txt states a payload beyond verify's limits is
    refused at that first file, before any of the payload is inflated."""
    d = tempfile.mkdtemp(dir=WORK, prefix="limits-")
    members = dict(base_map(load(BASE)))
    t = top()
    payload = sum(len(v) for k, v in members.items() if v is not None and k.startswith(t + "/data/"))
    total = sum(len(v) for v in members.values() if v is not None)
    oxum = [l for l in members[t + "/bag-info.txt"].decode().splitlines()
            if l.startswith("Payload-Oxum: ")]
    check(oxum == [f"Payload-Oxum: {payload}.{sum(1 for k, v in members.items() if v is not None and k.startswith(t + '/data/'))}"],
          f"bag-info.txt states the payload's bytes and files ({oxum})")
    # (named as the base bundle, so the tag files are as long as its own)
    # a total that holds the payload but not the tag files as well: pack
    # used to write such a bundle that verify, with the same limit, refused
    for cap, name in ((payload + 1, "payload-only"), (total - 1, "one-short"),
                      (total, "exact")):
        b = os.path.join(d, name + ".tar.gz")
        rc, out = run([ARCHIVE, "pack", FIXTURE, "-o", b, "--name", t, "--max-bytes", str(cap)])
        rc2, out2 = run([ARCHIVE, "verify", b, "--max-bytes", str(cap)]) if rc == 0 else (None, "")
        if cap < total:
            check(rc == 2 and "over the %d-byte total limit (--max-bytes; verify needs the same); "
                  "not packed" % cap in out and not os.path.exists(b),
                  f"pack --max-bytes {cap} ({name}) refuses what verify would: exit {rc} "
                  f"{out.strip()[:300]} / verify {rc2} {out2.strip()[:300]}")
        else:
            check(rc == 0 and rc2 == 0, f"pack and verify --max-bytes {cap} ({name}): {rc} {rc2} "
                  f"{out.strip()[:200]} {out2.strip()[:300]}")
    # with no flags: the fresh bundle verifies with verify's defaults
    rc, out = run([ARCHIVE, "verify", BASE])
    check(rc == 0, f"pack's defaults are verify's: {out.strip()[:200]}")
    # a stated payload beyond --max-bytes: one problem, at bag-info.txt
    rc, out = run([ARCHIVE, "verify", BASE, "--max-bytes", str(payload - 1)])
    lines = [l for l in out.splitlines() if l.startswith(BASE + ":")]
    check(rc == 1 and len(lines) == 1 and
          f"{BASE}: {t}/bag-info.txt: states a payload of {payload} bytes (Payload-Oxum), over the "
          f"{payload - 1}-byte total limit (--max-bytes); not read further" in out,
          f"verify refuses at bag-info.txt, before the payload: exit {rc} {out.strip()[:400]}")
    # a payload within --max-bytes whose manifest (a line of >= 75 bytes a
    # file) cannot be: refused at bag-info.txt too, not at the tag files
    nfiles = sum(1 for k, v in members.items() if v is not None and k.startswith(t + "/data/"))
    cap = payload + 75 * nfiles - 1
    rc, out = run([ARCHIVE, "verify", BASE, "--max-bytes", str(cap)])
    lines = [l for l in out.splitlines() if l.startswith(BASE + ":")]
    check(rc == 1 and len(lines) == 1 and
          f"{t}/bag-info.txt: states a payload of {payload} bytes in {nfiles} files (Payload-Oxum), "
          f"which with its manifest makes at least {cap + 1}, over the {cap}-byte total limit" in out,
          f"verify counts the manifest at bag-info.txt: exit {rc} {out.strip()[:400]}")
    rc, out = run([ARCHIVE, "verify", BASE, "--max-entries", "3"])
    check(rc == 1 and "files (Payload-Oxum), over the limit of 3 entries (--max-entries); "
          "not read further" in out, f"--max-entries 3: exit {rc} {out.strip()[:300]}")
    # the refusal comes before any payload data is read: a bundle whose
    # stream turns to garbage right after bag-info.txt reports the
    # statement alone, not the broken stream behind it
    ms = [m for m in load(BASE) if m[0].name.rstrip("/") in (t, t + "/bag-info.txt")]
    raw = io.BytesIO()
    tf = tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT)
    for ti, data in ms:
        tf.addfile(ti, io.BytesIO(data) if data is not None else None)
    head = raw.getvalue()  # no end-of-archive blocks: garbage follows
    trunc = os.path.join(d, "cut.tar.gz")
    with open(trunc, "wb") as f:
        f.write(gzip.compress(head + b"\x01" * 4096))
    rc, out = run([ARCHIVE, "verify", trunc, "--max-bytes", "1000"])
    lines = [l for l in out.splitlines() if l.startswith(trunc + ":")]
    check(rc == 1 and len(lines) == 1 and "states a payload of" in lines[0],
          f"stopped at bag-info.txt ({[m[0].name for m in ms]}): exit {rc} {out.strip()[:400]}")
    shutil.rmtree(d)


LARGE_SET = os.path.join(SRC, "bench", "scripts", "large_set.py")


def group_largeset():
    """bench/scripts/large_set.py makes valid sets, or fails."""
    d = tempfile.mkdtemp(dir=WORK, prefix="large-")
    out = os.path.join(d, "big")
    rc, text = run([sys.executable, LARGE_SET, BUILD, out, "--runs", "30", "--source", FIXTURE],
                   timeout=120)
    check(rc == 0 and "self-check clean" in text, f"large_set: exit {rc} {text.strip()[-300:]}")
    recs = glob.glob(os.path.join(out, "runs", "*", "rep-*.json"))
    summ = json.load(open(os.path.join(out, "summary.json")))
    suite = json.load(open(os.path.join(out, "suite.json")))
    check(len(recs) == 32 and suite["repetitions"] == 8 and summ["repetitions"] == 8
          and summ["plan_sha256"] == suite["plan_sha256"],
          f"4 configurations x 8 repetitions, summary by the runner ({len(recs)} records)")
    starts = []
    for cid in [c["id"] for c in summ["configurations"]]:
        for k in range(1, 9):
            starts.append(json.load(open(os.path.join(out, "runs", cid, f"rep-{k}.json")))["started_at"])
    check(starts == sorted(starts) and len(set(starts)) == len(starts),
          "runs laid end to end in the runner's order")
    rc, text = run([ARCHIVE, "pack", out, "-o", os.path.join(d, "big.tar.gz")])
    rc2, text2 = run([ARCHIVE, "verify", os.path.join(d, "big.tar.gz")])
    check(rc == 0 and rc2 == 0, f"the large set packs and verifies ({rc} {rc2} {text2.strip()[:300]})")
    # a source that fails its self-check makes no set
    bad = os.path.join(d, "bad", "quick")
    shutil.copytree(FIXTURE, bad)
    rec = sorted(glob.glob(os.path.join(bad, "runs", "*", "rep-1.json")))[0]
    r = json.load(open(rec))
    r["counters"]["received"] -= 3
    json.dump(r, open(rec, "w"), indent="\t")
    rc, text = run([sys.executable, LARGE_SET, BUILD, os.path.join(d, "bad-big"), "--runs", "12",
                    "--source", bad], timeout=120)
    check(rc == 1 and "fails its self-check" in text, f"a bad source: exit {rc} {text.strip()[-300:]}")


def peak_rss(args):
    """netproof-archive ARGS: (exit code, output, peak RSS in MiB)."""
    with tempfile.TemporaryFile(mode="w+") as out:
        p = subprocess.Popen([ARCHIVE] + args, stdout=out, stderr=subprocess.STDOUT)
        try:
            _, status, ru = os.wait4(p.pid, 0)
        except BaseException:
            p.kill()
            raise
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        return p.returncode, out.read(), ru.ru_maxrss / 1024.0


def group_memory():
    """Neither verify's nor pack's memory grows with the set's bytes: the
    peak RSS of verifying the small base bundle and of packing its folder
    is measured, and a generated set whose payload is at least 1.5 x (the
    larger plus 48 MiB) packs and verifies within that plus 48 MiB.  (What
    does grow is a few KiB per run - file list, evidence facts, the
    self-check's per-run summary - well inside the margin here.)  pack held
    the whole payload before it streamed: about 1.15 x its bytes.  Peak
    RSS, not an address-space limit: the self-check's thread has a malloc
    arena of its own, whose 64 MiB reservations are address space, not
    memory."""
    d = tempfile.mkdtemp(dir=WORK, prefix="memory-")
    rc1, out1, vfloor = peak_rss(["verify", BASE])
    rc2, out2, pfloor = peak_rss(["pack", FIXTURE, "-o", os.path.join(d, "floor.tar.gz")])
    if rc1 != 0 or rc2 != 0:
        check(False, f"the base bundle verifies and its folder packs ({out1[:200]} {out2[:200]})")
        return
    limit = max(vfloor, pfloor) + 48
    per_run = sum(os.path.getsize(f) for f in glob.glob(os.path.join(FIXTURE, "runs", "*", "*")))
    per_run /= len(glob.glob(os.path.join(FIXTURE, "runs", "*", "rep-*.json")))
    # each run with its own snapshot files (the 0.2 form): a runner's set
    # stores them once, too few bytes within the 1,000 repetitions x 4
    # configurations the quick fixture allows
    per_run += 2 * max((os.path.getsize(f) for f in glob.glob(
        os.path.join(FIXTURE, "kernel-snapshots", "*.txt"))), default=0)
    runs = min(int(1.8 * (limit * 2**20) / per_run) + 1, 4000)
    big, bundle = os.path.join(d, "big"), os.path.join(d, "big.tar.gz")
    rc, text = run([sys.executable, LARGE_SET, BUILD, big, "--runs", str(runs), "--source", FIXTURE,
                    "--per-run-snapshots"], timeout=600)
    check(rc == 0, f"large set of {runs} runs ({text.strip()[-200:]})")
    payload = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(big) for f in fs)
    rc, text, rss = peak_rss(["pack", big, "-o", bundle])
    check(rc == 0 and rss <= limit and payload >= 1.5 * limit * 2**20,
          f"a {payload / 2**20:.0f} MiB payload packs within {limit:.0f} MiB: peak RSS "
          f"{rss:.0f} MiB (base folder {pfloor:.0f} MiB), exit {rc} {text.strip()[-300:]}")
    shutil.rmtree(big)
    rc, text, rss = peak_rss(["verify", bundle])
    check(rc == 0 and "valid" in text and rss <= limit and payload >= 1.5 * limit * 2**20,
          f"a {payload / 2**20:.0f} MiB payload verifies within {limit:.0f} MiB: peak RSS "
          f"{rss:.0f} MiB (base bundle {vfloor:.0f} MiB), exit {rc} {text.strip()[-300:]}")
    shutil.rmtree(d)


BASE_MTIME = 0
if GROUP != "setup":
    if not os.path.exists(BASE):
        print("FAIL setup has not run (no base bundle)")
        sys.exit(1)
    BASE_MTIME = load(BASE)[0][0].mtime
{"setup": group_setup, "hostile": group_hostile, "hostile_content": group_hostile_content, "repro": group_repro,
 "interop": group_interop, "extract": group_extract, "cli": group_cli, "sign": group_sign,
 "pack": group_pack, "largeset": group_largeset, "limits": group_limits,
 "memory": group_memory}[GROUP]()
print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
