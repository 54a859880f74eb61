#!/usr/bin/env python3
"""Attack: a bundle that is more than its bytes say.  After the tar end
marker a second tar (a replaced rep-1.json and an extra evil.sh) hid in
the read-ahead libarchive never looked at: verify said "valid", and GNU
`tar -xzif` extracted the hidden files.  Only zero padding may follow the
end marker, the gzip stream must be one member, and nothing may follow it.
Zeros are accepted; everything else is refused by verify and by extract
(which writes nothing).

usage: tar_trailer_attack.py BUILD_DIR SOURCE_DIR
"""
import gzip
import io
import os
import shutil
import sys
import tarfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from jbsec import Box, args, check, finish, fixture, run, tools


def end_of_archive(tar_bytes):
    """Offset of the tar end marker (the first of its zero blocks)."""
    tf = tarfile.open(fileobj=io.BytesIO(tar_bytes))
    tf.getmembers()
    return tf.offset


def hidden_tar(top):
    bio = io.BytesIO()
    with tarfile.open(fileobj=bio, mode="w", format=tarfile.USTAR_FORMAT) as t:
        for name, data in [(f"{top}/evil.sh", b"#!/bin/sh\necho owned\n"),
                           (f"{top}/suite.json", b"{}\n")]:
            ti = tarfile.TarInfo(name)
            ti.size = len(data)
            ti.mode = 0o755
            t.addfile(ti, io.BytesIO(data))
    return bio.getvalue()


def main():
    build, source = args()
    t = tools(build)
    box = Box("trailer")
    try:
        good = os.path.join(box.inp, "good.tar.gz")
        rc, _, err = run([t["archive"], "pack", fixture(source), "-o", good,
                          "--name", "b"])
        check(rc == 0, f"pack (exit {rc}) {err[:200]!r}")
        raw = gzip.decompress(open(good, "rb").read())
        end = end_of_archive(raw)
        head = raw[:end + 1024]  # through the two zero blocks
        bundles = {
            # (bytes, expected verify exit, needle)
            "zeros": (gzip.compress(raw + bytes(8192), mtime=0), 0, b"valid"),
            "hidden tar": (gzip.compress(head + hidden_tar("b") +
                                         bytes(10240), mtime=0), 1,
                           b"data after the end of the tar archive"),
            "one byte": (gzip.compress(raw + b"\x01", mtime=0), 1,
                         b"data after the end of the tar archive"),
            "far byte": (gzip.compress(raw + bytes(3 << 20) + b"\x01",
                                       mtime=0), 1,
                         b"data after the end of the tar archive"),
            "second member": (open(good, "rb").read() +
                              gzip.compress(bytes(1024), mtime=0), 1,
                              b"a second gzip member after the first"),
            "bytes after gzip": (open(good, "rb").read() + b"x", 1,
                                 b"data after the end of the gzip stream"),
        }
        paths = {}
        for name, (data, _, _) in bundles.items():
            p = os.path.join(box.inp, name.replace(" ", "-") + ".tar.gz")
            open(p, "wb").write(data)
            paths[name] = p
        box.seal()
        # the attack is real: GNU tar -i reads past the end marker
        if shutil.which("tar"):
            rc, out, _ = run(["tar", "-tzif", paths["hidden tar"]])
            check(b"b/evil.sh" in out, "GNU tar -i sees the hidden files "
                  "(the attack this guards against)")
        for name, (data, want, needle) in bundles.items():
            rc, out, err = run([t["archive"], "verify", paths[name]])
            check(rc == want and needle in out + err,
                  f"{name}: verify exit {rc} (want {want}) "
                  f"'{needle.decode()}' {(out + err)[-160:]!r}")
            dest = os.path.join(box.out, name.replace(" ", "-"))
            rc, out, err = run([t["archive"], "extract", paths[name], "-C",
                                dest])
            if want == 0:
                check(rc == 0 and os.path.isdir(dest),
                      f"{name}: extract exit {rc}")
            else:
                check(rc == 1 and not os.path.exists(dest),
                      f"{name}: extract exit {rc} (want 1), nothing written")
        box.check_nothing_outside("tar trailers")
    finally:
        box.close()
    finish("tar_trailer_attack")


if __name__ == "__main__":
    main()
