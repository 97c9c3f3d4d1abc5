# SPDX-License-Identifier: GPL-2.0
pytest_plugins = ["ttypair.pytest_plugin"]
