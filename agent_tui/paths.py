"""Where agent-tui keeps state: the user's state dir, never the workspace (DESIGN §9)."""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any


def state_dir() -> Path:
    """The user state dir (platformdirs ``agent-tui``); ``AGENT_TUI_STATE_DIR`` overrides it.

    Raises:
        ConfigError: it cannot be created.
    """
    override = os.environ.get("AGENT_TUI_STATE_DIR")
    if override:
        path = Path(override)
    else:
        from platformdirs import user_state_dir

        path = Path(user_state_dir("agent-tui"))
    from agent_tui.state_files import private_dir

    try:
        return private_dir(path)  # 0700: sessions and logs hold the user's code
    except OSError as exc:
        from agent_tui.errors import ConfigError

        raise ConfigError(
            f"the state dir cannot be created ({exc.strerror or exc}); "
            "set AGENT_TUI_STATE_DIR to a folder you can write",
            file=str(path),
        ) from None


def user_config_path(environ: Mapping[str, str] | None = None) -> Path:
    """``~/.agentrc``, or the file ``AGENT_TUI_USER_CONFIG`` names (``environ``: os.environ)."""
    env = os.environ if environ is None else environ
    home = Path(env["HOME"]) if env.get("HOME") else Path.home()
    return Path(env.get("AGENT_TUI_USER_CONFIG", home / ".agentrc"))


def user_prompts_dir() -> Path:
    return Path.home() / ".agent" / "prompts"


def workspace_dir_name(workspace: Path) -> str:
    """The folder name of a workspace's own state (sessions, checkpoints, prompt history): a hash
    of its real path, the key its grants and trust use, so a folder reached through a symlink or
    ``..`` has one history. (A path cannot be a folder name; surrogates keep odd bytes hashable.)"""
    real = os.path.realpath(workspace)
    digest: str = _sha256()(real.encode("utf-8", "surrogateescape")).hexdigest()
    return digest[:16]


def _sha256() -> Callable[[bytes], Any]:
    """SHA-256 from the interpreter's own module (``_sha2`` from 3.12, ``_sha256`` before) where
    it has one: importing hashlib starts OpenSSL's digests, ~2 ms of every start for one small
    hash. The same digest either way; hashlib when the build lacks the module."""
    for name in ("_sha2", "_sha256"):
        try:
            return importlib.import_module(name).sha256  # type: ignore[no-any-return]
        except ImportError:
            continue
    import hashlib

    return hashlib.sha256
