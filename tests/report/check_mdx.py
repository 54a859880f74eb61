#!/usr/bin/env python3
"""check_mdx.py PAGE.mdx [TITLE] - a generated MDX page drops into a
documentation site: its YAML front matter parses and holds the title (equal
to TITLE when given), and outside code no character can open a JSX
expression or element: every '{' and '}' is backslash-escaped and there is
no raw '<' (the one `{/* ... */}` comment after the front matter aside).
One line per problem; exit 1 when there is any."""
import re
import sys

import yaml


def main():
    if len(sys.argv) not in (2, 3):
        print("usage: check_mdx.py PAGE.mdx [TITLE]", file=sys.stderr)
        return 2
    path = sys.argv[1]
    text = open(path, encoding="utf-8").read()
    problems = []
    m = re.match(r"---\n(.*?)\n---\n", text, re.S)
    if not m:
        print("%s: no YAML front matter" % path)
        return 1
    meta = yaml.safe_load(m.group(1))
    if not isinstance(meta, dict) or not isinstance(meta.get("title"), str):
        problems.append("%s: front matter has no title" % path)
    elif len(sys.argv) == 3 and meta["title"] != sys.argv[2]:
        problems.append("%s: title %r, expected %r" % (path, meta["title"],
                                                       sys.argv[2]))
    body = text[m.end():]
    body = re.sub(r"\A\s*\{/\*.*?\*/\}\n", "", body, count=1, flags=re.S)
    fence = False
    for n, line in enumerate(body.split("\n"), 1):
        if line.startswith("```"):
            fence = not fence
            continue
        if fence:
            continue
        # inline code spans are left alone by MDX
        plain = re.sub(r"`[^`]*`", "", line)
        for i, ch in enumerate(plain):
            escaped = i > 0 and plain[i - 1] == "\\"
            if ch in "{}" and not escaped:
                problems.append("%s: line %d: unescaped %r: %s" %
                                (path, n, ch, line[:80]))
            if ch == "<":
                problems.append("%s: line %d: raw '<': %s" % (path, n,
                                                              line[:80]))
    if fence:
        problems.append("%s: unclosed code fence" % path)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
