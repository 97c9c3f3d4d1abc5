# SPDX-License-Identifier: GPL-2.0
"""The package's version is the kernel module's: PACKAGE_VERSION in the
dkms.conf of the tree this directory is part of (everything else is in
pyproject.toml)."""
import os
import re

from setuptools import setup

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "..", "dkms.conf"), encoding="utf-8") as conf:
    VERSION = re.search(r'^PACKAGE_VERSION="([0-9.]+)"$', conf.read(), re.M).group(1)

setup(version=VERSION)
