"""The environment variables that hold the app's API keys, kept out of every child process.

``[model] api_key_env`` may name any variable (``LLM_CRED``): nothing in its name says it is a
secret, so the terminal's name-based excludes (``*KEY*``, ``*TOKEN*``...) miss it. And the name can
sit in a config layer the final model does not use (a file's ``api_key_env`` goes with that file's
provider; ``--provider`` may pick another), while the variable is still exported. So
``load_config`` records every ``api_key_env`` a layer or alias names (``Config.api_key_names``) and
hides them here, for the whole process: terminal commands, ``!command``, hooks, git, ripgrep and
sub-agents start from ``child_environ()``; a stdio MCP server gets one only when its entry's ``env``
names it. Kept process-wide on purpose: a process holds one user's keys, and a later reload (trusting
the folder) can only add names, never expose one again.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

_hidden: set[str] = set()


def hide(names: Iterable[str]) -> None:
    """Keep these variables (API keys) from every child process from now on."""
    _hidden.update(name for name in names if name)


def hidden() -> frozenset[str]:
    """The variables ``hide`` was given."""
    return frozenset(_hidden)


def child_environ(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """``base`` (default ``os.environ``) without the app's API key variables."""
    source = os.environ if base is None else base
    return {name: value for name, value in source.items() if name not in _hidden}
