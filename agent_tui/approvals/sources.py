"""Which .agentrc file a setting came from, for decision reasons ("rule `git status` in ~/.agentrc").

Config merges the layers and forgets where a key came from, so we re-read the (small) files it
lists, skipping a workspace file's trust-gated sections that were not applied.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_tui.config import Config
from agent_tui.safe_read import MAX_TEXT_FILE_BYTES, read_text

FALLBACK = "settings (command line or environment)"
WORKSPACE_FILE = "the workspace .agentrc"


class SettingSources:
    """Answers "which file set this key?" for one Config."""

    def __init__(self, config: Config) -> None:
        self._layers: list[tuple[str, dict[str, Any]]] = []
        workspace = config.workspace.resolve()
        for path in config.files:
            import tomllib  # here: with no .agentrc it is not needed (~2 ms of a start)

            try:
                tree = tomllib.loads(read_text(path, MAX_TEXT_FILE_BYTES, errors="strict"))
            except (OSError, ValueError):  # TOMLDecodeError and UnicodeDecodeError are ValueErrors
                continue  # changed since load_config read it: the reason just gets vaguer
            is_workspace = path.resolve().parent == workspace
            if is_workspace:
                tree = {k: v for k, v in tree.items() if k not in config.ignored_untrusted}
            self._layers.append((_display(path, is_workspace), tree))

    def where(self, *keys: str) -> str:
        """The display name of the last file that sets ``keys`` (e.g. ``~/.agentrc``)."""
        found = FALLBACK
        for name, tree in self._layers:
            node: Any = tree
            for key in keys:
                node = node.get(key) if isinstance(node, dict) else None
            if node is not None:
                found = name
        return found

    def from_workspace(self, *keys: str) -> bool:
        """Whether the workspace's ``.agentrc`` is the file that sets ``keys``."""
        return self.where(*keys) == WORKSPACE_FILE


def _display(path: Path, is_workspace: bool) -> str:
    if is_workspace:
        return WORKSPACE_FILE
    try:
        return "~/" + path.resolve().relative_to(Path.home().resolve()).as_posix()
    except ValueError:
        return str(path)
