#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# qt-list.py: the serial ports Qt finds (QSerialPortInfo.availablePorts(),
# what CuteCom, the Arduino IDE 1.x's Qt-based tools and QSerialPort
# programs offer), one line per port:
# "location|description|manufacturer|serial number".
from PyQt5.QtSerialPort import QSerialPortInfo

for p in QSerialPortInfo.availablePorts():
    print("|".join([p.systemLocation(), p.description(), p.manufacturer(),
                    p.serialNumber()]))
