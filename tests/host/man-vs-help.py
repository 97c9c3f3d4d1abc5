#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""man-vs-help.py HELP_TEXT MAN_PAGE GUIDE: ttypairctl's --help, its manual
page ttypairctl(8) and the user guide name the same commands, settings,
options, exit statuses and environment variables. Prints what one names
and another does not, and exits 1 if anything differs."""
import re
import sys


def help_lists(text):
    """The lists of ttypairctl --help, by the heading each is under."""
    lists, section = {}, None
    for line in text.splitlines():
        if re.match(r"^[A-Z][^:]*:$", line):
            section = line.split()[0].rstrip(":").lower()
            lists[section] = set()
            continue
        if section is None or not line.startswith("  ") or line.startswith("       "):
            continue
        item = line.strip()
        if section == "commands":
            lists[section].add(item.split()[0])
        elif section == "settings":
            lists[section].update(re.findall(r"\b([a-z_0-9]+)=", item.split("  ")[0]))
        elif section == "options":
            lists[section].update(re.findall(r"(--?[a-z][a-z-]*)", item.split("  ")[0]))
        elif section == "exit":
            lists[section].add(item.split()[0])
        elif section == "environment":
            lists[section].add(item.split()[0])
    return lists


def unroff(line):
    """The text of a roff line: macro and font escapes dropped."""
    line = re.sub(r"^\.[A-Z]+\s*", "", line)
    line = re.sub(r"\\f[BIRP]", "", line).replace("\\-", "-").replace('"', " ")
    return line.replace("\\(aq", "'")


def man_lists(path):
    """The tags (.TP) of each section of a manual page."""
    lists, section, tag = {}, None, False
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith(".SH "):
                section = line[4:].strip('"').lower()
                lists[section] = []
            elif line == ".TP":
                tag = True
            elif tag:
                tag = False
                if section is not None:
                    lists[section].append(unroff(line))
    return lists


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        helps = help_lists(f.read())
    man = man_lists(sys.argv[2])
    with open(sys.argv[3], encoding="utf-8") as f:
        guide = f.read()
    problems = []

    def same(what, in_help, in_man):
        for x in sorted(in_help - in_man):
            problems.append("%s: --help has %s, the manual page does not" % (what, x))
        for x in sorted(in_man - in_help):
            problems.append("%s: the manual page has %s, --help does not" % (what, x))

    tags = man.get("commands", [])
    same("commands", helps.get("commands", set()),
         {t.split()[0] for t in tags if "=" not in t.split()[0]})
    same("settings", helps.get("settings", set()),
         {s for t in tags for s in re.findall(r"\b([a-z_0-9]+)=", t)})
    same("options", helps.get("options", set()),
         {o for t in man.get("options", []) for o in re.findall(r"(--?[a-z][a-z-]*)", t)})
    same("exit status", helps.get("exit", set()),
         {t.split()[0] for t in man.get("exit status", [])})
    same("environment", helps.get("environment", set()),
         {t.split()[0] for t in man.get("environment", [])})
    # the guide names every command and setting
    for c in sorted(helps.get("commands", set())):
        if not re.search(r"`ttypairctl %s\b" % c, guide):
            problems.append("the user guide does not show ttypairctl %s" % c)
    for s in sorted(helps.get("settings", set())):
        if "`%s=`" % s not in guide:
            problems.append("the user guide does not name the setting %s=" % s)
    for p in problems:
        print(p)
    n = sum(len(v) for v in helps.values())
    print("%d items of ttypairctl --help: %d differences from ttypairctl(8) and the user guide"
          % (n, len(problems)))
    return 1 if problems or n < 20 else 0


if __name__ == "__main__":
    sys.exit(main())
