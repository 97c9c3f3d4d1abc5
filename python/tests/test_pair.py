# SPDX-License-Identifier: GPL-2.0
"""Tests of the ttypair Python package, with pyserial, in a guest with the
module loaded (tests/guest/session-tests.sh runs them as an ordinary user
in group dialout)."""
import errno
import os
import signal
import subprocess
import sys

import pytest
import serial

import ttypair


def test_fixture_pair_carries_data(ttypair_pair):
    with serial.Serial(ttypair_pair.a, 115200, timeout=2) as a, \
            serial.Serial(ttypair_pair.b, 115200, timeout=2) as b:
        a.write(b"ping\n")
        assert b.readline() == b"ping\n"
        b.write(b"pong\n")
        assert a.readline() == b"pong\n"


def test_modem_lines_through_the_cable(ttypair_pair):
    with serial.Serial(ttypair_pair.a, timeout=1) as a, \
            serial.Serial(ttypair_pair.b, timeout=1) as b:
        a.rts = False
        assert not b.cts
        a.rts = True
        assert b.cts
        a.dtr = False
        assert not b.dsr and not b.cd


def test_settings_and_refusals():
    with ttypair.Pair(baud_emulation=True, wiring_b="dcd=on") as pair:
        assert pair.get("baud_emulation") == "1"
        assert pair.get("wiring", "B") == "cts=rts dsr=dtr dcd=on ri=off"
        assert pair.get("wiring", "A") == "cts=rts dsr=dtr dcd=dtr ri=off"
        with pytest.raises(OSError) as e:
            pair.set("noise_ppm", 1000001)
        assert e.value.errno == errno.EINVAL
        assert pair.get("noise_ppm") == "0"
        with pytest.raises(ValueError):
            pair.set("colour", "blue")


def test_close_removes_and_hangs_up():
    pair = ttypair.Pair()
    name = os.path.basename(pair.a)
    fd = os.open(pair.a, os.O_RDWR | os.O_NOCTTY)
    b = serial.Serial(pair.b, timeout=2)
    assert os.path.exists("/sys/class/tty/" + name)
    pair.close()
    assert not os.path.exists("/sys/class/tty/" + name)
    assert os.read(fd, 1) == b""     # hung up: end of file
    with pytest.raises(serial.SerialException):
        b.read(1)                    # pyserial: "device disconnected"
    b.close()
    os.close(fd)


def test_killed_owner_removes_pair(tmp_path):
    # a child makes a pair and is killed; the pair goes with it
    out = tmp_path / "index"
    child = subprocess.Popen([sys.executable, "-c", (
        "import sys, time, ttypair\n"
        "p = ttypair.Pair()\n"
        "open(sys.argv[1], 'w').write(p.a)\n"
        "time.sleep(60)\n"), str(out)], env=dict(os.environ))
    for _ in range(500):
        if out.exists() and out.read_text():
            break
        import time
        time.sleep(0.01)
    dev = out.read_text()
    assert os.path.exists(dev)
    child.send_signal(signal.SIGKILL)
    child.wait()
    for _ in range(500):
        if not os.path.exists("/sys/class/tty/" + os.path.basename(dev)):
            break
        import time
        time.sleep(0.01)
    assert not os.path.exists("/sys/class/tty/" + os.path.basename(dev))


def test_monitor_records_the_traffic():
    with ttypair.Pair() as pair:
        mon = pair.monitor()
        with serial.Serial(pair.a, 19200, timeout=2) as a, \
                serial.Serial(pair.b, 19200, timeout=2) as b:
            a.write(b"hello")
            assert b.read(5) == b"hello"
            a.rts = False
            a.send_break(0.05)
        records = mon.read(timeout=2)
        while True:
            more = mon.read(timeout=0.2)
            if not more:
                break
            records += more
    kinds = [(r.type, r.port) for r in records]
    assert ("open", "A") in kinds and ("open", "B") in kinds
    assert [r.data for r in records if r.type == "data" and r.port == "A"] == [b"hello"]
    assert any(r.type == "line" and r.data["baud"] == 19200 for r in records)
    assert any(r.type == "modem" and r.port == "A" and not r.value & 0x004
               for r in records)            # TIOCM_RTS off
    assert [r.value for r in records if r.type == "break"] == [1, 0]
    assert [r.seq for r in records] == list(range(len(records)))
    times = [r.time_ns for r in records]
    assert times == sorted(times)
