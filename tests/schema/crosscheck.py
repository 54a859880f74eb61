#!/usr/bin/env python3
"""Cross-check np_schema against python3-jsonschema (Draft 2020-12).

1. Every shipped schema/*.schema.json passes Draft202012Validator.check_schema.
2. Every case file under tests/schema/cases/ named <name>-valid-*.json or
   <name>-invalid-*.json is validated by netproof-validate and by python
   against <name>.schema.json (from cases/, else the shipped schema/); both
   must agree with each other and with the file name.  <name>-strict-*.json
   are netproof's one deliberate difference: "integer" is exact as written
   (1.0, 1e2 and integers beyond 2^53-1 are refused), so python must find
   them valid and netproof-validate invalid.
3. Every document in the project (tests/, results/, bench/, docs/) whose
   "schema" field names a shipped schema ("netproof/run/1"), and mutations
   of it (a required property removed, an unknown property added, a number
   turned into a string), are validated by both; they must agree.

usage: crosscheck.py NETPROOF_VALIDATE SCHEMA_DIR CASES_DIR [PROJECT_DIR]
"""
import glob
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "lib"))
import nptest  # noqa: E402

# one "FAIL what" line per disagreement, as before
T = nptest.Checks(prefix="FAIL")

try:
    import jsonschema
except ImportError:
    print("python3-jsonschema is missing: install the Debian package "
          "python3-jsonschema (scripts/install-deps.sh --test)")
    sys.exit(1)


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def ours_valid_many(validate, schema_path, paths):
    """{path: True/False/None} from one netproof-validate run (None: it
    could not read or decide that file)."""
    rc, stdout, stderr = nptest.run([validate, "--schema", schema_path, "--"]
                                    + paths, timeout=120)
    valid = {line[:-len(": valid")] for line in stdout.splitlines()
             if line.endswith(": valid")}
    out = {}
    for p in paths:
        if p in valid:
            out[p] = True
        elif any(line.startswith(p + ": /") or line.startswith(p + ": (root)")
                 for line in stdout.splitlines()):
            out[p] = False
        else:
            out[p] = None
    if rc not in (0, 1):
        print(f"netproof-validate exit {rc}: {stderr.strip()}")
    return out


def first_number_path(doc, path=()):
    """Path to the first number leaf (not bool), depth first, or None."""
    if isinstance(doc, bool):
        return None
    if isinstance(doc, (int, float)):
        return path
    items = doc.items() if isinstance(doc, dict) else (
        enumerate(doc) if isinstance(doc, list) else ())
    for k, v in items:
        p = first_number_path(v, path + (k,))
        if p is not None:
            return p
    return None


def mutations(doc, schema):
    """Variants of a valid document that a schema should judge."""
    out = []
    req = [k for k in schema.get("required", []) if k in doc and k != "schema"]
    if req:
        d = json.loads(json.dumps(doc))
        del d[req[0]]
        out.append(("no-" + req[0], d))
    d = json.loads(json.dumps(doc))
    d["zz_unknown_property"] = 1
    out.append(("extra-property", d))
    p = first_number_path(doc)
    if p:
        d = json.loads(json.dumps(doc))
        t = d
        for k in p[:-1]:
            t = t[k]
        t[p[-1]] = "not a number"
        out.append(("string-for-number", d))
    return out


def tagged_documents(project):
    pat = re.compile(r"^netproof/([a-z0-9_-]+)/1$")
    for top in ("tests", "results", "bench", "docs"):
        for path in sorted(glob.glob(os.path.join(project, top, "**", "*.json"),
                                     recursive=True)):
            if "/tests/schema/cases/" in path or "/tests/fuzz/" in path:
                continue
            if os.path.getsize(path) > 8 << 20:
                continue
            try:
                doc = load(path)
            except (ValueError, UnicodeDecodeError):
                continue
            tag = doc.get("schema") if isinstance(doc, dict) else None
            m = pat.match(tag) if isinstance(tag, str) else None
            if m:
                yield path, m.group(1), doc


def check_shipped_documents(validate, schema_dir, project, per_schema=12):
    """Agreement on project documents (at most per_schema of each kind, to
    bound the run time) and their mutations: (checked, failed)."""
    checked, before = 0, len(T.fails)
    taken = {}
    with nptest.tmpdir(prefix="np-crosscheck-", checks=T) as tmp:
        batches = {}  # schema path -> [(file, python verdict, label)]
        for path, name, doc in tagged_documents(project):
            schema_path = os.path.join(schema_dir, name + ".schema.json")
            if not os.path.exists(schema_path) or taken.get(name, 0) >= per_schema:
                continue
            taken[name] = taken.get(name, 0) + 1
            schema = load(schema_path)
            v = jsonschema.Draft202012Validator(schema)
            for label, d in [("as-is", doc)] + mutations(doc, schema):
                f = os.path.join(tmp, f"{len(os.listdir(tmp))}-{label}.json")
                with open(f, "w", encoding="utf-8") as out:
                    json.dump(d, out)
                batches.setdefault(schema_path, []).append(
                    (f, v.is_valid(d), f"{path} ({label})"))
        for schema_path, items in sorted(batches.items()):
            ours = ours_valid_many(validate, schema_path, [f for f, _, _ in items])
            for f, py, label in items:
                checked += 1
                T.check(ours[f] == py, f"{label}: python {py}, ours {ours[f]}")
    print("project documents per schema: " +
          ", ".join(f"{k} {n}" for k, n in sorted(taken.items())))
    return checked, len(T.fails) - before


def main():
    validate, schema_dir, cases_dir = sys.argv[1:4]
    checked = 0
    shipped = sorted(glob.glob(os.path.join(schema_dir, "*.schema.json")))
    for path in shipped + [os.path.join(cases_dir, "sample.schema.json")]:
        try:
            jsonschema.Draft202012Validator.check_schema(load(path))
            checked += 1
        except jsonschema.exceptions.SchemaError as e:
            T.fail(f"{path}: check_schema: {e.message}")
    print(f"check_schema: {len(shipped)} shipped schemas + sample")

    pat = re.compile(r"^(.+?)-(valid|invalid|strict)-.+\.json$")
    groups = {}
    for case in sorted(glob.glob(os.path.join(cases_dir, "*.json"))):
        m = pat.match(os.path.basename(case))
        if not m:
            continue
        schema_path = os.path.join(cases_dir, m.group(1) + ".schema.json")
        if not os.path.exists(schema_path):
            schema_path = os.path.join(schema_dir, m.group(1) + ".schema.json")
        groups.setdefault(schema_path, []).append((case, m.group(2)))
    for schema_path, cases in sorted(groups.items()):
        v = jsonschema.Draft202012Validator(load(schema_path))
        ours = ours_valid_many(validate, schema_path, [c for c, _ in cases])
        for case, kind in cases:
            py = v.is_valid(load(case))
            checked += 1
            want = kind == "valid"
            if kind == "strict" and (py is not True or ours[case] is not False):
                T.fail(f"{case}: expected python True, ours False; "
                       f"python {py}, ours {ours[case]}")
            elif kind != "strict" and (ours[case] != py or py != want):
                T.fail(f"{case}: expected {want}, python {py}, "
                       f"ours {ours[case]}")
    if len(sys.argv) > 4:
        n, f = check_shipped_documents(validate, schema_dir, sys.argv[4])
        print(f"project documents and mutations: {n} checked, {f} disagree")
        checked += n
    failures = len(T.fails)
    print(f"crosscheck: {checked - failures} passed, {failures} failed")
    sys.exit(1 if failures or checked < 10 else 0)


if __name__ == "__main__":
    main()
