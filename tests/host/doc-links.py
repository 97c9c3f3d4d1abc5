#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""doc-links.py FILE...: every relative link of these Markdown files
resolves: the file or directory it names exists, and an anchor (#...)
names a heading of the file it points into (GitHub's way of making anchors
of headings). Prints each broken link and exits 1 if there is one."""
import os
import re
import sys

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(```|~~~)")


def anchors(path):
    """The anchors GitHub makes of the headings of a Markdown file."""
    found, seen, fenced = set(), {}, False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if FENCE.match(line):
                fenced = not fenced
                continue
            m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if fenced or not m:
                continue
            text = re.sub(r"`|\*|_(?=\w)|(?<=\w)_", "", m.group(1)).lower()
            slug = re.sub(r"[^\w\- ]", "", text).replace(" ", "-")
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            found.add(slug if n == 0 else "%s-%d" % (slug, n))
    return found


def links(path):
    fenced = False
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            if FENCE.match(line):
                fenced = not fenced
                continue
            if not fenced:
                for m in LINK.finditer(line):
                    yield no, m.group(1)


def main():
    bad = checked = 0
    for doc in sys.argv[1:]:
        for no, target in links(doc):
            if re.match(r"^[a-z]+:", target):
                continue        # https:, mailto: ...
            checked += 1
            path, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(doc), path)) if path else doc
            if not os.path.exists(dest):
                print("%s:%d: %s: no such file" % (doc, no, target))
                bad += 1
            elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                print("%s:%d: %s: no such heading in %s" % (doc, no, target, dest))
                bad += 1
    print("%d relative links in %d files, %d broken" % (checked, len(sys.argv) - 1, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
