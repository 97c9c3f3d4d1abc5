#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""transcript.py EXPECTED ACTUAL

Does the console transcript ACTUAL (what a run of a document's commands
printed) match EXPECTED (the transcript the document shows)? Lines must be
equal, except that "…" in a line of EXPECTED stands for any text within
that line (a time, a process number), and a line that is only "…" for any
number of lines, none included (a program's banner, whose wording differs
between its versions). Exits 0 on a match; else prints a unified diff and
exits 1.
"""
import difflib
import re
import sys

ELLIPSIS = "\u2026"


def pattern(lines):
    """A regular expression for the transcript EXPECTED's lines describe."""
    parts = []
    for line in lines:
        if line == ELLIPSIS:
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append("[^\n]*".join(re.escape(p) for p in line.split(ELLIPSIS)) + r"\n")
    return re.compile("".join(parts), re.DOTALL)


def main():
    with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
        want = f.read().splitlines()
    with open(sys.argv[2], encoding="utf-8", errors="replace") as f:
        got = f.read().splitlines()
    text = "".join(line + "\n" for line in got)
    if pattern(want).fullmatch(text):
        return 0
    sys.stdout.writelines(difflib.unified_diff(
        [l + "\n" for l in want], [l + "\n" for l in got], "document", "this run"))
    # the first line of the document the run does not get to
    for k in range(len(want), -1, -1):
        if re.compile(pattern(want[:k]).pattern + r"(?:[^\n]*\n)*", re.DOTALL).fullmatch(text):
            break
    print("the run matches the document up to its line %d; it does not match from: %s"
          % (k, want[k] if k < len(want) else "(the end)"))
    return 1


if __name__ == "__main__":
    sys.exit(main())
