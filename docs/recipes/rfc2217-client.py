#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""rfc2217-client.py URL PORT: a pyserial client of a serial port shared
over the network with RFC 2217 (Telnet COM port control). It changes the
line speed through the network, asks stty what the port's end of the pair
(PORT) now runs at, and exchanges a line with whatever is on the other end.
"""
import subprocess
import sys
import time

import serial


def port_speed(port):
    return subprocess.run(["stty", "-F", port, "speed"], capture_output=True,
                          text=True, check=True).stdout.strip()


def main():
    url, port = sys.argv[1], sys.argv[2]
    s = serial.serial_for_url(url, baudrate=9600, timeout=5)
    print("connected to %s at %d baud: %s runs at %s" % (url, s.baudrate, port, port_speed(port)))
    for baud in (115200, 1200):
        s.baudrate = baud
        time.sleep(0.5)    # the server applies it when its answer arrives
        print("set %d baud: %s runs at %s" % (baud, port, port_speed(port)))
    s.write(b"hello over the network\n")
    print("the device answered: %s" % s.readline().decode().strip())
    s.close()


if __name__ == "__main__":
    main()
