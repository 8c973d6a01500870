"""``[lsp]``: which language servers serve which files, and how long an edit waits for them.

``[lsp.servers.NAME] command = [...]`` and ``patterns = ["*.py"]`` start a process, so a workspace's
``.agentrc`` sets them only once trusted (``config_schema.py``). Without a configured server for a
language, a default is used when its program is on PATH.
"""

from __future__ import annotations

import fnmatch
import os
import shutil
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from agent_tui.errors import AgentError


class LspError(AgentError):
    """A language server could not be started, or cannot answer for a file."""


DEFAULT_WAIT_S = 3.0
DEFAULT_START_S = 15.0

# (name, command, patterns), the first of each language found on PATH wins.
_PYTHON = ("*.py", "*.pyi")
_TYPESCRIPT = ("*.ts", "*.tsx", "*.js", "*.jsx", "*.mts", "*.cts")
_DEFAULTS: tuple[tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...], ...] = (
    (
        ("basedpyright", ("basedpyright-langserver", "--stdio"), _PYTHON),
        ("pyright", ("pyright-langserver", "--stdio"), _PYTHON),
        ("ruff", ("ruff", "server"), _PYTHON),
    ),
    (("typescript", ("typescript-language-server", "--stdio"), _TYPESCRIPT),),
)


@dataclass(frozen=True)
class ServerSpec:
    """One language server: how it starts and which files it serves."""

    name: str
    command: tuple[str, ...]
    patterns: tuple[str, ...]
    sandbox: bool = False  # run inside the command sandbox, as an MCP server's `sandbox = true`

    def serves(self, relative: str) -> bool:
        """Whether the file (a workspace-relative POSIX path) is this server's."""
        name = PurePosixPath(relative).name
        return any(
            fnmatch.fnmatchcase(name, pattern) or fnmatch.fnmatchcase(relative, pattern)
            for pattern in self.patterns
        )


@dataclass(frozen=True)
class LspSettings:
    """The servers of a session and the bounds of waiting for them."""

    servers: tuple[ServerSpec, ...]
    wait_s: float = DEFAULT_WAIT_S
    start_s: float = DEFAULT_START_S


def _configured(raw: dict[str, Any]) -> list[ServerSpec]:
    servers = []
    for name, entry in raw.get("servers", {}).items():
        if entry.get("disabled") or not entry.get("command"):
            continue
        servers.append(
            ServerSpec(
                name,
                tuple(entry["command"]),
                tuple(entry.get("patterns", ())),
                bool(entry.get("sandbox", False)),
            )
        )
    return servers


def _defaults(taken: list[ServerSpec]) -> list[ServerSpec]:
    """The first server of each language on PATH, unless a configured one serves its files."""
    found = []
    for choices in _DEFAULTS:
        sample = f"x{choices[0][2][0][1:]}"  # "x.py": a file of the language
        if any(spec.serves(sample) for spec in taken):
            continue
        for name, command, patterns in choices:
            if shutil.which(command[0]) is not None:
                found.append(ServerSpec(name, command, patterns))
                break
    return found


def lsp_settings(raw_config: dict[str, Any]) -> LspSettings:
    """``[lsp]`` of the merged config, with the defaults found on PATH (``defaults = false``
    or ``AGENT_TUI_LSP=off``: none). The variable is read here, not through the config's
    environment layer, so it holds for every config however it was loaded (the tests set it:
    what is on PATH differs between machines)."""
    raw = raw_config.get("lsp", {})
    servers = _configured(raw)
    if raw.get("defaults", True) and os.environ.get("AGENT_TUI_LSP") != "off":
        servers += _defaults(servers)
    return LspSettings(
        tuple(servers),
        float(raw.get("wait_s", DEFAULT_WAIT_S)),
        float(raw.get("start_s", DEFAULT_START_S)),
    )
