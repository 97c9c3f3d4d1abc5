#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# session-user.py: what an ordinary user does with /dev/ttypair-session,
# with nothing but os and fcntl (run under setpriv by session-tests.sh).
#   session-user.py use         make a session, data both ways through its
#                               ends, a setting, close: prints "gone N"
#   session-user.py open        open the device once: prints "ok" or the
#                               errno's name
#   session-user.py hold N      open N sessions (or as many as it may):
#                               prints "made K <errno name>", then waits
#                               for its standard input to close
import errno
import fcntl
import os
import struct
import sys
import time

DEV = "/dev/ttypair-session"
MAGIC = 0xBB
INFO_FMT = "=IIII32s32s"        # struct ttypair_session_info
ATTR_FMT = "=II256s"            # struct ttypair_attr_value
ATTR_BAUD_EMULATION = 4


def ioc(direction, nr, size):
    return (direction << 30) | (size << 16) | (MAGIC << 8) | nr


IOC_INFO = ioc(3, 0, struct.calcsize(INFO_FMT))
IOC_SET_ATTR = ioc(1, 1, struct.calcsize(ATTR_FMT))
IOC_GET_ATTR = ioc(3, 2, struct.calcsize(ATTR_FMT))


def info(fd):
    buf = bytearray(struct.pack(INFO_FMT, struct.calcsize(INFO_FMT), 0, 0, 0,
                                b"", b""))
    fcntl.ioctl(fd, IOC_INFO, buf)
    _, version, index, _, a, b = struct.unpack(INFO_FMT, buf)
    return version, index, a.rstrip(b"\0").decode(), b.rstrip(b"\0").decode()


def attr(fd, which, value=None):
    if value is not None:
        fcntl.ioctl(fd, IOC_SET_ATTR, struct.pack(ATTR_FMT, which, 0,
                                                  value.encode()))
    buf = bytearray(struct.pack(ATTR_FMT, which, 0, b""))
    fcntl.ioctl(fd, IOC_GET_ATTR, buf)
    return struct.unpack(ATTR_FMT, buf)[2].rstrip(b"\0").decode()


def open_end(name):
    """Open an end as soon as udev has given it the serial group: a new
    pair's nodes are root's, mode 0600, until udev's rules ran."""
    for _ in range(500):
        try:
            return os.open("/dev/" + name, os.O_RDWR | os.O_NOCTTY)
        except PermissionError:
            time.sleep(0.01)
    return os.open("/dev/" + name, os.O_RDWR | os.O_NOCTTY)


def use():
    s = os.open(DEV, os.O_RDWR)
    version, index, a, b = info(s)
    fa = open_end(a)
    fb = open_end(b)
    for fd in (fa, fb):
        import termios
        t = termios.tcgetattr(fd)
        t[0] = t[1] = t[3] = 0
        termios.tcsetattr(fd, termios.TCSANOW, t)
    os.write(fa, b"ping")
    assert os.read(fb, 4) == b"ping", "A to B"
    os.write(fb, b"pong")
    assert os.read(fa, 4) == b"pong", "B to A"
    assert attr(s, ATTR_BAUD_EMULATION, "1") == "1", "baud_emulation"
    try:
        attr(s, ATTR_BAUD_EMULATION, "2")
        raise AssertionError("baud_emulation=2 taken")
    except OSError as e:
        assert e.errno == errno.EINVAL, e
    os.close(s)
    for _ in range(500):
        if not os.path.exists("/sys/class/tty/" + a):
            break
        time.sleep(0.01)
    else:
        raise AssertionError(a + " still there after the close")
    assert os.read(fb, 1) == b"", "B not hung up"
    print("version %d, pair %d (%s, %s), gone %d" % (version, index, a, b,
                                                     index))


def try_open():
    try:
        os.close(os.open(DEV, os.O_RDWR))
        print("ok")
    except OSError as e:
        print(errno.errorcode[e.errno])


def hold(n):
    fds, err = [], "none"
    for _ in range(n):
        try:
            fds.append(os.open(DEV, os.O_RDWR))
        except OSError as e:
            err = errno.errorcode[e.errno]
            break
    print("made %d %s" % (len(fds), err), flush=True)
    sys.stdin.read()


if __name__ == "__main__":
    if sys.argv[1] == "use":
        use()
    elif sys.argv[1] == "open":
        try_open()
    else:
        hold(int(sys.argv[2]))
