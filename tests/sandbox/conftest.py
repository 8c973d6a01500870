"""The sandbox tests run the real bwrap (scripts/setup.sh dev installs it with apt-get as root)."""

from __future__ import annotations

import sys

import pytest

from agent_tui.sandbox.bwrap import availability


@pytest.fixture
def bwrap() -> None:
    """Skip, naming why, where bwrap cannot run (CI installs it and must not skip)."""
    found = availability()
    if not found.ok:
        pytest.skip(f"the sandbox cannot run here: {found.reason}; {found.fix}")
    if not sys.platform.startswith("linux"):
        pytest.skip("bwrap is Linux-only")
