"""The one-key answers to an approval question (DESIGN §5), shared by the Textual modal and the
headless TTY prompt so both offer exactly the same choices."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from agent_tui.approvals.suggest import describe_grant
from agent_tui.approvals.types import Decision, Scope
from agent_tui.schema_check import certainly_valid


@dataclass(frozen=True)
class DecisionKey:
    """One answer key.

    Args:
        key: the key to press.
        label: what the key does, for the prompt and the modal's footer.
        action: ``allow``; ``deny`` (then ask an optional reason); ``edit`` (edit the JSON input,
            then allow once).
        scope: how long an allow lasts.
    """

    key: str
    label: str
    action: Literal["allow", "deny", "edit"]
    scope: Scope = Scope.ONCE


_KEYS = (
    DecisionKey("y", "allow once", "allow", Scope.ONCE),
    DecisionKey("s", "allow for this session", "allow", Scope.SESSION),
    DecisionKey("w", "allow in this workspace", "allow", Scope.WORKSPACE),
    DecisionKey("a", "always allow", "allow", Scope.ALWAYS),
    DecisionKey("n", "deny (Esc too), then an optional reason", "deny"),
    DecisionKey("e", "edit the input, then allow once", "edit"),
)
# Esc is the modal's and the prompt's other way to say no.
DENY_KEYS = ("n", "escape")
# Switches what s / w / a grant between the suggested pattern and this exact command.
NARROW_KEY = "x"


def decision_keys() -> dict[str, DecisionKey]:
    """The answer keys in display order: y, s, w, a, n, e."""
    return {k.key: k for k in _KEYS}


def decision_for_key(
    key: str,
    *,
    pattern: str | None = None,
    reason: str = "",
    edited_input: dict[str, Any] | None = None,
) -> Decision:
    """The Decision a key stands for.

    Args:
        key: one of ``decision_keys()`` or ``escape``.
        pattern: the grant's pattern (``ApprovalRequested.suggested_pattern``) for s/w/a.
        reason: a deny's reason.
        edited_input: the input after ``e``.

    Raises:
        KeyError: not an answer key.
    """
    choice = decision_keys()["n" if key == "escape" else key]
    if choice.action == "deny":
        return Decision(allow=False, reason=reason.strip())
    if choice.action == "edit":
        return Decision(allow=True, scope=Scope.ONCE, edited_input=edited_input)
    lasting = choice.scope is not Scope.ONCE
    return Decision(allow=True, scope=choice.scope, pattern=pattern if lasting else None)


def grant_choice(
    suggested: str | None, exact: str | None, tool: str, *, narrow: bool
) -> tuple[str | None, str]:
    """The pattern s / w / a will grant, and the line that says what it allows.

    Args:
        suggested: ``ApprovalRequested.suggested_pattern`` (a prefix, an origin, or None).
        exact: ``ApprovalRequested.exact_pattern`` (this exact command), if any.
        tool: the tool's name.
        narrow: the user pressed ``NARROW_KEY``: grant ``exact`` instead.

    Returns:
        (pattern, text): the pattern for ``decision_for_key``, and e.g. "s / w / a allow `git log`
        with any arguments, except options that write files or run programs, and paths outside
        the workspace  (x: only this exact command)".
    """
    offer = exact is not None and exact != suggested
    pattern = exact if narrow and offer else suggested
    text = f"s / w / a allow {describe_grant(pattern, tool)}"
    if offer:
        text += f"  ({NARROW_KEY}: {'the wider grant' if narrow else 'only this exact command'})"
    return pattern, text


def input_problem(text: str, schema: dict[str, Any] | None) -> str | None:
    """Why an edited JSON input is not acceptable, or None when it is.

    The modal and the TTY prompt check it before accepting ``e``; the loop validates again.
    """
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
    if not isinstance(value, dict):
        return "the input must be a JSON object"
    if schema and not certainly_valid(schema, value):
        import jsonschema

        error = jsonschema.exceptions.best_match(
            jsonschema.Draft202012Validator(schema).iter_errors(value)
        )
        if error is not None:
            where = "/".join(str(p) for p in error.absolute_path)
            return f"{where + ': ' if where else ''}{error.message}"
    return None
