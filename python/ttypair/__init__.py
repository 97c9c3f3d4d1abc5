# SPDX-License-Identifier: GPL-2.0
"""ttypair: throwaway pairs of virtual serial ports, for tests.

A Pair is a pair of connected serial ports (/dev/ttyVPA<n>, /dev/ttyVPB<n>)
of its own, made through /dev/ttypair-session without root (the serial
group, dialout, may use it) and removed with its object, when the test
ends, crashes or is killed::

    import serial, ttypair

    with ttypair.Pair(baud_emulation=True) as pair:
        a = serial.Serial(pair.a, 9600)
        b = serial.Serial(pair.b, 9600)
        a.write(b"ping")
        assert b.read(4) == b"ping"

Pair.monitor() gives the records of what goes over it: the bytes each end
sends, modem lines, line settings, breaks, errors, opens and closes, with
their times. Nothing but os and fcntl: the interface is the session
device's ioctls, include/uapi/ttypair.h in the module's sources.
"""
import collections
import fcntl
import os
import select
import struct
import time

__all__ = ["Pair", "Monitor", "Record", "SESSION_DEVICE", "monitor_pair"]

SESSION_DEVICE = "/dev/ttypair-session"

_MAGIC = 0xBB
_INFO = struct.Struct("=IIII32s32s")       # struct ttypair_session_info
_ATTR = struct.Struct("=II256s")           # struct ttypair_attr_value
_TARGET = struct.Struct("=IIII")           # struct ttypair_monitor_target
_RECORD = struct.Struct("=QIHBBII")        # struct ttypair_record
_LINE = struct.Struct("=IIBBBB")           # struct ttypair_record_line


def _ioc(direction, nr, size):
    return (direction << 30) | (size << 16) | (_MAGIC << 8) | nr


_IOC_INFO = _ioc(3, 0, _INFO.size)
_IOC_SET_ATTR = _ioc(1, 1, _ATTR.size)
_IOC_GET_ATTR = _ioc(3, 2, _ATTR.size)
_IOC_MONITOR = _ioc(1, 3, _TARGET.size)

# the settings: (attribute, whether it is an end's)
_ATTRS = {
    "wiring": (1, True),
    "rs485": (2, True),
    "inject": (3, True),
    "baud_emulation": (4, False),
    "strict": (5, False),
    "noise_ppm": (6, False),
    "noise_seed": (7, False),
}

_MONITOR_PAIR, _MONITOR_BUS_PORT, _MONITOR_SELF = 0, 1, 2

RECORD_TYPES = {
    1: "data", 2: "modem", 3: "line", 4: "break", 5: "error", 6: "open",
    7: "close", 8: "hangup", 9: "dropped", 10: "removed",
}
ERRORS = {1: "frame", 2: "parity", 3: "overrun", 4: "break", 5: "noise"}
FLAG_DISCARDED, FLAG_XCHAR = 0x01, 0x02

Record = collections.namedtuple(
    "Record", "time_ns seq type port flags value data")
Record.__doc__ = """A monitor's record: time_ns (CLOCK_MONOTONIC), seq,
type (a name of RECORD_TYPES), port ("A" or "B", or a bus port's number),
flags, value (modem outputs as TIOCM_* bits, a break's 1 or 0, an error's
name, a count of dropped records), data (the bytes sent; for "line" a dict
of the line settings)."""


def _text(value):
    if value is True or value is False:
        return "1" if value else "0"
    return str(value)


class Monitor:
    """Records of what happens on a pair, from a file of the session device
    with its monitor started. Iterating waits for records until the pair
    is removed; read() takes a timeout."""

    def __init__(self, fd, bus=False, owns_fd=True):
        self._fd = fd
        self._bus = bus
        self._owns = owns_fd
        self._pending = []

    def fileno(self):
        return self._fd

    def _parse(self, buf):
        off = 0
        while off + _RECORD.size <= len(buf):
            t, seq, typ, port, flags, value, length = _RECORD.unpack_from(buf, off)
            data = bytes(buf[off + _RECORD.size:off + _RECORD.size + length])
            off += (_RECORD.size + length + 7) & ~7
            name = RECORD_TYPES.get(typ, str(typ))
            if name == "line" and len(data) >= _LINE.size:
                baud, ibaud, bits, parity, stop, lf = _LINE.unpack_from(data)
                data = {"baud": baud, "ibaud": ibaud, "bits": bits,
                        "parity": "NEOMS"[parity] if parity < 5 else "?",
                        "stop": stop, "crtscts": bool(lf & 1),
                        "ixoff": bool(lf & 2), "cread": bool(lf & 4)}
            if name == "error":
                value = ERRORS.get(value, value)
            yield Record(t, seq, name, port if self._bus else "AB"[port & 1],
                         flags, value, data)

    def read(self, timeout=None):
        """The records there are, waiting up to timeout seconds (None: until
        there are some) for the first; [] on a timeout or once the pair was
        removed and everything was read."""
        if timeout is not None:
            ready, _, _ = select.select([self._fd], [], [], timeout)
            if not ready:
                return []
        buf = os.read(self._fd, 1 << 16)
        return list(self._parse(buf))

    def __iter__(self):
        while True:
            records = self.read()
            if not records:
                return
            yield from records

    def close(self):
        if self._owns and self._fd >= 0:
            os.close(self._fd)
        self._fd = -1

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Pair:
    """A pair of connected serial ports of its own, removed by close() (or
    the end of a with block, or the end of the process). pair.a and pair.b
    are the paths of its ends; settings are keyword arguments, as in
    'ttypairctl create': wiring, wiring_a, wiring_b, rs485, rs485_a,
    rs485_b, baud_emulation, strict, noise_ppm, noise_seed."""

    def __init__(self, wait=5.0, **settings):
        self._fd = os.open(SESSION_DEVICE, os.O_RDWR | os.O_CLOEXEC)
        try:
            buf = bytearray(_INFO.pack(_INFO.size, 0, 0, 0, b"", b""))
            fcntl.ioctl(self._fd, _IOC_INFO, buf)
            _, self.version, self.index, _, a, b = _INFO.unpack(buf)
            self.a = "/dev/" + a.rstrip(b"\0").decode()
            self.b = "/dev/" + b.rstrip(b"\0").decode()
            for name, value in settings.items():
                self.set(name, value)
            self._wait_for_access(wait)
        except BaseException:
            os.close(self._fd)
            raise

    def _wait_for_access(self, wait):
        # udev gives a new pair's nodes the serial group a moment after
        # they appear
        end = time.monotonic() + wait
        while time.monotonic() < end:
            if all(os.access(p, os.R_OK | os.W_OK) for p in (self.a, self.b)):
                return
            time.sleep(0.01)

    @staticmethod
    def _attr(name):
        end = None
        if name.endswith(("_a", "_b")) and name[:-2] in ("wiring", "rs485", "inject"):
            name, end = name[:-2], "AB".index(name[-1].upper())
        if name not in _ATTRS:
            raise ValueError("unknown setting %r" % name)
        return _ATTRS[name], end

    def set(self, name, value, end=None):
        """Change a setting; an end's (wiring, rs485, inject) on both ends
        unless the name says _a or _b or end is "A" or "B". A value the
        module refuses raises OSError (EINVAL) and changes nothing."""
        (attr, per_end), named = self._attr(name)
        if end is not None:
            named = "AB".index(end.upper())
        ends = [named] if named is not None else ([0, 1] if per_end else [0])
        for e in ends:
            fcntl.ioctl(self._fd, _IOC_SET_ATTR,
                        _ATTR.pack(attr, e, _text(value).encode()))

    def get(self, name, end="A"):
        """A setting as text, as its sysfs attribute shows it."""
        (attr, _), named = self._attr(name)
        e = named if named is not None else "AB".index(end.upper())
        buf = bytearray(_ATTR.pack(attr, e, b""))
        fcntl.ioctl(self._fd, _IOC_GET_ATTR, buf)
        return _ATTR.unpack(buf)[2].rstrip(b"\0").decode()

    def monitor(self, buffer=0):
        """The pair's monitor (once per pair): a Monitor whose records
        start now."""
        fcntl.ioctl(self._fd, _IOC_MONITOR,
                    _TARGET.pack(_MONITOR_SELF, 0, buffer, 0))
        return Monitor(self._fd, owns_fd=False)

    def fileno(self):
        return self._fd

    def close(self):
        """Remove the pair: both ends are hung up."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    @property
    def closed(self):
        return self._fd < 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return "<ttypair.Pair %d %s %s%s>" % (self.index, self.a, self.b,
                                            " closed" if self.closed else "")


def monitor_pair(index=None, bus_port=None, buffer=0):
    """A Monitor of an existing pair (by index) or bus port (by its line,
    the n of ttyVPS<n>): root may watch any, others their own sessions."""
    if (index is None) == (bus_port is None):
        raise ValueError("give index or bus_port")
    fd = os.open(SESSION_DEVICE, os.O_RDONLY | os.O_CLOEXEC)
    try:
        kind, n = (_MONITOR_PAIR, index) if bus_port is None else (_MONITOR_BUS_PORT, bus_port)
        fcntl.ioctl(fd, _IOC_MONITOR, _TARGET.pack(kind, n, buffer, 0))
    except BaseException:
        os.close(fd)
        raise
    return Monitor(fd, bus=bus_port is not None)
