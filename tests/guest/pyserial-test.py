#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""ttypair seen through pyserial (3.5): modem lines, break, speeds, read
timeouts, in_waiting/out_waiting, flush and the buffer resets, with and
without baud-rate emulation.

Usage: pyserial-test.py N   (N: the pair to use, /dev/ttyVPAN <-> /dev/ttyVPBN)

Prints "ok: ..." for each check passed; on the first failure prints
"FAIL: <check>: <reason>" as its last line and exits 1. Only pair N is
touched; its baud_emulation attribute is set back to 0 at the end.
"""

import signal
import sys
import termios
import time

import serial

DEADLINE = 150  # seconds for the whole script (the caller allows 180)


class Fail(Exception):
    """A check failed."""


def ok(msg):
    print("ok: " + msg, flush=True)


def info(msg):
    print("info: " + msg, flush=True)


def check(cond, msg):
    if not cond:
        raise Fail(msg)


def wait_for(pred, timeout, interval=0.02):
    """Poll pred() until it is true or timeout seconds have passed; return
    its last value."""
    end = time.monotonic() + timeout
    while True:
        v = pred()
        if v or time.monotonic() >= end:
            return v
        time.sleep(interval)


def speeds(port):
    """(ispeed, ospeed) of the port, as termios B* constants."""
    attr = termios.tcgetattr(port.fileno())
    return attr[4], attr[5]


def iflag_clear(port, mask):
    """Clear bits of the port's c_iflag (pyserial keeps what it does not
    set itself on later reconfigurations)."""
    attr = termios.tcgetattr(port.fileno())
    attr[0] &= ~mask
    termios.tcsetattr(port.fileno(), termios.TCSANOW, attr)


def sysfs_read(path):
    with open(path) as f:
        return f.read().strip()


def sysfs_write(path, value):
    with open(path, "w") as f:
        f.write(value)


class Pair:
    def __init__(self, n):
        self.n = n
        self.name_a = "/dev/ttyVPA%d" % n
        self.name_b = "/dev/ttyVPB%d" % n
        self.sys_a = "/sys/class/tty/ttyVPA%d" % n
        self.a = None
        self.b = None

    def close(self):
        for p in (self.a, self.b):
            if p is not None and p.is_open:
                p.close()


# --- the checks ------------------------------------------------------------

def t_open(p):
    p.a = serial.Serial(p.name_a, 9600, timeout=1)
    p.b = serial.Serial(p.name_b, 9600, timeout=1)
    check(p.a.is_open and p.b.is_open, "ports not open")
    for port in (p.a, p.b):
        check(speeds(port) == (termios.B9600, termios.B9600),
              "%s: speeds %r after opening at 9600" % (port.port, speeds(port)))
    ok("opened %s and %s at 9600" % (p.name_a, p.name_b))
    try:
        info("wiring of %s: %s; of %s: %s" % (
            p.name_a, sysfs_read(p.sys_a + "/wiring"), p.name_b,
            sysfs_read("/sys/class/tty/ttyVPB%d/wiring" % p.n)))
    except OSError as e:
        info("no wiring attribute to show: %s" % e)


def lines(port):
    return "cts=%d dsr=%d cd=%d ri=%d" % (port.cts, port.dsr, port.cd, port.ri)


def expect_lines(port, cts, dsr, cd, what):
    """Wait (up to 2 s) for the port's inputs to read cts, dsr, cd, with
    ri off."""
    want = "cts=%d dsr=%d cd=%d ri=0" % (cts, dsr, cd)
    wait_for(lambda: lines(port) == want, 2.0)
    got = lines(port)
    check(got == want, "%s: %s reads %s, expected %s" % (what, port.port, got, want))


def t_modem_lines(p):
    a, b = p.a, p.b
    # pyserial raised DTR and RTS on both ends when it opened them
    expect_lines(b, 1, 1, 1, "after open")
    expect_lines(a, 1, 1, 1, "after open")
    a.rts = False
    expect_lines(b, 0, 1, 1, "a.rts = False")
    a.rts = True
    expect_lines(b, 1, 1, 1, "a.rts = True")
    ok("a.rts -> b.cts (dsr, cd unaffected)")
    a.dtr = False
    expect_lines(b, 1, 0, 0, "a.dtr = False")
    a.dtr = True
    expect_lines(b, 1, 1, 1, "a.dtr = True")
    ok("a.dtr -> b.dsr and b.cd (cts unaffected)")
    a.rts = False
    a.dtr = False
    expect_lines(b, 0, 0, 0, "a.rts = a.dtr = False")
    a.rts = True
    a.dtr = True
    expect_lines(b, 1, 1, 1, "a.rts = a.dtr = True")
    b.rts = False
    b.dtr = False
    expect_lines(a, 0, 0, 0, "b.rts = b.dtr = False")
    expect_lines(b, 1, 1, 1, "b's own outputs changed")
    b.rts = True
    b.dtr = True
    expect_lines(a, 1, 1, 1, "b.rts = b.dtr = True")
    ok("b.rts -> a.cts, b.dtr -> a.dsr and a.cd; ri off throughout")


def t_baudrates(p):
    a, b = p.a, p.b
    want = {a: 9600, b: 9600}
    for port, rate in ((a, 115200), (b, 1200), (a, 57600), (b, 230400),
                       (a, 300), (b, 38400), (a, 9600), (b, 9600)):
        port.baudrate = rate
        want[port] = rate
        check(port.baudrate == rate, "%s: baudrate reads %r after setting %d"
              % (port.port, port.baudrate, rate))
        for q in (a, b):
            const = getattr(termios, "B%d" % want[q])
            check(speeds(q) == (const, const),
                  "%s: after %s.baudrate = %d, termios speeds are %r, expected B%d (%r)"
                  % (q.port, port.port, rate, speeds(q), want[q], const))
    ok("baud rates 115200, 1200, 57600, 230400, 300, 38400, 9600 set and read back "
       "(termios), each end its own")


def t_break(p):
    a, b = p.a, p.b
    # a break is read as one \0 only without IGNBRK, BRKINT and PARMRK
    iflag_clear(b, termios.IGNBRK | termios.BRKINT | termios.PARMRK)
    b.reset_input_buffer()
    b.timeout = 3
    a.send_break(0.25)
    got = b.read(1)
    check(got == b"\x00", "after a.send_break(0.25) b read %r, expected b'\\x00'" % got)
    b.timeout = 0.5
    more = b.read(16)
    check(more == b"", "after the break's \\0, b also read %r" % more)
    ok("a.send_break(0.25) -> b reads one \\0")
    b.timeout = 3
    a.break_condition = True
    got = b.read(1)
    a.break_condition = False
    check(got == b"\x00", "after a.break_condition = True b read %r, expected b'\\x00'" % got)
    b.timeout = 0.5
    more = b.read(16)
    check(more == b"", "after a.break_condition on and off b also read %r" % more)
    ok("a.break_condition True/False -> b reads one \\0")
    a.write(b"after")
    b.timeout = 3
    got = b.read(5)
    check(got == b"after", "data after the break: b read %r, expected b'after'" % got)
    ok("data flows after the breaks")


def t_read_timeout(p):
    b = p.b
    b.reset_input_buffer()
    b.timeout = 0.5
    t0 = time.monotonic()
    got = b.read(10)
    dt = time.monotonic() - t0
    check(got == b"", "b.read(10) with nothing sent returned %r" % got)
    check(0.4 <= dt <= 1.5, "b.read(10) with timeout 0.5 returned after %.3f s" % dt)
    ok("b.read(10) with timeout 0.5 and nothing sent: b'' after %.2f s" % dt)


def t_in_waiting(p):
    a, b = p.a, p.b
    b.reset_input_buffer()
    a.write(b"x" * 100)
    ow = a.out_waiting
    check(ow == 0, "a.out_waiting is %d right after a write without baud emulation" % ow)
    a.flush()
    wait_for(lambda: b.in_waiting >= 100, 3.0)
    n = b.in_waiting
    check(n == 100, "b.in_waiting is %d, expected 100 (3 s after a wrote 100 bytes)" % n)
    time.sleep(0.2)
    n = b.in_waiting
    check(n == 100, "b.in_waiting grew to %d, expected 100" % n)
    ok("a.out_waiting 0 without baud emulation; b.in_waiting == 100")


def t_reset_input(p):
    b = p.b
    n = b.in_waiting
    check(n == 100, "b.in_waiting is %d before the reset, expected 100" % n)
    b.reset_input_buffer()
    n = b.in_waiting
    check(n == 0, "b.in_waiting is %d after b.reset_input_buffer()" % n)
    b.timeout = 0.3
    got = b.read(200)
    check(got == b"", "b read %d bytes after b.reset_input_buffer()" % len(got))
    ok("b.reset_input_buffer() discards the 100 bytes received")


def t_baud_emulation(p):
    a, b = p.a, p.b
    attr = p.sys_a + "/baud_emulation"
    v = sysfs_read(attr)
    check(v == "0", "%s reads %r, expected 0" % (attr, v))
    sysfs_write(attr, "1")
    try:
        v = sysfs_read(attr)
        check(v == "1", "%s reads %r after writing 1" % (attr, v))
        a.baudrate = 1200
        b.baudrate = 1200
        b.reset_input_buffer()
        # non-blocking writes: a blocking one waits in pyserial's select()
        # until fewer than 256 bytes are queued
        a.write_timeout = 0
        data = bytes((i * 37 + 11) & 0xFF for i in range(200))
        t0 = time.monotonic()
        n = a.write(data)
        ow = a.out_waiting
        check(n == 200, "a.write of 200 bytes wrote %r" % n)
        check(ow > 100, "a.out_waiting is %d right after writing 200 bytes at 1200 baud"
              " (expected > 100)" % ow)
        a.flush()
        dt = time.monotonic() - t0
        ow2 = a.out_waiting
        check(1.4 <= dt <= 2.5, "a.flush() of 200 bytes at 1200 8N1 (120 bytes/s) returned"
              " %.3f s after the write, expected about 1.67 s" % dt)
        check(ow2 == 0, "a.out_waiting is %d after a.flush()" % ow2)
        b.timeout = 3
        got = b.read(200)
        check(got == data, "b read %d bytes%s after the drain, expected the 200 written"
              % (len(got), "" if len(got) != 200 else " (different)"))
        ok("1200 baud: out_waiting %d right after writing 200 bytes; flush() took %.2f s;"
           " out_waiting 0 after; b read the 200 bytes" % (ow, dt))

        big = bytes((i * 13 + 5) & 0xFF for i in range(500))
        t1 = time.monotonic()
        n = a.write(big)
        check(n == 500, "a.write of 500 bytes wrote %r" % n)
        a.reset_output_buffer()
        t2 = time.monotonic()
        ow = a.out_waiting
        check(ow == 0, "a.out_waiting is %d after a.reset_output_buffer()" % ow)
        b.timeout = 1.0
        got = b.read(500)
        # what left before the reset: 120 bytes/s, and some slack
        limit = int(120 * (t2 - t1)) + 30
        check(len(got) <= min(limit, 250),
              "b received %d of the 500 bytes discarded by a.reset_output_buffer()"
              " %.3f s after the write (expected at most %d)"
              % (len(got), t2 - t1, min(limit, 250)))
        check(got == big[:len(got)], "the %d bytes b received are not the start of"
              " what was written" % len(got))
        ok("a.reset_output_buffer(): out_waiting 0, b received only %d of 500 bytes"
           % len(got))
        a.write(b"tail")
        a.flush()
        b.timeout = 3
        got = b.read(4)
        check(got == b"tail", "after the reset b read %r, expected b'tail'" % got)
        ok("data flows after the reset")
    finally:
        a.write_timeout = None
        try:
            sysfs_write(attr, "0")
        except OSError as e:
            info("could not write 0 to %s: %s" % (attr, e))
    v = sysfs_read(attr)
    check(v == "0", "%s reads %r after writing 0" % (attr, v))
    a.baudrate = 9600
    b.baudrate = 9600
    ok("baud_emulation back to 0")


CHECKS = [
    ("open", t_open),
    ("modem_lines", t_modem_lines),
    ("baudrates", t_baudrates),
    ("break", t_break),
    ("read_timeout", t_read_timeout),
    ("in_waiting", t_in_waiting),
    ("reset_input_buffer", t_reset_input),
    ("baud_emulation", t_baud_emulation),
]


def on_alarm(signum, frame):
    raise Fail("no result after %d s" % DEADLINE)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    info("pyserial %s, python %s, pair %d"
         % (getattr(serial, "__version__", "?"), sys.version.split()[0], n))
    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(DEADLINE)
    p = Pair(n)
    name = "?"
    try:
        for name, fn in CHECKS:
            fn(p)
    except Exception as e:  # the first failure ends the run
        signal.alarm(0)
        reason = str(e) if isinstance(e, Fail) else "%s: %s" % (type(e).__name__, e)
        try:
            p.close()
        except Exception:
            pass
        print("FAIL: %s: %s" % (name, reason), flush=True)
        return 1
    signal.alarm(0)
    p.close()
    print("ok: all pyserial checks passed on pair %d" % n, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
