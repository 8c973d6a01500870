"""Small helpers shared by tests."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def missing(reason: str) -> NoReturn:
    """A test's real dependency is absent: skip on a developer's machine, fail in CI.

    CI installs everything through scripts/setup.sh, so there a gap means the set-up is broken
    and must not pass silently as a skip.
    """
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI installs it through scripts/setup.sh dev)")
    pytest.skip(reason)
