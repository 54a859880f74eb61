"""Shared plumbing of the readers' attack scripts (tests/security/*_attack.py).

Each script gets BUILD_DIR and SOURCE_DIR, builds its hostile input in a
Box (a temporary folder removed at exit), runs the real programs on it and
asserts the refusal.  A Box has three folders: `in` (the hostile input,
which no reader may change), `out` (where a program is told to write) and
`outside` (never named to any program: it must stay empty, and every
symlink an attack plants points into it).
"""
import hashlib
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "lib"))
import nptest  # noqa: E402

CHECKS = nptest.Checks(prefix="FAIL", ok_prefix="ok  ")
check = CHECKS.check


def finish(name):
    if CHECKS.fails:
        print(f"{name}: {len(CHECKS.fails)} failed")
        sys.exit(1)
    print(f"{name}: all checks passed")


def args():
    if len(sys.argv) != 3:
        print(f"usage: {sys.argv[0]} BUILD_DIR SOURCE_DIR")
        sys.exit(2)
    return os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])


def tools(build):
    return {
        "report": os.path.join(build, "report", "netproof-report"),
        "archive": os.path.join(build, "archive", "netproof-archive"),
        "validate": os.path.join(build, "schema", "netproof-validate"),
        "bench": os.path.join(build, "bench", "netproof-bench"),
    }


def run(argv, timeout=120, env=None):
    """(exit code, stdout, stderr) as bytes: a reader's output is checked
    byte by byte (escape sequences)."""
    e = dict(os.environ, LC_ALL="C")
    if env:
        e.update(env)
    return nptest.run(argv, timeout=timeout, env=e, text=False)


def digest(root):
    """{relative path: (kind, sha256 or link target)} of everything under
    root, symlinks not followed."""
    out = {}
    for dirpath, dirs, files in os.walk(root):
        for n in dirs + files:
            p = os.path.join(dirpath, n)
            rel = os.path.relpath(p, root)
            if os.path.islink(p):
                out[rel] = ("link", os.readlink(p))
            elif os.path.isdir(p):
                out[rel] = ("dir", "")
            elif os.path.isfile(p):
                h = hashlib.sha256()
                with open(p, "rb") as f:  # in blocks: files may be huge
                    for block in iter(lambda: f.read(1 << 20), b""):
                        h.update(block)
                out[rel] = ("file", h.hexdigest())
            else:
                out[rel] = ("special", "")
    return out


class Box:
    def __init__(self, name):
        self.root = tempfile.mkdtemp(prefix=f"np-sec-{name}-")
        self.inp = os.path.join(self.root, "in")
        self.out = os.path.join(self.root, "out")
        self.outside = os.path.join(self.root, "outside")
        for d in (self.inp, self.out, self.outside):
            os.makedirs(d)
        self.before = None

    def seal(self):
        """Call once the hostile input is laid out."""
        self.before = digest(self.inp)

    def check_nothing_outside(self, what):
        check(os.listdir(self.outside) == [],
              f"{what}: nothing written outside the output folder")
        if self.before is not None:
            check(digest(self.inp) == self.before,
                  f"{what}: the input is unchanged")

    def close(self):
        shutil.rmtree(self.root, ignore_errors=True)


def copy_set(src, dst):
    shutil.copytree(src, dst, symlinks=True)
    return dst


def fixture(source, name="udp"):
    return os.path.join(source, "tests", "selfcheck", "fixture-" + name)


def first_record(set_dir):
    runs = os.path.join(set_dir, "runs")
    cfg = sorted(os.listdir(runs))[0]
    return os.path.join(runs, cfg, "rep-1.json")


def replace_once(path, old, new):
    data = open(path, "rb").read()
    assert old in data, (path, old)
    open(path, "wb").write(data.replace(old, new, 1))
