#!/usr/bin/env python3
"""netproof-archive end-to-end tests: hostile bundles, reproducibility,
interoperability with GNU tar / bsdtar / sha256sum / jq, extract, CLI.

usage: archive_tests.py GROUP BUILD_DIR WORK_DIR
  GROUP: setup | hostile | hostile_content | repro | interop | extract | cli
`setup` runs `netproof-bench matrix bench/plans/quick.json` once into
WORK_DIR/fixture/quick (a real results folder) and packs WORK_DIR/base.tar.gz;
the other groups craft their cases from those.  Every case states the exit
code and the message it expects, and checks that nothing was written.
"""
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
    expect_verify("second gzip member with more tar after the end", p("two-members.tgz"),
                  0, [])
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

    # Tampered record, re-packed so every checksum is consistent: only the
    # report self-check's invariants can see it.
    tam = os.path.join(d, "tampered", "quick")
    shutil.copytree(FIXTURE, tam)
    rec_path = os.path.join(tam, os.path.relpath(run_rec, f"{t}/data/quick"))
    rec = json.load(open(rec_path))
    rec["counters"]["received"] -= 1
    json.dump(rec, open(rec_path, "w"), indent=2)
    rc, out = run([ARCHIVE, "pack", tam, "-o", p("tampered.tgz")])
    check(rc == 0, f"tampered folder packs ({out})")
    expect_verify("tampered record (self-check)", p("tampered.tgz"), 1,
                  [os.path.basename(run_rec)])

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


BASE_MTIME = 0
if GROUP != "setup":
    if not os.path.exists(BASE):
        print("FAIL setup has not run (no base bundle)")
        sys.exit(1)
    BASE_MTIME = load(BASE)[0][0].mtime
{"setup": group_setup, "hostile": group_hostile, "hostile_content": group_hostile_content, "repro": group_repro,
 "interop": group_interop, "extract": group_extract, "cli": group_cli}[GROUP]()
print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
