"""``agent-tui --reset-tool-confirmations [scope]``, ``--list-approvals``, ``--revoke-approval ID``.

They work on the stored grants of the given workspace (a fresh process has no session grants).
Each returns the process exit code.
"""

from __future__ import annotations

import sys
from pathlib import Path

from agent_tui.approvals.grants import RESET_SCOPES, ApprovalGrant, GrantStore
from agent_tui.plural import plural


def format_grants(grants: list[ApprovalGrant], *, markdown: bool = False) -> str:
    """A table of grants numbered from 1 (the number or the id revokes one).

    Args:
        grants: as ``GrantStore.grants()`` returns them.
        markdown: a Markdown table (for /approvals) instead of aligned text.
    """
    if not grants:
        return "No remembered approvals."
    header = ("#", "id", "scope", "tool", "pattern", "granted (UTC)")
    rows = [
        (
            str(n),
            g.id,
            g.scope.value,
            g.tool,
            (g.pattern or "(any call)").replace("\n", " "),
            g.granted_at[:19].replace("T", " "),
        )
        for n, g in enumerate(grants, 1)
    ]
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows]
        return "\n".join(lines)
    widths = [max(len(r[i]) for r in (header, *rows)) for i in range(len(header))]
    return "\n".join(
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in (header, *rows)
    )


def describe_reset(scope: str, removed: list[ApprovalGrant]) -> str:
    """One line saying what a reset cleared."""
    if not removed:
        return f"No {scope} approvals to clear." if scope != "all" else "No approvals to clear."
    tools = ", ".join(sorted({g.tool for g in removed}))
    kind = "approval" if scope == "all" else f"{scope} approval"  # not "2 all approvals"
    return f"Cleared {plural(len(removed), kind)} ({tools})."


def reset_command(scope: str, workspace: Path, state_dir: Path | None = None) -> int:
    """``--reset-tool-confirmations [session|workspace|always|all]``: forget grants, say which.

    Returns:
        0, or 2 for an unknown scope.
    """
    if scope not in RESET_SCOPES:
        print(
            f"agent-tui: unknown scope {scope!r}; use one of {', '.join(RESET_SCOPES)}",
            file=sys.stderr,
        )
        return 2
    if scope == "session":
        print("Session approvals live only inside a running session; nothing stored to clear.")
        return 0
    removed = GrantStore(workspace, state_dir).reset(scope)
    print(describe_reset(scope, removed))
    for grant in removed:
        print(f"  - {grant.describe()}")
    return 0


def list_command(workspace: Path, state_dir: Path | None = None) -> int:
    """``--list-approvals``: this workspace's and the always grants. Returns 0."""
    print(format_grants(GrantStore(workspace, state_dir).grants()))
    return 0


def revoke_command(grant_id: str, workspace: Path, state_dir: Path | None = None) -> int:
    """``--revoke-approval ID``: forget one grant, by id or by its number in the list.

    Returns:
        0, or 1 when no such grant applies to this workspace.
    """
    revoked = GrantStore(workspace, state_dir).revoke(grant_id)
    if revoked is None:
        print(
            f"agent-tui: no approval {grant_id!r} here; see agent-tui --list-approvals",
            file=sys.stderr,
        )
        return 1
    print(f"Revoked {revoked.describe()}.")
    return 0
