#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# session-user.py: what an ordinary user does with /dev/ttypair-session,
# through the Python package (python/ttypair; run under setpriv by
# session-tests.sh).
#   session-user.py use         make a session, data both ways through its
#                               ends, a setting, close: prints "gone N"
#   session-user.py open        open the device once: prints "ok" or the
#                               errno's name
#   session-user.py hold N      open N sessions (or as many as it may):
#                               prints "made K <errno name>", then waits
#                               for its standard input to close
import errno
import os
import sys
import termios
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "python"))
import ttypair  # noqa: E402


def raw_open(path):
    fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
    t = termios.tcgetattr(fd)
    t[0] = t[1] = t[3] = 0
    termios.tcsetattr(fd, termios.TCSANOW, t)
    return fd


def use():
    pair = ttypair.Pair()       # waits until udev gave the ends their group
    fa, fb = raw_open(pair.a), raw_open(pair.b)
    os.write(fa, b"ping")
    assert os.read(fb, 4) == b"ping", "A to B"
    os.write(fb, b"pong")
    assert os.read(fa, 4) == b"pong", "B to A"
    pair.set("baud_emulation", True)
    assert pair.get("baud_emulation") == "1", "baud_emulation"
    try:
        pair.set("baud_emulation", 2)
        raise AssertionError("baud_emulation=2 taken")
    except OSError as e:
        assert e.errno == errno.EINVAL, e
    pair.close()
    name = os.path.basename(pair.a)
    for _ in range(500):
        if not os.path.exists("/sys/class/tty/" + name):
            break
        time.sleep(0.01)
    else:
        raise AssertionError(name + " still there after the close")
    assert os.read(fb, 1) == b"", "B not hung up"
    print("version %d, pair %d (%s, %s), gone %d" % (
        pair.version, pair.index, name, os.path.basename(pair.b), pair.index))


def try_open():
    try:
        ttypair.Pair(wait=0).close()
        print("ok")
    except OSError as e:
        print(errno.errorcode[e.errno])


def hold(n):
    pairs, err = [], "none"
    for _ in range(n):
        try:
            pairs.append(ttypair.Pair(wait=0))
        except OSError as e:
            err = errno.errorcode[e.errno]
            break
    print("made %d %s" % (len(pairs), err), flush=True)
    sys.stdin.read()


if __name__ == "__main__":
    if sys.argv[1] == "use":
        use()
    elif sys.argv[1] == "open":
        try_open()
    else:
        hold(int(sys.argv[2]))
