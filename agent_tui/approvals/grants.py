"""Remembered approvals: session (memory), workspace and always (``approvals.json`` in the state dir).

Workspace grants are keyed by the folder's real path, and the file lives in the user's state dir,
never in the repo: a cloned repository cannot pre-approve anything (DESIGN §5, §9).
"""

from __future__ import annotations

import logging
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from agent_tui.approvals.store import read_json, update_json
from agent_tui.approvals.types import Scope

logger = logging.getLogger(__name__)
FILE_NAME = "approvals.json"
# The grant that lets an MCP server use the model (its pattern is the server's name). ``:`` cannot
# appear in a tool name, so it never collides with a real tool.
SAMPLING_GRANT = "mcp:sampling"
RESET_SCOPES = ("session", "workspace", "always", "all")
_EMPTY: dict[str, Any] = {"version": 1, "grants": []}


@dataclass(frozen=True)
class ApprovalGrant:
    """One remembered "allow".

    Args:
        id: short stable id, for revoking.
        scope: session, workspace or always.
        tool: the tool's name.
        pattern: what it covers (a command prefix or ``/regex/``, a URL pattern, a path glob), or
            None for the whole tool.
        workspace: the real path of the folder, for a workspace grant.
        granted_at: ISO-8601 UTC time.
    """

    id: str
    scope: Scope
    tool: str
    pattern: str | None
    workspace: str | None
    granted_at: str

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ApprovalGrant | None:
        try:
            return cls(
                id=str(data["id"]),
                scope=Scope(data["scope"]),
                tool=str(data["tool"]),
                pattern=None if data.get("pattern") is None else str(data["pattern"]),
                workspace=None if data.get("workspace") is None else str(data["workspace"]),
                granted_at=str(data.get("granted_at", "")),
            )
        except (KeyError, ValueError, TypeError):
            return None  # a hand-edited entry we do not understand grants nothing

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "scope": self.scope.value}

    def describe(self) -> str:
        when = f"({self.scope.value}, {self.granted_at[:16].replace('T', ' ')})"
        if self.tool == SAMPLING_GRANT:
            return f"MCP server `{self.pattern}` may use the model {when}"
        what = f"`{self.pattern}`" if self.pattern else "any call"
        return f"{self.tool} {what} {when}"


def workspace_key(workspace: Path) -> str:
    """The key of a folder's grants and trust: its real path (symlinks and ``..`` resolved)."""
    return os.path.realpath(workspace)


class GrantStore:
    """The grants that apply in one workspace: this session's, this folder's and the always ones.

    The file is re-read on every lookup (it is small) so a grant made by another running instance
    applies at once.

    Args:
        workspace: the workspace folder.
        state_dir: where ``approvals.json`` lives (default: ``paths.state_dir()``).
    """

    def __init__(self, workspace: Path, state_dir: Path | None = None) -> None:
        self.workspace = workspace_key(workspace)
        self._state_dir = state_dir
        self._session: list[ApprovalGrant] = []

    @property
    def path(self) -> Path:
        if self._state_dir is None:
            from agent_tui.paths import state_dir

            self._state_dir = state_dir()
        return self._state_dir / FILE_NAME

    def add(self, scope: Scope, tool: str, pattern: str | None = None) -> ApprovalGrant:
        """Remember an allow.

        Raises:
            ValueError: ``scope`` is ONCE (nothing to remember).
            OSError, filelock.Timeout: the state file cannot be written.
        """
        if scope is Scope.ONCE:
            raise ValueError("a once-only approval is not remembered")
        import uuid  # ~1.5 ms with platform: only when an approval is remembered
        from datetime import UTC, datetime  # ~1 ms

        grant = ApprovalGrant(
            id=uuid.uuid4().hex[:8],
            scope=scope,
            tool=tool,
            pattern=pattern,
            workspace=self.workspace if scope is Scope.WORKSPACE else None,
            granted_at=datetime.now(UTC).isoformat(timespec="seconds"),
        )
        if scope is Scope.SESSION:
            self._session.append(grant)
        else:
            update_json(self.path, _EMPTY, lambda data: data.setdefault("grants", []).append(
                grant.to_json()
            ))  # fmt: skip
        return grant

    def remember(self, scope: Scope, tool: str, pattern: str | None = None) -> ApprovalGrant:
        """``add``, but when the state dir cannot be written the grant is kept for this session
        and the problem logged: the user's answer still counts."""
        from filelock import Timeout

        try:
            return self.add(scope, tool, pattern)
        except (OSError, Timeout) as exc:
            logger.warning(
                "could not save a %s grant (%s); kept for this session", scope.value, exc
            )
            return self.add(Scope.SESSION, tool, pattern)

    def grants(self) -> list[ApprovalGrant]:
        """Grants that apply here: session first, then this workspace's, then always."""
        stored = [g for g in self._stored() if self._applies(g)]
        order = {Scope.SESSION: 0, Scope.WORKSPACE: 1, Scope.ALWAYS: 2}
        return sorted([*self._session, *stored], key=lambda g: order[g.scope])

    def for_tool(self, tool: str) -> list[ApprovalGrant]:
        return [g for g in self.grants() if g.tool == tool]

    def revoke(self, ref: str) -> ApprovalGrant | None:
        """Revoke one grant by id or by its 1-based number in ``grants()``; returns it, or None."""
        listed = self.grants()
        target = next((g for g in listed if g.id == ref), None)
        if target is None and ref.isdigit() and 1 <= int(ref) <= len(listed):
            target = listed[int(ref) - 1]
        if target is None:
            return None
        if target.scope is Scope.SESSION:
            self._session = [g for g in self._session if g.id != target.id]
            return target

        def drop(data: dict[str, Any]) -> bool:
            before = data.get("grants", [])
            data["grants"] = [g for g in before if g.get("id") != target.id]
            return len(data["grants"]) != len(before)

        return target if update_json(self.path, _EMPTY, drop) else None

    def reset(self, scope: str) -> list[ApprovalGrant]:
        """Forget grants and return the ones forgotten.

        Args:
            scope: ``session``; ``workspace`` (this folder's only); ``always``; or ``all`` (the
                session's and every stored grant, every folder's included).

        Raises:
            ValueError: an unknown scope.
        """
        if scope not in RESET_SCOPES:
            raise ValueError(f"unknown scope {scope!r}: use one of {', '.join(RESET_SCOPES)}")
        removed: list[ApprovalGrant] = []
        if scope in ("session", "all"):
            removed.extend(self._session)
            self._session = []
        if scope == "session":
            return removed

        def drop(data: dict[str, Any]) -> None:
            kept = []
            for entry in data.get("grants", []):
                grant = ApprovalGrant.from_json(entry)
                if grant is not None and self._in_reset(grant, scope):
                    removed.append(grant)
                else:
                    kept.append(entry)
            data["grants"] = kept

        if self.path.exists():
            update_json(self.path, _EMPTY, drop)
        return removed

    def _in_reset(self, grant: ApprovalGrant, scope: str) -> bool:
        if scope == "all":
            return True
        if scope == "workspace":
            return grant.scope is Scope.WORKSPACE and grant.workspace == self.workspace
        return grant.scope is Scope.ALWAYS

    def _stored(self) -> list[ApprovalGrant]:
        entries = read_json(self.path, _EMPTY).get("grants", [])
        grants = [ApprovalGrant.from_json(e) for e in entries if isinstance(e, dict)]
        return [g for g in grants if g is not None and g.scope is not Scope.SESSION]

    def _applies(self, grant: ApprovalGrant) -> bool:
        return grant.scope is Scope.ALWAYS or grant.workspace == self.workspace
