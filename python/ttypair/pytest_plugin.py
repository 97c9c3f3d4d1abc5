# SPDX-License-Identifier: GPL-2.0
"""A pytest fixture: ttypair_pair, a Pair of its own for each test,
removed when the test ends. Load it with 'pytest -p ttypair.pytest_plugin'
or 'pytest_plugins = ["ttypair.pytest_plugin"]' in a conftest.py."""
import pytest

from . import Pair


@pytest.fixture
def ttypair_pair():
    """A ttypair.Pair for the test; its ends are .a and .b."""
    with Pair() as pair:
        yield pair
