"""Small helpers shared by tests."""

from __future__ import annotations

import os
from typing import Any, NoReturn, TypeVar

import pytest

from agent_tui.tools.registry import builtin_registry

T = TypeVar("T")


def missing(reason: str) -> NoReturn:
    """A test's real dependency is absent: skip on a developer's machine, fail in CI.

    CI installs everything through scripts/setup.sh, so there a gap means the set-up is broken
    and must not pass silently as a skip.
    """
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI installs it through scripts/setup.sh dev)")
    pytest.skip(reason)


def builtin_tool(name: str, cls: type[T]) -> T:
    """The built-in tool ``name`` as the registry builds it (manifest included)."""
    built: Any = builtin_registry().get(name)
    assert isinstance(built, cls)
    return built
