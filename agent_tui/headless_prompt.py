"""Answering approval questions in headless mode (``agent-tui -p``, DESIGN §8).

``--on-approval ask`` asks on the terminal with prompt_toolkit, using the modal's keys (y s w a n e,
Esc); without a terminal on both stdin and stdout it denies instead, so a piped or CI run never
waits for input that cannot come. ``deny`` always denies (the model is told and carries on);
``fail`` stops the run with ApprovalRequired (exit 3).
"""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from agent_tui.approvals.keys import (
    DENY_KEYS,
    NARROW_KEY,
    decision_for_key,
    decision_keys,
    grant_choice,
    input_problem,
)
from agent_tui.approvals.types import Decision
from agent_tui.errors import ApprovalRequired
from agent_tui.events import ApprovalRequested
from agent_tui.text_safety import one_line, visible

POLICIES = ("ask", "deny", "fail")
_EOF = "eof"  # Ctrl-D or a closed terminal at the question


async def resolve_headless(
    policy: str,
    event: ApprovalRequested,
    *,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    input_schema: dict[str, Any] | None = None,
) -> Decision:
    """Answer one approval question according to ``--on-approval``.

    Args:
        policy: ``ask``, ``deny`` or ``fail``.
        event: the question.
        stdin: the input stream whose TTY-ness decides whether ``ask`` may ask (default sys.stdin).
        stdout: likewise for output (default sys.stdout).
        input_schema: the tool's input schema, to validate an edited input.

    Returns:
        The decision (``by`` is "policy" when no one was asked).

    Raises:
        ApprovalRequired: ``policy`` is ``fail``.
        ValueError: an unknown policy.
    """
    if policy not in POLICIES:
        raise ValueError(f"unknown --on-approval policy {policy!r}: use ask, deny or fail")
    if policy == "fail":
        raise ApprovalRequired(
            f"{event.name} needed approval ({event.verdict.reason}); the run stopped because of "
            f"--on-approval fail. Allow it with --allow-tool {event.name} or a rule in .agentrc."
        )
    if policy == "ask" and _is_tty(stdin or sys.stdin) and _is_tty(stdout or sys.stdout):
        return await ask_on_tty(event, input_schema=input_schema)
    why = (
        "--on-approval deny"
        if policy == "deny"
        else "no terminal to ask on (stdin or stdout is not a TTY)"
    )
    return Decision(allow=False, reason=f"not approved: headless run, {why}", by="policy")


async def ask_on_tty(
    event: ApprovalRequested, *, input_schema: dict[str, Any] | None = None
) -> Decision:
    """Ask the user on the terminal, one key per answer (same keys as the TUI modal).

    Args:
        event: the question.
        input_schema: the tool's input schema; an edited input must satisfy it.

    Raises:
        KeyboardInterrupt: Ctrl-C (the caller stops the run, exit 130).
    """
    from prompt_toolkit import PromptSession, print_formatted_text
    from prompt_toolkit.formatted_text import FormattedText

    print_formatted_text(FormattedText(_question(event)))
    narrow = False
    while True:
        key = await _read_key(_legend())
        if key == NARROW_KEY:
            if event.exact_pattern in (None, event.suggested_pattern):
                continue  # nothing narrower to offer
            narrow = not narrow
            print_formatted_text(FormattedText([("", _grant_line(event, narrow) + "\n")]))
            continue
        if key == _EOF:
            return decision_for_key("n")  # no reason either: nothing more will be typed
        if key in DENY_KEYS:
            reason = await _read_line(
                PromptSession(), "Reason for the model (optional, Enter to skip): "
            )
            return decision_for_key("n", reason=reason or "")
        if key == "e":
            edited = await _edit_input(event.input, input_schema)
            if edited is None:
                continue  # edit abandoned: ask again
            return decision_for_key("e", edited_input=edited)
        pattern, _ = grant_choice(
            event.suggested_pattern, event.exact_pattern, event.name, narrow=narrow
        )
        return decision_for_key(key, pattern=pattern)


def _question(event: ApprovalRequested) -> list[tuple[str, str]]:
    confirmation = event.prepared.confirmation
    title = confirmation.title if confirmation else f"Run {event.name}?"
    body = confirmation.message if confirmation else json.dumps(event.input, indent=2)
    # The model wrote the command, paths and diff: control characters shown, not obeyed.
    lines = [
        ("bold", f"\n{one_line(title)}\n"),
        ("", f"{visible(body)}\n"),
        ("italic", f"{visible(event.verdict.reason)}\n"),
    ]
    if event.suggested_pattern:
        lines.append(("", _grant_line(event, narrow=False) + "\n"))
    return lines


def _grant_line(event: ApprovalRequested, narrow: bool) -> str:
    # The pattern quotes the model's command: control characters shown, not obeyed.
    line = grant_choice(event.suggested_pattern, event.exact_pattern, event.name, narrow=narrow)[1]
    return one_line(line)


def _legend() -> str:
    short = {"allow": "", "deny": "deny", "edit": "edit"}
    parts = [f"{k}={short[v.action] or v.scope.value}" for k, v in decision_keys().items()]
    return "  ".join(parts) + "  (Esc=deny) > "


async def _read_key(prompt: str) -> str:
    """Wait for one answer key (or ``_EOF``); Ctrl-C interrupts."""
    from prompt_toolkit.application import Application
    from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
    from prompt_toolkit.layout import FormattedTextControl, Layout, Window

    bindings = KeyBindings()
    for key in [*decision_keys(), NARROW_KEY, "escape"]:

        @bindings.add(key, eager=True)
        def _answer(press: KeyPressEvent, key: str = key) -> None:
            press.app.exit(result=key)

    @bindings.add("c-d")
    def _eof(press: KeyPressEvent) -> None:
        press.app.exit(result=_EOF)

    @bindings.add("c-c")
    def _interrupt(press: KeyPressEvent) -> None:
        press.app.exit(exception=KeyboardInterrupt())

    app: Application[str] = Application(
        layout=Layout(Window(FormattedTextControl(prompt), height=1, wrap_lines=True)),
        key_bindings=bindings,
        full_screen=False,
    )
    try:
        return await app.run_async()
    except EOFError:
        return _EOF  # the terminal went away: no answer can come


async def _read_line(session: Any, message: str, **kwargs: Any) -> str | None:
    """One line (or a multiline text) from the user; None on Ctrl-D. Ctrl-C interrupts."""
    try:
        return str(await session.prompt_async(message, **kwargs))
    except EOFError:
        return None


async def _edit_input(
    current: dict[str, Any], schema: dict[str, Any] | None
) -> dict[str, Any] | None:
    """Let the user edit the call's JSON input; it must parse (and satisfy ``schema``)."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.validation import ValidationError, Validator

    class _JsonInput(Validator):
        def validate(self, document: Any) -> None:
            problem = input_problem(document.text, schema)
            if problem:
                raise ValidationError(message=problem, cursor_position=len(document.text))

    try:
        text = await _read_line(
            PromptSession(),
            "Edit the input (Esc then Enter to run it, Ctrl-C to go back):\n",
            default=json.dumps(current, indent=2),
            multiline=True,
            validator=_JsonInput(),
        )
    except KeyboardInterrupt:
        return None  # here Ctrl-C means "back to the question", not "stop the run"
    return None if text is None else dict(json.loads(text))


def _is_tty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or fake stream
        return False
