#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""login.py PORT USER PASSWORD: log in on a serial console with picocom,
as a person at a terminal would, run two commands and log out.
"""
import sys

import pexpect


def main():
    port, user, password = sys.argv[1:4]
    term = pexpect.spawn("picocom", ["-b", "115200", port], encoding="utf-8", timeout=60)
    term.expect("Terminal ready")
    # The getty's first prompt went out before anybody listened, and was
    # lost as on a cable with nothing at the other end: Enter asks again
    term.send("\r")
    term.expect("login: ")
    term.send(user + "\r")
    term.expect("Password: ")
    term.send(password + "\r")
    term.expect(r"\$ ")
    print("logged in as %s" % user)
    term.send('echo "tty=$(tty) user=$(id -un)"; exit\r')
    term.expect(r"tty=(/dev/\S+) user=(\w+)")
    print("tty: %s, user: %s" % (term.match.group(1), term.match.group(2)))
    term.sendcontrol("a")           # picocom: C-a C-x leaves
    term.sendcontrol("x")
    term.expect(pexpect.EOF)
    print("terminal closed")


if __name__ == "__main__":
    main()
