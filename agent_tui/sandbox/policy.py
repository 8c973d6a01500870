"""What the sandbox allows: one policy, built once from ``[sandbox]``, the flags and the workspace.

The same policy drives Linux (``bwrap.py``) and macOS (``seatbelt.py``), ``/sandbox`` and
``agent-tui sandbox``. Reads: everything but :data:`DEFAULT_DENY_READ` (credentials), the app's own
state dir and the user config, plus ``[sandbox] deny_read``. Writes (``workspace-write``): the
workspace, ``--add-dir`` folders and ``[sandbox] writable``, and a private temp dir — never the
protected names inside the workspace (:data:`PROTECTED_NAMES`), which stay read-only. Network: none,
except through the app's proxy to ``allow_domains`` and the domains the user approves.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_tui.approvals.protected import sandbox_protected_names


class SandboxMode(enum.StrEnum):
    """Codex's names: ``workspace-write`` (default), ``read-only``, ``off``."""

    WORKSPACE_WRITE = "workspace-write"
    READ_ONLY = "read-only"
    OFF = "off"


# Credentials and keyrings a command never needs to read (``~`` is the user's home).
DEFAULT_DENY_READ: tuple[str, ...] = (
    "~/.ssh",
    "~/.aws",
    "~/.gnupg",
    "~/.config/gcloud",
    "~/.docker/config.json",
    "~/.netrc",
    "~/.kube",
    "~/.azure",
    "~/.git-credentials",
    "~/.config/gh",
    "~/.pypirc",
    "~/.password-store",
    "~/.local/share/keyrings",
    "~/.gnome2/keyrings",
)

# Inside the workspace, read-only whatever the mode: what the app reads instructions, settings,
# hooks, skills, agents and MCP servers from, and the git config and hooks a command could turn
# into programs the user's own git runs later: the one list in approvals/protected.py.
PROTECTED_NAMES: tuple[str, ...] = sandbox_protected_names()
# A protected name a command may create when it is missing: a new repository (git init, clone)
# writes .git/config and .git/hooks inside its own .git, which holds no settings of the user's yet.
CREATABLE = (".git/",)


@dataclass(frozen=True)
class SandboxPolicy:
    """The resolved policy of one workspace (absolute, real paths).

    Attributes:
        mode: workspace-write, read-only or off.
        workspace: the workspace root.
        writable: folders writable besides the workspace (``--add-dir``, ``[sandbox] writable``).
        deny_read: paths hidden from commands (existing ones only are mounted over).
        allow_domains: domains the proxy lets through (``example.com``, ``*.example.com``).
        ask: ``[sandbox] ask``: commands no rule covers still ask, even inside the sandbox.
        required: ``[sandbox] required``: refuse to run commands when the sandbox is unavailable.
    """

    mode: SandboxMode
    workspace: Path
    writable: tuple[Path, ...] = ()
    deny_read: tuple[Path, ...] = ()
    allow_domains: tuple[str, ...] = ()
    ask: bool = False
    required: bool = False
    network: bool = field(default=True)  # the proxy for allowed domains (False: no route at all)
    # The .git folder of a repository the workspace is a subfolder of (a monorepo package): a
    # commit there must work as at the top, its config, hooks and info still read-only.
    git_dirs: tuple[Path, ...] = ()

    @property
    def enabled(self) -> bool:
        return self.mode is not SandboxMode.OFF

    def write_roots(self) -> tuple[Path, ...]:
        """Folders commands may write (besides the private temp dir)."""
        if self.mode is not SandboxMode.WORKSPACE_WRITE:
            return ()
        return (self.workspace, *self.writable, *self.git_dirs)

    def protected(self) -> list[Path]:
        """The protected paths under every write root (existing or not)."""
        roots = [r for r in self.write_roots() if r not in self.git_dirs]
        found = [root / name for root in roots for name in PROTECTED_NAMES]
        inner = [n.removeprefix(".git/") for n in PROTECTED_NAMES if n.startswith(".git/")]
        return found + [git / name for git in self.git_dirs for name in inner]

    def hidden(self) -> list[Path]:
        """The deny-list paths that exist (only those can be mounted over)."""
        return [p for p in self.deny_read if os.path.lexists(p)]


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path.expanduser()))


def _paths(values: Iterable[Any], base: Path) -> tuple[Path, ...]:
    found = []
    for value in values:
        path = Path(str(value)).expanduser()
        found.append(_real(path if path.is_absolute() else base / path))
    return tuple(dict.fromkeys(found))


def build_policy(
    config: Any,
    workspace: Path,
    *,
    mode: str | None = None,
    add_dirs: Iterable[Path] = (),
) -> SandboxPolicy:
    """The policy for ``workspace`` from the config's ``[sandbox]`` table and the flags.

    Args:
        config: the loaded Config (``[sandbox]`` is trust-gated: an untrusted folder cannot
            loosen it), or None for the defaults.
        workspace: the workspace root.
        mode: ``--sandbox``, which wins over the config.
        add_dirs: ``--add-dir`` folders (writable like the workspace).
    """
    section: dict[str, Any] = {}
    if config is not None:
        found = config.section("sandbox")
        section = found if isinstance(found, dict) else {}
    chosen = SandboxMode(mode or section.get("mode") or SandboxMode.WORKSPACE_WRITE)
    root = _real(workspace)
    home = Path.home()
    deny = [home / p[2:] for p in DEFAULT_DENY_READ]
    deny += app_private_paths()
    deny += [Path(str(p)).expanduser() for p in section.get("deny_read", [])]
    writable = _paths([*add_dirs, *section.get("writable", [])], root)
    return SandboxPolicy(
        git_dirs=_enclosing_git_dir(root),
        mode=chosen,
        workspace=root,
        writable=tuple(w for w in writable if w != root),
        deny_read=tuple(dict.fromkeys(_real(p) for p in deny)),
        allow_domains=tuple(str(d).strip().lower() for d in section.get("allow_domains", [])),
        ask=bool(section.get("ask", False)),
        required=bool(section.get("required", False)),
        network=bool(section.get("network", True)),
    )


def _enclosing_git_dir(root: Path) -> tuple[Path, ...]:
    """The ``.git`` folder of a repository above the workspace, if it is inside one."""
    for folder in root.parents:
        candidate = folder / ".git"
        if candidate.is_dir():
            return (candidate,)
        if candidate.exists():
            return ()  # a worktree's .git file: its folder lives elsewhere, left as it is
    return ()


def app_private_paths() -> list[Path]:
    """The app's state dir (grants, trust, tokens, sessions) and the user config file."""
    from agent_tui.paths import user_config_path

    paths = [user_config_path()]
    override = os.environ.get("AGENT_TUI_STATE_DIR")
    if override:
        paths.append(Path(override))
    else:
        from platformdirs import user_state_dir

        paths.append(Path(user_state_dir("agent-tui")))
    return paths


def domain_allowed(domain: str, patterns: Iterable[str]) -> bool:
    """Whether ``domain`` matches one of ``patterns`` (``example.com`` or ``*.example.com``).

    ``*.example.com`` covers the subdomains, not ``example.com`` itself (as Claude Code's
    sandbox reads it); matching ignores case and a trailing dot.
    """
    host = domain.strip().lower().rstrip(".")
    for pattern in patterns:
        want = pattern.strip().lower().rstrip(".")
        if want.startswith("*."):
            if host.endswith(want[1:]) and host != want[2:]:
                return True
        elif host == want:
            return True
    return False
