#!/usr/bin/env python3
"""package_test.py MODE BUILD SRC [CPACK] - netproof installed, used and
removed the ways a user would.

  build     cpack -G DEB from BUILD into BUILD/tests/install/pkg (the ctest
            fixture the other modes need); the control fields (Depends
            holding the package of every shared library the programs
            load), the file list (programs, plans, schemas, every man page,
            completions, copyright, changelog; nothing from the build tree)
  unpacked  dpkg-deb -x into a fresh folder, no root needed: the programs
            run from there and find their plans beside themselves
  dpkg      dpkg -i, run from /usr/bin, man and completion found, dpkg -r,
            no file left (root only; skipped, exit 77, without root or
            dpkg, with netproof already installed, or dpkg locked)
  lintian   lintian on the package: no error (skipped without lintian)
  destdir   cmake --install --prefix /opt/netproof with DESTDIR: the layout,
            and the installed programs running from it

Every run does what a first user does: `netproof-bench udp --seconds
0.2`, `netproof-bench matrix quick --dry-run --output DIR` (the plan by
name), `netproof-report --help`, `netproof-archive --help`, plus a report
and a verified bundle of a small result set (plplot's SVG driver and
libarchive at run time) and the record checked by the installed
netproof-validate.
"""
import glob
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "lib"))
import nptest  # noqa: E402

MODE, BUILD, SRC = sys.argv[1:4]
CPACK = sys.argv[4] if len(sys.argv) > 4 else "cpack"
PKG_DIR = os.path.join(BUILD, "tests", "install", "pkg")
PROGRAMS = ["netproof-bench", "netproof-report", "netproof-archive",
            "netproof-validate"]
FIXTURE = os.path.join(SRC, "tests", "report", "fixture")
SKIP = 77
T = nptest.Checks()
check = T.check


def version():
    rc, out, _ = nptest.run([os.path.join(BUILD, "bench", "netproof-bench"), "--version"])
    return out.split()[1]


def the_deb():
    debs = glob.glob(os.path.join(PKG_DIR, "*.deb"))
    if len(debs) != 1:
        print("package_test: expected one .deb in %s, found %s" % (PKG_DIR, debs))
        sys.exit(1)
    return debs[0]


def expected_files():
    """Paths (without the prefix) every install must hold."""
    want = ["bin/" + p for p in PROGRAMS]
    want += ["share/netproof/plans/" + os.path.basename(f)
             for f in glob.glob(os.path.join(SRC, "bench/plans/*.json"))]
    want += ["share/netproof/schemas/" + os.path.basename(f)
             for f in glob.glob(os.path.join(SRC, "schema/*.schema.json"))]
    want += ["share/man/man1/%s.gz" % os.path.basename(f)
             for f in glob.glob(os.path.join(BUILD, "man/man1/*.1"))]
    want += ["share/bash-completion/completions/" + p for p in PROGRAMS]
    want += ["share/doc/netproof/" + f for f in
             ("copyright", "changelog.gz", "README.md",
              "docs/udp-benchmark.md", "docs/guides/any-benchmark.md")]
    return want


FORBIDDEN = re.compile(r"netproof-source-dir|np_docgen|fec-bench|np_plain_echo|"
                       r"np_stats_calibration|np_echo_probe|np_relay_compare|"
                       r"np_rudp_plain_bound|/performance/|usr/local")


def use(bindir, tmp, staged_plan_dir=None):
    """What a first user types, from bindir; checks, not exit codes only."""
    bench = os.path.join(bindir, "netproof-bench")
    rec = os.path.join(tmp, "run.json")
    rc, out, err = nptest.run([bench, "udp", "--seconds", "0.2", "--output", rec])
    check(rc == 0, "%s udp --seconds 0.2 exits 0: %s" % (bench, err.strip()))
    rc, out, err = nptest.run([os.path.join(bindir, "netproof-validate"), rec])
    check(rc == 0 and out.strip() == rec + ": valid",
          "the installed validator accepts the record: %s %s" % (out, err))
    q = os.path.join(tmp, "quick")
    rc, out, err = nptest.run([bench, "matrix", "quick", "--dry-run", "--output", q])
    check(rc == 0 and "suite quick: 4 configurations" in out,
          "matrix quick --dry-run by name: %s %s" % (out[-300:], err))
    check(not os.path.exists(q), "--dry-run writes nothing")
    check(bench in out, "children would be the installed program")
    if staged_plan_dir is not None:
        # a plan only the install holds: found beside the program
        plan = open(os.path.join(staged_plan_dir, "quick.json")).read()
        extra = os.path.join(staged_plan_dir, "zz-installed-only.json")
        with open(extra, "w") as f:
            f.write(plan.replace('"suite": "quick"', '"suite": "zz-installed-only"'))
        rc, out, err = nptest.run([bench, "matrix", "zz-installed-only", "--dry-run"])
        check(rc == 0 and "suite zz-installed-only:" in out,
              "a plan beside the install is found: %s" % err)
        os.unlink(extra)
    rc, out, err = nptest.run([bench, "matrix", "no-such-plan", "--dry-run"])
    check(rc == 2 and "plan 'no-such-plan': no no-such-plan.json in " in err
          and err.count("\n") == 1, "an unknown plan: exit 2, one line: %s" % err)
    for prog in ("netproof-report", "netproof-archive"):
        rc, out, err = nptest.run([os.path.join(bindir, prog), "--help"])
        check(rc == 0 and out.startswith("usage: " + prog),
              "%s --help: %s" % (prog, err))
    rep = os.path.join(tmp, "report")
    rc, out, err = nptest.run([os.path.join(bindir, "netproof-report"), "--results",
                        FIXTURE, "--output", rep])
    check(rc == 0 and glob.glob(os.path.join(rep, "assets", "*.svg")),
          "the installed report draws SVG charts: %s" % err)
    bundle = os.path.join(tmp, "f.tar.gz")
    arch = os.path.join(bindir, "netproof-archive")
    rc1, _, err1 = nptest.run([arch, "pack", FIXTURE, "-o", bundle])
    rc2, out2, err2 = nptest.run([arch, "verify", bundle])
    check(rc1 == 0 and rc2 == 0 and out2.strip() == bundle + ": valid",
          "the installed archive packs and verifies: %s %s" % (err1, err2))


def deb_fields(deb):
    rc, out, _ = nptest.run(["dpkg-deb", "-f", deb])
    fields = {}
    for line in out.splitlines():
        if line and not line.startswith(" ") and ":" in line:
            k, v = line.split(":", 1)
            fields[k] = v.strip()
    return fields, out


def needed_packages():
    """The Debian packages of the shared libraries the programs link
    directly (their NEEDED entries, what dpkg-shlibdeps looks at)."""
    libs = set()
    for p in PROGRAMS:
        exe = glob.glob(os.path.join(BUILD, "*", p))[0]
        _, dyn, _ = nptest.run(["readelf", "-d", exe])
        _, ldd, _ = nptest.run(["ldd", exe])
        where = dict(re.findall(r"(?m)^\s*(\S+) => (/\S+)", ldd))
        for soname in re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dyn):
            if check(soname in where, "%s: %s not found by ldd" % (p, soname)):
                libs.add(os.path.realpath(where[soname]))
    # one query for all (dpkg-query -S reads every file list); merged /usr:
    # dpkg may know a library under /lib or /usr/lib
    names = sorted(libs) + sorted(l[4:] for l in libs if l.startswith("/usr/"))
    _, out, _ = nptest.run(["dpkg-query", "-S"] + names)
    owner = {}
    for line in out.splitlines():
        pkg, _, path = line.partition(": ")
        owner[os.path.basename(path)] = pkg.split(":")[0]
    for lib in sorted(libs):
        check(os.path.basename(lib) in owner, "no package owns %s" % lib)
    return set(owner.values())


def mode_build():
    if shutil.which("dpkg-deb") is None or shutil.which("dpkg-shlibdeps") is None:
        print("SKIP: dpkg-deb / dpkg-shlibdeps (dpkg-dev) not installed")
        return SKIP
    shutil.rmtree(PKG_DIR, ignore_errors=True)
    os.makedirs(PKG_DIR)
    rc, out, err = nptest.run([CPACK, "-G", "DEB", "--config",
                        os.path.join(BUILD, "CPackConfig.cmake"), "-B", PKG_DIR],
                       timeout=240)
    if not check(rc == 0, "cpack -G DEB: %s %s" % (out[-2000:], err[-2000:])):
        return 1
    shutil.rmtree(os.path.join(PKG_DIR, "_CPack_Packages"), ignore_errors=True)
    deb = the_deb()
    ver = version()
    arch = nptest.run(["dpkg", "--print-architecture"])[1].strip()
    check(os.path.basename(deb) == "netproof_%s_%s.deb" % (ver, arch),
          "file name %s" % os.path.basename(deb))
    fields, control = deb_fields(deb)
    print(control)
    for k, v in [("Package", "netproof"), ("Version", ver), ("Architecture", arch),
                 ("Section", "net"), ("Priority", "optional"),
                 ("Suggests", "iperf3, sockperf"),
                 ("Recommends", "bash-completion")]:
        check(fields.get(k) == v, "%s: %s, want %s" % (k, fields.get(k), v))
    check(re.match(r"^[^<>]+ <[^<>@]+@[^<>]+>$", fields.get("Maintainer", "")),
          "Maintainer %s" % fields.get("Maintainer"))
    depends = {d.split()[0] for d in fields.get("Depends", "").split(",") if d.strip()}
    for pkg in sorted(needed_packages()):
        check(pkg in depends, "Depends has %s (%s)" % (pkg, fields.get("Depends")))
    rc, listing, _ = nptest.run(["dpkg-deb", "-c", deb])
    paths = {}
    for line in listing.splitlines():
        parts = line.split()
        paths[parts[5][2:] if parts[5].startswith("./") else parts[5]] = parts
    for f in expected_files():
        check("usr/" + f in paths, "the package holds /usr/%s" % f)
    for path, parts in paths.items():
        check(not FORBIDDEN.search(path), "the package must not hold /%s" % path)
        check(parts[1] == "root/root", "/%s owned by %s" % (path, parts[1]))
        want = ("drwxr-xr-x" if parts[0].startswith("d") else
                "-rwxr-xr-x" if path.startswith("usr/bin/") else "-rw-r--r--")
        check(parts[0] == want, "/%s mode %s, want %s" % (path, parts[0], want))
    return 0


def mode_unpacked():
    deb = the_deb()
    with tempfile.TemporaryDirectory() as root:
        rc, _, err = nptest.run(["dpkg-deb", "-x", deb, root])
        if not check(rc == 0, "dpkg-deb -x: %s" % err):
            return 1
        work = os.path.join(root, "work")
        os.mkdir(work)
        use(os.path.join(root, "usr", "bin"), work,
            os.path.join(root, "usr", "share", "netproof", "plans"))
    return 0


def dpkg_status():
    rc, out, _ = nptest.run(["dpkg-query", "-W", "-f=${Status}", "netproof"])
    return out.strip() if rc == 0 else "not-installed"


def mode_dpkg():
    if os.geteuid() != 0 or shutil.which("dpkg") is None:
        print("SKIP: dpkg -i needs root and dpkg (the unpacked and destdir "
              "tests cover the files)")
        return SKIP
    if dpkg_status().endswith(" installed") or os.path.exists("/usr/bin/netproof-bench"):
        print("SKIP: netproof is already installed on this machine; not touching it")
        return SKIP
    deb = the_deb()
    rc, out, err = nptest.run(["dpkg", "-i", deb], timeout=240)
    if rc != 0 and "lock" in err:
        print("SKIP: dpkg is locked by another process: %s" % err.strip())
        return SKIP
    if not check(rc == 0, "dpkg -i: %s %s" % (out, err)):
        nptest.run(["dpkg", "-r", "netproof"], timeout=240)
        return 1
    try:
        rc, listing, _ = nptest.run(["dpkg-query", "-L", "netproof"])
        files = [p for p in listing.splitlines() if p.strip()]
        check(dpkg_status() == "install ok installed", "status %s" % dpkg_status())
        with tempfile.TemporaryDirectory() as tmp:
            use("/usr/bin", tmp)
        if shutil.which("man"):
            rc, out, err = nptest.run(["man", "-w", "netproof-bench-udp"])
            check(rc == 0 and out.strip() == "/usr/share/man/man1/netproof-bench-udp.1.gz",
                  "man finds netproof-bench-udp: %s %s" % (out, err))
        rc, out, err = nptest.run(["bash", "-c", "source /usr/share/bash-completion/"
                            "completions/netproof-bench && complete -p netproof-archive"])
        check(rc == 0 and "_netproof" in out, "completion loads: %s" % err)
    finally:
        rc, out, err = nptest.run(["dpkg", "-r", "netproof"], timeout=240)
    check(rc == 0, "dpkg -r: %s %s" % (out, err))
    check(dpkg_status() in ("not-installed", "unknown ok not-installed"),
          "after dpkg -r: %s" % dpkg_status())
    left = [f for f in files if os.path.lexists(f) and not os.path.isdir(f)]
    check(left == [], "files left after dpkg -r: %s" % left)
    for d in ("/usr/share/netproof", "/usr/share/doc/netproof"):
        check(not os.path.exists(d), "%s removed" % d)
    return 0


def mode_lintian():
    if shutil.which("lintian") is None:
        print("SKIP: lintian not installed")
        return SKIP
    deb = the_deb()
    # lintian leaves mldbm-elf-* files in its TMPDIR: give it one to remove
    with tempfile.TemporaryDirectory(prefix="np-lintian-") as tmp:
        rc, out, err = nptest.run(["lintian", "--fail-on", "error", "--tag-display-limit",
                            "0", "--display-info", deb], timeout=600,
                           env=dict(os.environ, TMPDIR=tmp))
    print(out + err)
    check(rc == 0 and not re.search(r"(?m)^E: ", out), "lintian: errors")
    return 0


def mode_destdir():
    with tempfile.TemporaryDirectory() as dest:
        env = dict(os.environ, DESTDIR=dest)
        rc, out, err = nptest.run(["cmake", "--install", BUILD, "--prefix", "/opt/netproof"],
                           env=env, timeout=120)
        if not check(rc == 0, "cmake --install: %s %s" % (out, err)):
            return 1
        prefix = os.path.join(dest, "opt", "netproof")
        for f in expected_files():
            check(os.path.exists(os.path.join(prefix, f)), "installed %s" % f)
        for top, dirs, files in os.walk(dest):
            for f in files:
                path = os.path.relpath(os.path.join(top, f), dest)
                check(path.startswith("opt/netproof/"), "%s outside the prefix" % path)
                check(not FORBIDDEN.search(path), "must not install %s" % path)
        work = os.path.join(dest, "work")
        os.mkdir(work)
        use(os.path.join(prefix, "bin"), work,
            os.path.join(prefix, "share", "netproof", "plans"))
    return 0


def main():
    rc = {"build": mode_build, "unpacked": mode_unpacked, "dpkg": mode_dpkg,
          "lintian": mode_lintian, "destdir": mode_destdir}[MODE]()
    if rc == SKIP:
        return SKIP
    if T.fails:
        print("%d failure(s)" % len(T.fails))
        return 1
    print("package_test %s: ok" % MODE)
    return rc


if __name__ == "__main__":
    sys.exit(main())
