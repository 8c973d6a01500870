"""Where hooks come from: ``[hooks]`` in the .agentrc files and Claude Code's settings files.

The user's files (``~/.agentrc``, ``~/.claude/settings.json``) always apply. The workspace's
(``.agentrc``, ``.claude/settings.json``, ``.claude/settings.local.json``) run code, so they apply
only once the folder is trusted; until then they are left out with a notice (DESIGN §5).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.config_schema import HOOK_EVENTS
from agent_tui.safe_read import MAX_TEXT_FILE_BYTES, read_text

if TYPE_CHECKING:
    from agent_tui.config import Config

EVENTS = HOOK_EVENTS
DEFAULT_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class HookSpec:
    """One command hook.

    Args:
        event: the event it runs on (one of ``EVENTS``).
        matcher: the tool-name regex (``""`` or ``*``: every tool).
        command: the shell command.
        timeout_s: how long it may run before it is killed.
        source: the file it was read from, as shown to the user.
        claude: read from Claude Code's settings: it gets Claude Code's tool names and fields.
    """

    event: str
    matcher: str
    command: str
    timeout_s: float
    source: str
    claude: bool


@dataclass
class HookSet:
    """Every hook that applies, and notices about those that do not."""

    hooks: list[HookSpec] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)

    def for_event(self, event: str) -> list[HookSpec]:
        return [h for h in self.hooks if h.event == event]


def _entries(tree: Any, source: str, claude: bool, notices: list[str]) -> list[HookSpec]:
    """The hooks in a ``hooks`` table/object; malformed entries are skipped with a notice."""
    found: list[HookSpec] = []
    if not isinstance(tree, dict):
        return found
    for event, groups in tree.items():
        if event == "read_claude_settings":
            continue
        if event not in EVENTS:
            notices.append(f"hooks: unknown event {event!r} in {source} ignored")
            continue
        for group in groups if isinstance(groups, list) else []:
            if not isinstance(group, dict):
                continue
            matcher = group.get("matcher", "")
            for hook in group.get("hooks", []) if isinstance(group.get("hooks"), list) else []:
                if not isinstance(hook, dict) or hook.get("type", "command") != "command":
                    notices.append(f'hooks: only type "command" is supported ({source})')
                    continue
                command = hook.get("command")
                timeout = hook.get("timeout", DEFAULT_TIMEOUT_S)
                if not isinstance(command, str) or not command.strip():
                    continue
                if (
                    not isinstance(timeout, int | float)
                    or isinstance(timeout, bool)
                    or timeout <= 0
                ):
                    timeout = DEFAULT_TIMEOUT_S
                found.append(
                    HookSpec(
                        event,
                        matcher if isinstance(matcher, str) else "",
                        command,
                        float(timeout),
                        source,
                        claude,
                    )
                )
    return found


def _json_hooks(path: Path, label: str, notices: list[str]) -> list[HookSpec]:
    if not path.is_file():
        return []
    try:
        data = json.loads(read_text(path, MAX_TEXT_FILE_BYTES, errors="strict"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        notices.append(f"hooks: {label} not read: {exc}")
        return []
    return _entries(data.get("hooks") if isinstance(data, dict) else None, label, True, notices)


def _toml_hooks(path: Path, label: str, notices: list[str]) -> list[HookSpec]:
    import tomllib  # here: with no .agentrc it is not needed (~2 ms of a start)

    try:
        data = tomllib.loads(read_text(path, MAX_TEXT_FILE_BYTES, errors="strict"))
    except (OSError, ValueError):
        return []  # load_config already reported it
    return _entries(data.get("hooks"), label, False, notices)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and a.samefile(b)
    except OSError:
        return False


def load_hooks(config: Config, home: Path | None = None) -> HookSet:
    """Every hook from the user's files and (trusted) workspace files, in that order."""
    home = home or Path.home()
    workspace = config.workspace
    result = HookSet()
    notices = result.notices
    ws_rc = workspace / ".agentrc"
    untrusted: list[str] = []
    for path in config.files:
        is_workspace = path == ws_rc
        label = ".agentrc" if is_workspace else "~/.agentrc"
        if is_workspace and not config.trusted:
            if _toml_hooks(path, label, []):
                untrusted.append(label)
            continue
        result.hooks += _toml_hooks(path, label, notices)
    read_claude = config.section("hooks", "read_claude_settings")
    if read_claude is not False:
        user_settings = home / ".claude" / "settings.json"
        result.hooks += _json_hooks(user_settings, "~/.claude/settings.json", notices)
        for name in ("settings.json", "settings.local.json"):
            label = f".claude/{name}"
            path = workspace / ".claude" / name
            if _same_file(path, user_settings):
                continue  # the workspace is the home folder: that file is the user's, read above
            if not config.trusted:
                if _json_hooks(path, label, []):
                    untrusted.append(label)
                continue
            result.hooks += _json_hooks(path, label, notices)
    if untrusted:
        notices.append(
            f"hooks in {', '.join(untrusted)} not run: this folder is not trusted "
            "(hooks run commands; trust the folder to use them)"
        )
    return result
