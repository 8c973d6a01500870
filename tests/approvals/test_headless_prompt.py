"""The headless TTY question (prompt_toolkit, driven through a pipe) and the --on-approval policy."""

from __future__ import annotations

import asyncio
import io
import os
from collections.abc import Iterator
from typing import Any

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from agent_tui.approvals.keys import decision_for_key, decision_keys
from agent_tui.approvals.types import Decision, Scope, Verdict
from agent_tui.errors import ApprovalRequired
from agent_tui.events import ApprovalRequested
from agent_tui.headless_prompt import ask_on_tty, input_problem, resolve_headless
from agent_tui.tools.base import Confirmation, Prepared

SCHEMA = {
    "type": "object",
    "required": ["command"],
    "properties": {"command": {"type": "string"}},
}


def _event(pattern: str | None = "make") -> ApprovalRequested:
    return ApprovalRequested(
        call_id="call_1",
        name="run_in_terminal",
        input={"command": "make"},
        prepared=Prepared("Running make", "Ran make", Confirmation("Run command?", "`make`")),
        verdict=Verdict("ask", "default", "asked: `make` matches no terminal rule or grant"),
        suggested_pattern=pattern,
        decision=asyncio.get_running_loop().create_future(),
    )


async def _answer(keys: str, **kwargs: Any) -> Decision:
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        pipe.send_text(keys)
        return await ask_on_tty(_event(), **kwargs)


@pytest.mark.parametrize(
    ("key", "scope", "pattern"),
    [("y", Scope.ONCE, None), ("s", Scope.SESSION, "make"), ("w", Scope.WORKSPACE, "make"),
     ("a", Scope.ALWAYS, "make")],
)  # fmt: skip
async def test_allow_keys(key: str, scope: Scope, pattern: str | None) -> None:
    decision = await _answer(key)
    assert (decision.allow, decision.scope, decision.pattern) == (True, scope, pattern)


async def test_deny_with_reason() -> None:
    decision = await _answer("nnot on main\r")
    assert (decision.allow, decision.reason, decision.by) == (False, "not on main", "you")


async def test_escape_denies_then_asks_a_reason() -> None:
    decision = await _answer("\x1bbecause\r")
    assert (decision.allow, decision.reason) == (False, "because")


async def test_deny_without_reason() -> None:
    assert await _answer("n\r") == Decision(allow=False, reason="")


async def test_edit_then_allow_once() -> None:
    # Up to the "command" line, end of line, replace the closing quote: "make" -> "make all".
    decision = await _answer('e\x1b[A\x05\x7f all"\x1b\r', input_schema=SCHEMA)
    assert decision.allow and decision.scope is Scope.ONCE
    assert decision.edited_input == {"command": "make all"}


async def test_edit_rejects_bad_json_until_fixed() -> None:
    # "x" after the closing brace is refused on submit; backspace fixes it.
    decision = await _answer("ex\x1b\r\x7f\x1b\r", input_schema=SCHEMA)
    assert decision.edited_input == {"command": "make"}


async def test_edit_abandoned_goes_back_to_the_question() -> None:
    decision = await _answer("e\x03y")
    assert decision.allow and decision.edited_input is None


async def test_ctrl_d_at_the_question_denies() -> None:
    assert (await _answer("\x04")).allow is False


async def test_closed_input_denies_instead_of_waiting() -> None:
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        pipe.close()
        decision = await asyncio.wait_for(ask_on_tty(_event()), timeout=30)
    assert decision.allow is False


async def test_ctrl_c_interrupts() -> None:
    with pytest.raises(KeyboardInterrupt):
        await _answer("\x03")


def test_input_problem() -> None:
    assert input_problem('{"command": "ls"}', SCHEMA) is None
    assert "not valid JSON" in (input_problem("{", SCHEMA) or "")
    assert input_problem("[1]", None) == "the input must be a JSON object"
    assert "'command' is a required property" in (input_problem("{}", SCHEMA) or "")
    assert "command: 3 is not of type 'string'" in (input_problem('{"command": 3}', SCHEMA) or "")


async def test_policy_deny() -> None:
    decision = await resolve_headless("deny", _event())
    assert (decision.allow, decision.by) == (False, "policy")
    assert "--on-approval deny" in decision.reason


async def test_policy_fail_raises_with_exit_code_3() -> None:
    with pytest.raises(ApprovalRequired) as info:
        await resolve_headless("fail", _event())
    assert info.value.exit_code == 3
    assert "run_in_terminal" in str(info.value) and "--allow-tool" in str(info.value)


async def test_policy_ask_without_a_tty_denies_at_once() -> None:
    decision = await asyncio.wait_for(
        resolve_headless("ask", _event(), stdin=io.StringIO(""), stdout=io.StringIO()),
        timeout=30,
    )
    assert decision.allow is False and "not a TTY" in decision.reason


@pytest.fixture
def pty_streams() -> Iterator[tuple[Any, Any]]:
    leader, follower = os.openpty()
    with os.fdopen(follower, "r") as tty_in, os.fdopen(os.dup(follower), "w") as tty_out:
        yield tty_in, tty_out
    os.close(leader)


async def test_policy_ask_on_a_tty_asks(pty_streams: tuple[Any, Any]) -> None:
    tty_in, tty_out = pty_streams
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        pipe.send_text("w")
        decision = await resolve_headless("ask", _event(), stdin=tty_in, stdout=tty_out)
    assert (decision.allow, decision.scope, decision.pattern) == (True, Scope.WORKSPACE, "make")


async def test_unknown_policy() -> None:
    with pytest.raises(ValueError, match="unknown --on-approval"):
        await resolve_headless("maybe", _event())


def test_decision_keys_shared_by_modal_and_prompt() -> None:
    keys = decision_keys()
    assert list(keys) == ["y", "s", "w", "a", "n", "e"]
    assert [keys[k].scope for k in "yswa"] == [
        Scope.ONCE, Scope.SESSION, Scope.WORKSPACE, Scope.ALWAYS,
    ]  # fmt: skip
    assert decision_for_key("escape", reason=" no ") == Decision(allow=False, reason="no")
    assert decision_for_key("y", pattern="make").pattern is None  # once never narrows a grant
    assert decision_for_key("e", edited_input={"a": 1}).edited_input == {"a": 1}
    with pytest.raises(KeyError):
        decision_for_key("q")


def _ls_event() -> ApprovalRequested:
    return ApprovalRequested(
        call_id="call_1",
        name="run_in_terminal",
        input={"command": "ls -la"},
        prepared=Prepared("Running ls -la", "Ran ls -la", Confirmation("Run command?", "`ls -la`")),
        verdict=Verdict("ask", "default", "asked: `ls -la` matches no terminal rule or grant"),
        suggested_pattern="ls",
        decision=asyncio.get_running_loop().create_future(),
        exact_pattern="/^ls\\ \\-la$/",
    )


@pytest.mark.parametrize(
    ("keys", "pattern"),
    [("s", "ls"), ("xs", "/^ls\\ \\-la$/"), ("xxa", "ls"), ("xw", "/^ls\\ \\-la$/")],
)
async def test_x_narrows_the_grant_to_this_exact_command(keys: str, pattern: str) -> None:
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        pipe.send_text(keys)
        decision = await ask_on_tty(_ls_event())
    assert decision.allow and decision.pattern == pattern


async def test_x_without_a_narrower_choice_changes_nothing() -> None:
    decision = await _answer("xs")  # _event() offers no exact pattern
    assert decision.pattern == "make"
