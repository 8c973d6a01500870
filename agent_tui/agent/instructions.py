"""The system prompt's fixed parts: the base prompt and the workspace's instructions files.

Instructions files (``AGENTS.md``, ``CLAUDE.md``, ``.github/copilot-instructions.md`` at the workspace
root, or the list in ``[agent] instructions_files``) are appended to the base prompt on every turn, so
an edit to them applies to the next request. ``loaded_instructions`` tells /help and the status bar
which were found.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from agent_tui.resources import data_dir
from agent_tui.safe_read import NotRegularFile, read_text_head
from agent_tui.tools.workspace_paths import OutsideWorkspace, require_inside

DEFAULT_INSTRUCTIONS_FILES = ("AGENTS.md", "CLAUDE.md", ".github/copilot-instructions.md")
# One instructions file may not crowd out the conversation; a longer one is cut with a note.
MAX_INSTRUCTIONS_CHARS = 24_000
USER_INSTRUCTIONS = "~/.agent/AGENTS.md"


def user_instructions_path() -> Path:
    """The user-level instructions file, joined to every workspace's system prompt."""
    return Path(USER_INSTRUCTIONS).expanduser()


@dataclass(frozen=True)
class InstructionsFile:
    """An instructions file (AGENTS.md …) read for the system prompt, and whether it was cut."""

    path: str  # relative to the workspace, as the user wrote it ("AGENTS.md")
    text: str
    truncated: bool = False


@cache
def _read_template(name: str) -> str:
    return (data_dir("prompts") / name).read_text(encoding="utf-8").strip()


def base_prompt() -> str:
    """The base agent prompt (``prompts/system.md``)."""
    return _read_template("system.md")


def small_window_prompt(system: str, searching: bool) -> str:
    """``system`` with the short base prompt (``prompts/system_small.md``) in place of the full
    one: for windows of 16k tokens or less and local servers, whose prefill is slow (issue 28).
    ``searching``: ``tool_search`` is offered (the prompt says what it is for). A prompt that does
    not start with the base prompt (a sub-agent's own) is kept as it is."""
    base = base_prompt()
    if not system.startswith(base):
        return system
    search = SEARCH_LINE if searching else ""
    return _read_template("system_small.md") + search + system[len(base) :]


SEARCH_LINE = "\n- `tool_search` finds more tools (search, patches, the web) when you need them."


def prompt_template(name: str) -> str:
    """A shipped prompt template by its path under ``prompts/`` ("participants/workspace.md")."""
    return _read_template(name)


def instructions_names(config: Any) -> tuple[str, ...]:
    """The instructions file names to look for: ``[agent] instructions_files`` or the defaults."""
    configured = config.section("agent", "instructions_files") if config is not None else None
    return tuple(configured) if configured is not None else DEFAULT_INSTRUCTIONS_FILES


def scan_instructions(
    workspace: Path, config: Any = None
) -> tuple[list[InstructionsFile], list[str]]:
    """Read the instructions files present at the workspace root.

    Files that resolve outside the workspace (a symlink to ``~/.ssh/...`` in a cloned repo) are
    skipped, since their text would be sent to the model provider; each skip is reported.

    Args:
        workspace: the workspace root.
        config: the Config (for ``[agent] instructions_files``); None = the defaults.

    Returns:
        The files found, in the configured order, and a notice per file skipped as outside.
    """
    found, skipped = [], []
    user = _read_user_instructions()
    if user is not None:
        found.append(user)
    for name in instructions_names(config):
        try:
            path = require_inside(workspace, name)
        except OutsideWorkspace as exc:
            skipped.append(
                f"{name} not used as instructions: it leads to {exc.target}, outside the workspace"
            )
            continue
        try:
            text = read_text_head(path, MAX_INSTRUCTIONS_CHARS).strip()
        except NotRegularFile as exc:  # a FIFO would hang the start; a folder is just not it
            if exc.kind != "a folder":
                skipped.append(f"{name} not used as instructions: {exc}")
            continue
        except OSError:
            continue  # absent or unreadable (permissions): /help lists what was loaded
        if not text:
            continue
        truncated = len(text) > MAX_INSTRUCTIONS_CHARS
        if truncated:
            text = (
                text[:MAX_INSTRUCTIONS_CHARS]
                + f"\n[… {name} cut at {MAX_INSTRUCTIONS_CHARS} characters]"
            )
        found.append(InstructionsFile(name, text, truncated))
    return found, skipped


def _read_user_instructions() -> InstructionsFile | None:
    """``~/.agent/AGENTS.md``: the user's own instructions for every workspace (read before the
    workspace's, so a project's instructions come later and win where they differ)."""
    path = user_instructions_path()
    try:
        text = read_text_head(path, MAX_INSTRUCTIONS_CHARS).strip()
    except OSError:
        return None  # absent, unreadable, or a FIFO/device (never read): nothing to add
    if not text:
        return None
    truncated = len(text) > MAX_INSTRUCTIONS_CHARS
    if truncated:
        text = (
            text[:MAX_INSTRUCTIONS_CHARS]
            + f"\n[… {USER_INSTRUCTIONS} cut at {MAX_INSTRUCTIONS_CHARS} characters]"
        )
    return InstructionsFile(USER_INSTRUCTIONS, text, truncated)


def load_instructions(workspace: Path, config: Any = None) -> list[InstructionsFile]:
    """The instructions files :func:`scan_instructions` finds, without the skip notices."""
    return scan_instructions(workspace, config)[0]


def loaded_instructions(workspace: Path, config: Any = None) -> list[str]:
    """The names of the instructions files that will be added to the system prompt."""
    return [f.path for f in load_instructions(workspace, config)]


# The first part of the system prompt that is not the same everywhere, and the part that changes
# each turn (agent/stable_prefix.py moves them after the tools for a local server's cache).
ENVIRONMENT_HEADING = "# Environment\n"
TURN_HEADING = "# This turn\n"


def environment_section(workspace: Path) -> str:
    system = {"linux": "Linux", "darwin": "macOS", "win32": "Windows"}.get(
        sys.platform, sys.platform
    )
    return f"{ENVIRONMENT_HEADING}Workspace root: {workspace.resolve()}\nOS: {system}"


def compose_system_prompt(
    workspace: Path,
    config: Any = None,
    *,
    participant_prompt: str = "",
    tool_hints: tuple[str, ...] = (),
    instructions: list[InstructionsFile] | None = None,
    server_instructions: str = "",
    skills: str = "",
) -> str:
    """Base prompt + environment + instructions files + participant prompt + tool hints.

    The fixed parts come first and the per-turn parts last, so a provider's prompt cache keeps
    hitting on the common prefix. ``instructions``: the files already scanned (None: read them).
    ``server_instructions``: the MCP servers' section (``mcp.instructions``). ``skills``: the
    Agent Skills list (``skills.prompt.skills_section``).
    """
    parts = [base_prompt(), environment_section(workspace)]
    files = load_instructions(workspace, config) if instructions is None else instructions
    if files:
        parts.append(
            "# Instructions from the workspace\n"
            "Follow these project instructions; they override the general guidance above."
        )
        parts.extend(f'<instructions file="{f.path}">\n{f.text}\n</instructions>' for f in files)
    if server_instructions:
        parts.append(server_instructions)
    if skills:
        parts.append(skills)
    if participant_prompt.strip():
        parts.append(participant_prompt.strip())
    if tool_hints:
        names = ", ".join(f"`{name}`" for name in tool_hints)
        parts.append(f"{TURN_HEADING}The user asked you to use these tools in this turn: {names}.")
    return "\n\n".join(parts)
