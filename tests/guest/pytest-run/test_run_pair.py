# SPDX-License-Identifier: GPL-2.0
"""A suite as a user's CI runs it: 'ttypairctl run -- python3 -m pytest',
pyserial on $TTYPAIR_A and $TTYPAIR_B (tests/guest/session-tests.sh)."""
import os
import time

import serial


def test_pair_from_ttypairctl_run():
    with serial.Serial(os.environ["TTYPAIR_A"], 9600, timeout=2) as a, \
            serial.Serial(os.environ["TTYPAIR_B"], 9600, timeout=2) as b:
        a.write(b"from A\n")
        assert b.readline() == b"from A\n"
        b.write(b"from B\n")
        assert a.readline() == b"from B\n"


def test_hangs_until_killed():
    """Run alone (-k hangs), it waits to be killed."""
    if not os.environ.get("TTYPAIR_HANG"):
        return
    with open(os.environ["TTYPAIR_HANG"], "w") as f:
        f.write(os.environ["TTYPAIR_INDEX"])
    time.sleep(600)
