"""Asked once per folder: trust this workspace's own approval settings and MCP servers?

Shown at start when the folder's ``.agentrc`` (or ``.vscode/mcp.json`` / ``.mcp.json``) sets
trust-gated things and the user has never answered for it. Dismisses with True (trust), False
(don't trust; both stored by the app) or None (Esc: decide later, asked again next time).
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Label, Static

from agent_tui.safe_read import MAX_TEXT_FILE_BYTES, read_text
from agent_tui.text_safety import one_line, visible
from agent_tui.ui.key_guard import GuardedModal, guard_notice

MAX_LINES = 14


def _leaves(prefix: str, node: Any) -> list[str]:
    if isinstance(node, dict) and node:
        return [line for key, value in node.items() for line in _leaves(f"{prefix}.{key}", value)]
    text = json.dumps(node, ensure_ascii=False)
    return [f"{prefix} = {text if len(text) <= 60 else text[:57] + '...'}"]


def gated_settings(workspace: Path, keys: tuple[str, ...], mcp_files: list[str]) -> list[str]:
    """What trusting the folder would turn on: ``tools.auto_approve = true``, MCP files...

    Args:
        workspace: the folder.
        keys: the trust-gated keys its ``.agentrc`` sets, dotted (``Config.ignored_untrusted``).
        mcp_files: its MCP files that were not read (relative paths).
    """
    lines: list[str] = []
    if keys:
        try:
            rc = read_text(workspace / ".agentrc", MAX_TEXT_FILE_BYTES, errors="strict")
            tree = tomllib.loads(rc)
        except (OSError, ValueError):
            tree = {}  # it was valid when loaded; if it changed since, name the keys only
        for key in keys:
            node: Any = tree
            for part in key.split("."):  # "model.base_url"
                node = node.get(part) if isinstance(node, dict) else None
            lines.extend(_leaves(key, node) if node is not None else [f"[{key}]"])
    lines.extend(
        f"{name}: its MCP servers (they run commands on this machine)" for name in mcp_files
    )
    if len(lines) > MAX_LINES:
        lines = [*lines[: MAX_LINES - 1], f"... and {len(lines) - MAX_LINES + 1} more"]
    return lines


class TrustScreen(GuardedModal[bool | None]):
    """Trust (y) or don't trust (n) the folder; Esc decides later. Shown as the app starts, maybe
    while the person already types: its keys wait for a pause (``key_guard``)."""

    CSS_PATH = "trust.tcss"
    BINDINGS = [
        Binding("y", "answer(True)", "Trust"),
        Binding("n", "answer(False)", "Don't trust"),
        Binding("escape", "answer(None)", "Later"),
    ]

    def __init__(self, workspace: str, settings: list[str]) -> None:
        super().__init__()
        self.workspace = workspace
        self.settings = settings

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            title = f"Trust the folder {one_line(self.workspace)}?"
            yield Label(title, id="title", markup=False)
            yield Label("Its own configuration would set:")
            with VerticalScroll(id="settings"):
                # The repository wrote these settings: control characters shown.
                yield Static(visible("\n".join(self.settings)), markup=False)
            yield Static(
                "Trust only folders whose files you know: a repository's settings can approve "
                "tool calls, start programs and send your requests and API key to another "
                "server. /trust changes your answer later.",
                id="why",
            )
            yield guard_notice()
            with Horizontal(id="buttons", classes="key-legend"):
                yield Button("y Trust", id="trust", variant="warning", compact=True)
                yield Button("n Don't trust", id="distrust", compact=True)

    def action_answer(self, trusted: bool | None) -> None:
        self.dismiss(trusted)

    @on(Button.Pressed)
    def _button(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "trust")
