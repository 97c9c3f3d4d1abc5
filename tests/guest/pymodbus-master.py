#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""pymodbus-master.py DEV BAUD COUNT: pymodbus (Debian's python3-pymodbus,
2.x or 3.x) as a Modbus RTU master on DEV, 8E1, reading holding registers
0..9 of units 1, 2 and 3 in turn, COUNT times in all: the libmodbus slaves
of `modbus-bus slaves` answer 100 * unit + 0..9 (but register 5, which
`modbus-bus master` writes to). The bus is left quiet
between transactions for longer than the slaves' byte timeout (they
resynchronise on it after hearing another slave's answer). Prints what it
did; exits 1 with the reason on the first thing that goes wrong."""
import inspect
import sys
import time

try:  # pymodbus 3
    from pymodbus.client import ModbusSerialClient

    def open_client(dev, baud):
        return ModbusSerialClient(port=dev, baudrate=baud, parity="E", bytesize=8,
                                  stopbits=1, timeout=1)
except ImportError:  # pymodbus 2
    from pymodbus.client.sync import ModbusSerialClient

    def open_client(dev, baud):
        return ModbusSerialClient(method="rtu", port=dev, baudrate=baud, parity="E",
                                  bytesize=8, stopbits=1, timeout=1)

try:
    from pymodbus import __version__ as VERSION
except ImportError:
    VERSION = "?"


def read_registers(client, unit):
    """Registers 0..9 of unit, however this pymodbus names the unit."""
    params = inspect.signature(client.read_holding_registers).parameters
    for name in ("device_id", "slave", "unit"):
        if name in params:
            break
    else:
        name = "unit"  # pymodbus 2 takes it in **kwargs
    return client.read_holding_registers(0, count=10, **{name: unit})


def main():
    dev, baud, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    client = open_client(dev, baud)
    if not client.connect():
        print("pymodbus %s: cannot open %s" % (VERSION, dev))
        return 1
    time.sleep(0.15)
    for n in range(count):
        unit = 1 + n % 3
        rr = read_registers(client, unit)
        if rr.isError():
            print("request %d to unit %d: %s" % (n, unit, rr))
            return 1
        # register 5 is the one the libmodbus master wrote to
        want = [100 * unit + i for i in range(10)]
        got = list(rr.registers)
        if got[:5] + got[6:] != want[:5] + want[6:]:
            print("request %d to unit %d: registers %s, expected %s (but register 5)"
                  % (n, unit, got, want))
            return 1
        time.sleep(0.15)
    client.close()
    print("pymodbus %s: %d requests to units 1-3 at %d 8E1, all answered correctly"
          % (VERSION, count, baud))
    return 0


if __name__ == "__main__":
    sys.exit(main())
