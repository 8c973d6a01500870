"""Instructions files in subfolders (``pkg/AGENTS.md``) apply to the files under them.

As in Codex and Claude Code: when a tool call touches a path under a folder with its own
``AGENTS.md`` (or another name from ``[agent] instructions_files`` without a slash) that this
conversation has not yet seen, the file's text is appended to that call's result, once per
conversation. The root's files are already in the system prompt. Each file passes the workspace
check (a committed link to ``~/.ssh/id_rsa`` named ``AGENTS.md`` is not read), has its control
characters made visible and is cut to a budget, since a repository writes it.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from agent_tui.agent.instructions import instructions_names
from agent_tui.safe_read import NotRegularFile, read_text_head
from agent_tui.text_safety import visible
from agent_tui.tools.workspace_paths import OutsideWorkspace, is_inside, real_root, require_inside

MAX_FOLDER_FILE_CHARS = 8_000  # one subfolder's file
MAX_PER_RESULT_CHARS = 16_000  # all the files one tool result may carry
SHOWN_KEY = "folder_instructions_shown"


def _folders(root: Path, path: Path) -> list[Path]:
    """The folders from just below ``root`` down to ``path``'s own (``path`` if it is a folder)."""
    folder = path if path.is_dir() else path.parent
    chain: list[Path] = []
    while folder != root and is_inside(root, folder):
        chain.append(folder)
        folder = folder.parent
    return chain[::-1]


def folder_instructions(
    workspace: Path, config: Any, paths: Iterable[Path], shown: set[str]
) -> str:
    """The text to append to a tool result for ``paths``: files not yet in ``shown`` (updated).

    Args:
        workspace: the workspace root.
        config: the Config (``[agent] instructions_files``); None = the defaults.
        paths: the resolved paths the call touched (``Prepared.paths``).
        shown: the workspace-relative names already given in this conversation.
    """
    root = real_root(workspace)
    names = [n for n in instructions_names(config) if "/" not in n and "\\" not in n]
    parts: list[str] = []
    used = 0
    for path in paths:
        for folder in _folders(root, path):
            for name in names:
                relative = (folder / name).relative_to(root).as_posix()
                if relative in shown or not (folder / name).exists():
                    continue
                shown.add(relative)  # once, whether read, skipped or refused
                text, note = _read(root, relative)
                if note:
                    parts.append(note)
                if not text:
                    continue
                if used + len(text) > MAX_PER_RESULT_CHARS:
                    shown.discard(relative)  # no room in this result: give it with the next one
                    continue
                used += len(text)
                parts.append(
                    f'<instructions file="{relative}">\n'
                    f"These instructions apply to the files under {folder.relative_to(root).as_posix()}/.\n"
                    f"{visible(text)}\n</instructions>"
                )
    return "\n\n".join(parts)


def _read(root: Path, relative: str) -> tuple[str, str]:
    """The file's text (cut to MAX_FOLDER_FILE_CHARS), or "" and a note saying why it is not
    used (also "": nothing worth saying)."""
    try:
        real = require_inside(root, relative)
        text = read_text_head(real, MAX_FOLDER_FILE_CHARS).strip()
    except OutsideWorkspace as exc:
        return "", f"[{relative} not used: it leads to {exc.target}, outside the workspace]"
    except NotRegularFile as exc:  # a FIFO would hang the tool call
        return "", f"[{relative} not used: it {exc.what}]" if exc.kind != "a folder" else ""
    except OSError:
        return "", ""
    if len(text) > MAX_FOLDER_FILE_CHARS:
        text = (
            text[:MAX_FOLDER_FILE_CHARS]
            + f"\n[… {relative} cut at {MAX_FOLDER_FILE_CHARS} characters]"
        )
    return text, ""
