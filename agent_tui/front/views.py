"""What the door shows a front end: frozen snapshots, never the core's live objects.

A view is taken when asked for and does not change afterwards; ask again for a fresh one.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class CommandView:
    """A slash command as completion, ``/help`` and the command palette list it.

    Args:
        name: without the slash (``help``, ``mcp.server.prompt``).
        description: one line, from the command's source (may be a server's text: hostile).
        args_hint: what follows the name (``[alias]`` is optional, ``<topic>`` required).
        participant: "" for a global command, else the participant it belongs to.
    """

    name: str
    description: str
    args_hint: str = ""
    participant: str = ""


@dataclass(frozen=True)
class Candidate:
    """One name a completion offers (a participant, a tool's ``#reference``) and what it is."""

    name: str
    description: str


@dataclass(frozen=True)
class UiSettings:
    """The ``[ui]`` settings a front end applies (the schema has checked the values)."""

    theme: str | None = None
    notify: str | None = None
    keys: dict[str, object] | None = None  # action -> key(s); the app checks them (ui/keymap.py)
    vim: bool = False


@dataclass(frozen=True)
class StatusView:
    """The status line's words: the approval mode and the sandbox (``""``: none configured)."""

    mode: str
    sandbox: str


@dataclass(frozen=True)
class SpendingView:
    """The session's tokens in and out and its money (None: no known price), every run's."""

    input_tokens: int
    output_tokens: int
    cost_usd: float | None


@dataclass(frozen=True)
class McpStatus:
    """The MCP servers as they start.

    Args:
        starting: how many are still starting.
        cap_notice: the tools the tool limit leaves out, or None.
        stray: (server, notice) for each server that wrote non-JSON-RPC lines to stdout.
    """

    starting: int
    cap_notice: str | None
    stray: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class TerminalView:
    """One background terminal: id, state (running / exited N / killed), seconds it ran, the
    command as the model wrote it (hostile), and its log file."""

    terminal_id: str
    status: str
    ran_for: float
    command: str
    log_path: Path


@dataclass(frozen=True)
class Killed:
    """What killing a terminal found: whether anything of it was still running, and its state."""

    was_running: bool
    status: str


@dataclass(frozen=True)
class TrustQuestion:
    """What trusting the folder would turn on: its gated ``.agentrc`` keys (dotted) and the MCP
    files left unread."""

    keys: tuple[str, ...]
    mcp_files: tuple[str, ...]
