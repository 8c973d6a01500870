"""Small helpers shared by tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import pytest

from agent_tui.tools.registry import builtin_registry

T = TypeVar("T")
# The keys and endpoints of the person running the tests never reach a test's agent-tui.
PERSONAL_VARIABLES = (
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "ANTHROPIC_BASE_URL",
    "OPENAI_BASE_URL",
    "AGENT_TUI_BASE_URL",
    "AGENT_TUI_PROVIDER",
    "AGENT_TUI_MODEL",
)


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


def run_cli(
    cwd: Path,
    *args: str,
    env: dict[str, str] | None = None,
    stdin: str | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m agent_tui ARGS`` in ``cwd`` as a real process.

    The environment is this one without API keys and endpoints, plus ``env`` (which should set HOME and
    AGENT_TUI_STATE_DIR to temp dirs); stdin is closed unless ``stdin`` text is piped in.
    """
    base = {k: v for k, v in os.environ.items() if k not in PERSONAL_VARIABLES}
    return subprocess.run(
        [sys.executable, "-m", "agent_tui", *args],
        cwd=cwd,
        env={**base, **(env or {})},
        capture_output=True,
        text=True,
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        timeout=timeout,
    )
