#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""nmea-sim.py PORT [SECONDS]: a GPS receiver's output, simulated.

Writes one GGA and one RMC sentence per second to the serial port PORT at
4800 baud 8N1 (NMEA 0183), for a receiver standing still at 52.5163 N,
13.3777 E, 34 m, with 8 satellites and the current UTC time; stops after
SECONDS (default: never).
"""
import sys
import time
from datetime import datetime, timezone

import serial


def sentence(body):
    """$body*checksum, the checksum being the XOR of the body's bytes."""
    check = 0
    for c in body.encode():
        check ^= c
    return "$%s*%02X\r\n" % (body, check)


def main():
    port = serial.Serial(sys.argv[1], 4800)
    seconds = int(sys.argv[2]) if len(sys.argv) > 2 else None
    start = time.monotonic()
    while seconds is None or time.monotonic() - start < seconds:
        now = datetime.now(timezone.utc)
        hms = now.strftime("%H%M%S.00")
        port.write(sentence("GPGGA,%s,5230.978,N,01322.662,E,1,08,0.9,34.0,M,39.9,M,," % hms).encode())
        port.write(sentence("GPRMC,%s,A,5230.978,N,01322.662,E,0.0,0.0,%s,,,A"
                            % (hms, now.strftime("%d%m%y"))).encode())
        port.flush()
        time.sleep(1 - time.monotonic() % 1)
    port.close()


if __name__ == "__main__":
    main()
