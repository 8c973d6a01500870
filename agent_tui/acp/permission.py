"""Approvals over ACP: the app's answers as ``session/request_permission`` options, and the
client's answer as the ``Decision`` the core awaits.

The options are the app's scopes: allow once, allow always, allow for this session, allow in this
workspace (custom options: ACP names only once and always, so both carry the ``allow_always``
kind), reject once, and reject always. A grant is the same store as the app's (the engine records
it). The app keeps no lasting denials, so "reject always" denies this call and tells the model it
was refused for good. No answer (the prompt was cancelled, the client went away) is a denial.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from agent_tui.front.types import Decision, Scope

if TYPE_CHECKING:
    from acp.schema import PermissionOption, RequestPermissionResponse

OptionKind = Literal["allow_once", "allow_always", "reject_once", "reject_always"]


@dataclass(frozen=True)
class Choice:
    """One permission option offered to the ACP client: its id, label, kind and the grant it
    stands for."""

    option_id: str
    name: str
    kind: OptionKind
    scope: Scope | None  # None: a rejection


CHOICES = (
    Choice("allow_once", "Allow once", "allow_once", Scope.ONCE),
    Choice("allow_always", "Always allow", "allow_always", Scope.ALWAYS),
    Choice("allow_session", "Allow for this session", "allow_always", Scope.SESSION),
    Choice("allow_workspace", "Allow in this workspace", "allow_always", Scope.WORKSPACE),
    Choice("reject_once", "Reject", "reject_once", None),
    Choice("reject_always", "Always reject", "reject_always", None),
)
REJECTED_ALWAYS = "rejected, and not to be asked again: do not retry this call"
NOT_ANSWERED = "not approved: the client gave no answer"


def options() -> list[PermissionOption]:
    from acp.schema import PermissionOption

    return [PermissionOption(option_id=c.option_id, name=c.name, kind=c.kind) for c in CHOICES]


def decision(response: RequestPermissionResponse | None, pattern: str | None) -> Decision:
    """The core's answer to the client's: an unknown option or no answer is a denial.

    Args:
        response: the client's answer (None: none came).
        pattern: the grant's pattern for a lasting allow (``suggested_pattern``).
    """
    from acp.schema import AllowedOutcome

    outcome = response.outcome if response is not None else None
    if not isinstance(outcome, AllowedOutcome):
        return Decision(allow=False, reason=NOT_ANSWERED, by="client")
    choice = next((c for c in CHOICES if c.option_id == outcome.option_id), None)
    if choice is None:
        return Decision(allow=False, reason=NOT_ANSWERED, by="client")
    if choice.scope is None:
        reason = REJECTED_ALWAYS if choice.kind == "reject_always" else _reason(response)
        return Decision(allow=False, reason=reason)
    lasting = choice.scope is not Scope.ONCE
    return Decision(allow=True, scope=choice.scope, pattern=pattern if lasting else None)


def _reason(response: RequestPermissionResponse | None) -> str:
    """A rejection's reason, where the client sends one (``_meta.reason``, no standard field)."""
    meta = response.field_meta if response is not None else None
    reason = meta.get("reason") if isinstance(meta, dict) else None
    return reason.strip() if isinstance(reason, str) else ""
