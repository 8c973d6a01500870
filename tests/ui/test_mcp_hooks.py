"""MCP elicitation forms and sampling consent in the TUI, against the real server-everything.

The scripted model calls server-everything's trigger tools; the server sends a real
``elicitation/create`` or ``sampling/createMessage`` request back, which the app answers from its
modal screens. The tool result the model receives shows what the server got.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Checkbox, Input, Label, OptionList, Static

from agent_tui.approvals.grants import SAMPLING_GRANT, GrantStore
from agent_tui.approvals.types import Decision, Scope
from agent_tui.mcp.session import create_mcp
from agent_tui.mcp.types import InputSpec, SamplingRequest, render_parts
from agent_tui.ui.app import AgentApp
from agent_tui.ui.screens.elicit import ElicitScreen
from agent_tui.ui.screens.mcp_input import McpInputScreen
from agent_tui.ui.screens.mcp_questions import ask_modal
from agent_tui.ui.screens.sampling_consent import SamplingConsentScreen, request_preview
from agent_tui.ui.widgets.elicit_fields import coerce_text, parse_schema
from agent_tui.ui.widgets.notes import Note
from tests.helpers import missing
from tests.mcp.conftest import ENV_SERVER, EVERYTHING_JS, everything_home
from tests.ui.app_helpers import attach_mcp, call_server_tool, running_app, send_to_approval
from tests.ui.conftest import Harness, MakeAgent
from tests.ui.helpers import screen_name, send, wait_idle, wait_screen, wait_until
from tests.ui.test_chat import tool_results

ELICIT_TOOL = "mcp_everything_trigger-elicitation-request"
SAMPLE_TOOL = "mcp_everything_trigger-sampling-request"


@pytest.fixture
def everything(tmp_path: Path) -> Path:
    """Configure server-everything (stdio) in the user's ~/.agentrc of the make_agent fixture."""
    if shutil.which("node") is None:
        missing("node is not installed (server-everything needs it)")
    if not EVERYTHING_JS.is_file():
        missing("server-everything is not installed: run scripts/install-test-servers.sh")
    everything_home(tmp_path / "home", EVERYTHING_JS)
    return EVERYTHING_JS


@pytest.fixture
def with_mcp(everything: Path, mcp_harnesses: list[Harness]) -> list[Harness]:
    """Server-everything configured; each harness appended here (attach_mcp) is stopped after."""
    return mcp_harnesses


async def open_prompt_form(pilot: Pilot[object], h: Harness, command: str, args: str = "") -> None:
    """Wait for the MCP prompt ``/command`` to be listed, send it with ``args``, wait for its form."""
    commands = h.agent.deps.commands
    await wait_until(pilot, lambda: commands.get(command), f"the prompt command /{command}")
    await send(pilot, f"/{command} {args}".rstrip())
    await wait_screen(pilot, "ElicitScreen")


def call(tool: str, call_id: str, **args: Any) -> dict[str, Any]:
    return {"tool_calls": [{"id": call_id, "name": tool, "input": args}]}


async def test_elicitation_form_accept_validates_then_sends_content(
    make_agent: MakeAgent, with_mcp: list[Harness]
) -> None:
    h = make_agent(
        [call(ELICIT_TOOL, "c1"), {"text": "one"}, call(ELICIT_TOOL, "c2"), {"text": "two"}]
    )
    attach_mcp(h, with_mcp)
    async with running_app(h.agent, size=(110, 50)) as (app, pilot):
        await call_server_tool(pilot, h, ELICIT_TOOL, "ask me", "ElicitScreen")
        form = app.screen
        assert isinstance(form, ElicitScreen) and form.server == "everything"
        titles = [str(label.content) for label in form.query(".field-title").results(Label)]
        assert "String *" in titles  # `name` is required
        name = form.query_one("#field-0", Input)
        assert name.value == ""
        # Submitting without the required name keeps the form open and says why.
        await pilot.click("#accept")
        await pilot.pause()
        assert app.screen is form
        assert str(form.query_one("#error-0", Label).content) == "required"
        # An integer outside 1..100 is refused too.
        integer = next(i for i, f in enumerate(form.fields) if f.name == "integer")
        form.query_one(f"#field-{integer}", Input).value = "500"
        name.focus()
        await pilot.press(*"Ada")
        form.query_one("#field-1", Checkbox).value = True
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is form
        assert "at most 100" in str(form.query_one(f"#error-{integer}", Label).content)
        form.query_one(f"#field-{integer}", Input).value = "7"
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(tool_results(h.agent)) == 1, "the first result")
        accepted = tool_results(h.agent)[0].content
        assert '"action": "accept"' in accepted
        assert "- Name: Ada" in accepted and "- Favorite Integer: 7" in accepted
        assert "- Agreed to terms: true" in accepted
        # Untouched fields send their defaults: a Select's value, a SelectionList's list.
        assert '"titledSingleSelectEnum": "hero-1"' in accepted
        assert '"untitledMultipleSelectEnum": [\n      "Guitar"' in accepted
        await wait_idle(pilot)

        await send_to_approval(pilot, "again", "y")
        await wait_screen(pilot, "ElicitScreen")
        await pilot.click("#decline")
        await wait_idle(pilot)
        declined = tool_results(h.agent)[1].content
        assert '"action": "decline"' in declined and "Ada" not in declined


async def test_elicitation_escape_cancels(make_agent: MakeAgent, with_mcp: list[Harness]) -> None:
    h = make_agent([call(ELICIT_TOOL, "c1"), {"text": "ok"}])
    attach_mcp(h, with_mcp)
    async with running_app(h.agent, size=(110, 50)) as (app, pilot):
        await call_server_tool(pilot, h, ELICIT_TOOL, "ask me", "ElicitScreen")
        await pilot.press("escape")
        await wait_idle(pilot)
        assert '"action": "cancel"' in tool_results(h.agent)[0].content


@pytest.mark.parametrize("key", ["y", "w", "n"])
async def test_sampling_consent_allow_or_deny(
    make_agent: MakeAgent, with_mcp: list[Harness], key: str
) -> None:
    # Allowed: the sampling request takes the model's second scripted turn; denied: it never runs.
    # ``w`` also stores a workspace grant, listed with the tools' grants.
    sample = call(SAMPLE_TOOL, "c1", prompt="write a haiku", maxTokens=20)
    turns = [sample, {"text": "sampled haiku"}, {"text": "done"}]
    h = make_agent(turns if key != "n" else [sample, {"text": "done"}])
    attach_mcp(h, with_mcp)
    async with running_app(h.agent, size=(110, 40)) as (app, pilot):
        await call_server_tool(pilot, h, SAMPLE_TOOL, "sample", "SamplingConsentScreen")
        consent = app.screen
        assert isinstance(consent, SamplingConsentScreen)
        title = consent.query_one("#title", Label)
        assert str(title.content) == "Server everything wants to use the model:"
        assert "write a haiku" in str(consent.query_one("#request", Static).content)
        await pilot.press(key)
        await wait_idle(pilot)
    result = tool_results(h.agent)[0]
    assert h.agent.deps.mcp.hooks.sampling_denied == ({"everything"} if key == "n" else set())
    stored = GrantStore(h.agent.deps.config.workspace).for_tool(SAMPLING_GRANT)
    assert [(g.scope, g.pattern) for g in stored] == (
        [(Scope.WORKSPACE, "everything")] if key == "w" else []
    )
    if key != "n":
        assert "sampled haiku" in result.content and not result.is_error
        sampling = h.provider.requests[1]
        assert "write a haiku" in sampling.messages[0].text and sampling.max_tokens == 20
    else:
        assert result.is_error and "declined" in result.content
        assert len(h.provider.requests) == 2  # the tool call's turn and the final answer only


# ---- the form's parts, without a server ------------------------------------------------------


def test_parse_schema_kinds_and_bad_schemas() -> None:
    fields = parse_schema(
        {
            "type": "object",
            "properties": {
                "who": {"type": "string", "title": "Who"},
                "n": {"type": "integer", "minimum": 1},
                "ok": {"type": "boolean", "default": True},
                "pet": {"type": "string", "enum": ["a", "b"], "enumNames": ["Cat", "Dog"]},
                "hero": {"type": "string", "oneOf": [{"const": "h1", "title": "Superman"}]},
                "fish": {"type": "array", "items": {"enum": ["x", "y"]}},
            },
            "required": ["who"],
        }
    )
    assert [(f.name, f.kind, f.required) for f in fields] == [
        ("who", "string", True),
        ("n", "integer", False),
        ("ok", "boolean", False),
        ("pet", "enum", False),
        ("hero", "enum", False),
        ("fish", "multi", False),
    ]
    assert fields[3].options == (("Cat", "a"), ("Dog", "b"))
    assert fields[4].options == (("Superman", "h1"),)
    with pytest.raises(ValueError, match="nested"):
        parse_schema({"type": "object", "properties": {"nested": {"type": "object"}}})
    with pytest.raises(ValueError, match="not an object"):
        parse_schema({"type": "array"})


def test_coerce_text_checks_type_range_and_format() -> None:
    spec = {f.name: f for f in parse_schema(
        {
            "type": "object",
            "properties": {
                "n": {"type": "number", "minimum": 0, "maximum": 10},
                "i": {"type": "integer"},
                "mail": {"type": "string", "format": "email"},
                "day": {"type": "string", "format": "date"},
                "short": {"type": "string", "maxLength": 3},
            },
            "required": ["i"],
        }
    )}  # fmt: skip
    assert coerce_text(spec["n"], "2.5") == (2.5, "")
    assert coerce_text(spec["n"], "11") == (None, "must be at most 10")
    assert coerce_text(spec["n"], "") == (None, "")  # optional and empty: left out
    assert coerce_text(spec["i"], "") == (None, "required")
    assert coerce_text(spec["i"], "1.5") == (None, "not an integer")
    assert coerce_text(spec["mail"], "ada@example.org") == ("ada@example.org", "")
    assert coerce_text(spec["mail"], "ada") == (None, "not an email address")
    assert coerce_text(spec["day"], "2026-13-01")[1].startswith("not a date")
    assert coerce_text(spec["short"], "abcd") == (None, "at most 3 characters")


def test_request_preview_shows_first_lines() -> None:
    request = SamplingRequest(
        messages=({"role": "user", "content": "\n".join(f"line {n}" for n in range(10))},),
        system="be brief",
        max_tokens=50,
    )
    preview = request_preview(request, max_lines=3).splitlines()
    assert preview == ["system: be brief", "user: line 0", "user: line 1", "… (8 more lines)",
                       "(up to 50 tokens)"]  # fmt: skip


# ---- MCP prompt commands with missing required arguments -------------------------------------


async def test_prompt_command_asks_for_missing_argument_and_reruns(
    make_agent: MakeAgent, with_mcp: list[Harness]
) -> None:
    h = make_agent([{"text": "Sunny."}])
    attach_mcp(h, with_mcp)
    async with running_app(h.agent, size=(110, 40)) as (app, pilot):
        await open_prompt_form(pilot, h, "mcp.everything.args-prompt", "state=CA")
        form = app.screen
        assert isinstance(form, ElicitScreen)
        assert [f.name for f in form.fields] == ["city"]  # only the missing required one
        assert str(form.query_one("#title", Label).content) == (
            "Arguments for /mcp.everything.args-prompt"
        )
        await pilot.press(*"San Francisco")
        assert form.query_one("#field-0", Input).value == "San Francisco", app.focused
        await pilot.press("enter")
        await wait_idle(pilot)
        assert app.query(Note).last().text.startswith("Running /mcp.everything.args-prompt")
    sent = h.provider.requests[0].messages[-1].text
    assert "What's weather in San Francisco, CA?" in sent


async def test_prompt_argument_form_suggests_server_completions(
    make_agent: MakeAgent, with_mcp: list[Harness]
) -> None:
    h = make_agent([{"text": "Done."}])
    attach_mcp(h, with_mcp)
    async with running_app(h.agent, size=(110, 40)) as (app, pilot):
        await open_prompt_form(pilot, h, "mcp.everything.completable-prompt")
        form = app.screen
        assert isinstance(form, ElicitScreen)
        department = form.query_one("#field-0", Input)
        department.focus()
        await pilot.press(*"Mar")
        # The suggestion arrives from the server (completion/complete); → accepts it.
        await wait_until(pilot, lambda: department._suggestion == "Marketing", "a suggestion")
        await pilot.press("right")
        assert department.value == "Marketing"
        form.query_one("#field-1", Input).value = "Grace"
        await pilot.press("escape")  # cancelled: the command does not run
        await wait_idle(pilot)
        assert "needs: `department`" in app.query(Note).last().text
    assert h.provider.requests == []


async def test_prompt_command_declined_form_reports_what_is_missing(
    make_agent: MakeAgent, with_mcp: list[Harness]
) -> None:
    h = make_agent([])
    attach_mcp(h, with_mcp)
    async with running_app(h.agent, size=(110, 40)) as (app, pilot):
        await open_prompt_form(pilot, h, "mcp.everything.args-prompt")
        await pilot.click("#decline")
        await wait_idle(pilot)
        note = app.query(Note).last()
        assert note.level == "error" and "needs: `city`" in note.text
    assert h.provider.requests == []


async def test_ask_modal_from_a_plain_task_and_cancelled_takes_the_screen_down() -> None:
    # The MCP manager's server tasks are not Textual workers: ask_modal must work from them, and
    # a request the server abandons must not leave its question on screen.
    from textual.app import App

    request = SamplingRequest(({"role": "user", "content": "hi"},), "", 10)
    app: App[None] = App()
    async with app.run_test() as pilot:
        answered = asyncio.get_running_loop().create_task(
            ask_modal(app, SamplingConsentScreen("srv", request))
        )
        await wait_screen(pilot, "SamplingConsentScreen")
        await pilot.press("s")
        assert await answered == Decision(allow=True, scope=Scope.SESSION)

        abandoned = asyncio.get_running_loop().create_task(
            ask_modal(app, SamplingConsentScreen("srv", request))
        )
        await wait_screen(pilot, "SamplingConsentScreen")
        abandoned.cancel()
        await wait_until(pilot, lambda: screen_name(pilot) == "Screen", "the question to go")
        assert abandoned.cancelled()


# ---- ${input:ID} values a starting server needs ----------------------------------------------


async def test_input_question_starts_the_server_with_the_typed_secret(
    make_agent: MakeAgent, tmp_path: Path
) -> None:
    # The hook install_mcp_hooks sets: the server waits at start for the modal's answer.
    (tmp_path / "home" / ".agentrc").write_text(
        f'[mcp.servers.env]\ncommand = "{sys.executable}"\nargs = ["{ENV_SERVER}"]\n'
        'env = { API_KEY = "${input:api-key}" }\n'
        '[mcp.inputs.api-key]\ndescription = "Search API key"\npassword = true\n',
        encoding="utf-8",
    )
    h = make_agent([])
    deps = h.agent.deps
    deps.mcp = create_mcp(deps.config, deps.tools, deps.commands)
    assert deps.mcp is not None
    app = AgentApp(h.agent)
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_screen(pilot, "McpInputScreen")
            question = app.screen
            assert isinstance(question, McpInputScreen) and question.server == "env"
            assert str(question.query_one("#description", Static).content) == "Search API key"
            assert question.query_one("#value", Input).password
            await pilot.press(*"s3cret", "enter")
            state = deps.mcp.servers["env"]
            await wait_until(pilot, lambda: state.status != "starting", "the server to start")
            assert state.status == "running", state.error
            outcome = await deps.mcp.call_tool("env", "getenv", {"name": "API_KEY"})
            assert render_parts(outcome.parts) == "s3cret"
    finally:
        await deps.mcp.aclose()


async def test_input_question_escape_cancels_and_default_is_prefilled() -> None:
    from textual.app import App

    app: App[None] = App()
    spec = InputSpec("token", "", default="abc")
    async with app.run_test() as pilot:
        loop = asyncio.get_running_loop()
        answered = loop.create_task(ask_modal(app, McpInputScreen("srv", spec)))
        await wait_screen(pilot, "McpInputScreen")
        field = app.screen.query_one("#value", Input)
        assert field.value == "abc" and not field.password
        assert str(app.screen.query_one("#description", Static).content) == "token"
        await pilot.press("escape")
        assert await answered is None

        answered = loop.create_task(ask_modal(app, McpInputScreen("srv", spec)))
        await wait_screen(pilot, "McpInputScreen")
        await pilot.press("enter")
        assert await answered == "abc"


async def test_input_question_pick_string_offers_its_options() -> None:
    from textual.app import App

    app: App[None] = App()
    spec = InputSpec("region", "Region", options=("eu", "us", "ap"), default="us")
    async with app.run_test() as pilot:
        answered = asyncio.get_running_loop().create_task(
            ask_modal(app, McpInputScreen("srv", spec))
        )
        await wait_screen(pilot, "McpInputScreen")
        assert app.screen.query_one("#value", OptionList).highlighted == 1  # the default
        await pilot.press("down", "enter")
        assert await answered == "ap"
