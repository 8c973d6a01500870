"""Smaller things seen in use (issue 11 §10): the deny text, the tool picker's keys and count,
/clear's confirmation and undo, the command palette."""

from __future__ import annotations

from agent_tui.conversation import ToolResultBlock
from agent_tui.ui.app import AgentApp
from tests.ui.app_helpers import deny_with_reason, running_app, send_clear, send_to_approval
from tests.ui.conftest import MakeAgent
from tests.ui.helpers import send, wait_idle, wait_screen, wait_until

NOTE_CALL = {"id": "call_1", "name": "write_note", "input": {"path": "n.txt", "content": "hi"}}


def sent_tool_results(provider: object) -> list[str]:
    request = provider.requests[-1]  # type: ignore[attr-defined]
    return [
        b.content for m in request.messages for b in m.content if isinstance(b, ToolResultBlock)
    ]


async def test_deny_reason_reaches_the_model_as_a_sentence_before_do_not_retry(
    make_agent: MakeAgent,
) -> None:
    h = make_agent([{"tool_calls": [NOTE_CALL]}, {"text": "ok"}])
    async with running_app(h.agent) as (app, pilot):
        await send_to_approval(pilot, "write a note")
        await deny_with_reason(pilot, "not today")
        await wait_idle(pilot)
    (content,) = sent_tool_results(h.provider)
    assert "Their reason: not today. Do not retry" in content


async def test_tool_picker_escape_cancels_and_enter_saves(make_agent: MakeAgent) -> None:
    h = make_agent([])
    async with running_app(h.agent) as (app, pilot):
        for key in ("escape", "enter"):
            await pilot.press("ctrl+t")
            await wait_screen(pilot, "ToolPickerScreen")
            await pilot.press("tab", "down", "space")  # write_note off
            count = str(app.screen.query_one("#count").render())
            assert count.startswith("1 of 2 tools enabled")
            assert "/ 128" not in count and "at most 128" in count
            await pilot.press(key)
            await wait_screen(pilot, "Screen")
            await pilot.pause()
            if key == "escape":
                assert h.agent.deps.tools.disabled == set(), "Esc must not save"
        await wait_until(pilot, lambda: h.agent.deps.tools.disabled == {"write_note"}, "saved")


def entry_texts(app: AgentApp) -> list[str]:
    return [str(getattr(e, "text", "")) for e in app.transcript.entries]


async def test_clear_asks_first_and_n_keeps_the_conversation(make_agent: MakeAgent) -> None:
    h = make_agent([{"text": "hello"}])
    async with running_app(h.agent) as (app, pilot):
        await send(pilot, "hi")
        await wait_idle(pilot)
        await send_clear(pilot, "n")
        assert [m.role for m in h.agent.conversation.messages] == ["user", "assistant"]
        assert entry_texts(app)[:2] == ["hi", "hello"]
        assert entry_texts(app)[-1] == "Kept the conversation."


async def test_undo_clear_brings_back_messages_and_transcript_and_undoes_itself(
    make_agent: MakeAgent,
) -> None:
    h = make_agent([{"text": "hello"}, {"text": "fresh answer"}, {"text": "old context seen"}])
    async with running_app(h.agent) as (app, pilot):
        await send(pilot, "hi")
        await wait_idle(pilot)
        await send_clear(pilot, "y", "/new")
        assert h.agent.conversation.messages == []
        assert "/undo-clear" in entry_texts(app)[-1] and "2 messages" in entry_texts(app)[-1]
        await send(pilot, "new topic")
        await wait_idle(pilot)
        await send(pilot, "/undo-clear")
        await wait_idle(pilot)
        assert [m.text for m in h.agent.conversation.messages] == ["hi", "hello"]
        assert entry_texts(app)[:2] == ["hi", "hello"]
        # The conversation it replaced is kept in turn: undoing again swaps back.
        await send(pilot, "/undo-clear")
        await wait_idle(pilot)
        assert [m.text for m in h.agent.conversation.messages] == ["new topic", "fresh answer"]
        await send(pilot, "/undo-clear")
        await wait_idle(pilot)
        await send(pilot, "and now?")
        await wait_idle(pilot)
        # What reached the model: the brought-back conversation, then the new prompt.
        sent = [m.text for m in h.provider.requests[-1].messages]
        assert sent == ["hi", "hello", "and now?"]


async def test_clear_of_an_empty_conversation_does_not_ask(make_agent: MakeAgent) -> None:
    h = make_agent([])
    async with running_app(h.agent) as (app, pilot):
        await send(pilot, "/clear")
        await wait_idle(pilot)
        assert app.screen is app.screen_stack[0]
        assert app.transcript.entries == []
        await send(pilot, "/undo-clear")
        await wait_idle(pilot)
        assert entry_texts(app)[-1].startswith("Nothing to bring back")


def palette_hits(app: AgentApp) -> list[str]:
    from textual.command import CommandList

    options = app.screen.query_one(CommandList)
    hits = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
    return [hit.split("\n")[0] for hit in hits]  # the command; its help is on the next line


async def test_command_palette_lists_slash_commands_and_runs_one(make_agent: MakeAgent) -> None:
    h = make_agent([])
    async with running_app(h.agent) as (app, pilot):
        await pilot.press("ctrl+p")
        await wait_screen(pilot, "CommandPalette")
        await pilot.press(*"tools")
        await wait_until(
            pilot, lambda: any("/tools" in hit for hit in palette_hits(app)), "a /tools hit"
        )
        while not palette_hits(app)[0].startswith("/tools"):  # best match first
            await pilot.pause()
        await pilot.press("enter")
        await wait_screen(pilot, "ToolPickerScreen")


async def test_command_palette_puts_a_command_needing_arguments_in_the_prompt(
    make_agent: MakeAgent,
) -> None:
    h = make_agent([])
    async with running_app(h.agent) as (app, pilot):
        await pilot.press("ctrl+p")
        await wait_screen(pilot, "CommandPalette")
        await pilot.press(*"workspace fix")
        await wait_until(
            pilot, lambda: palette_hits(app)[:1] == ["@workspace /fix"], "the @workspace /fix hit"
        )
        await pilot.press("enter")
        await wait_screen(pilot, "Screen")
        prompt = app.prompt_input
        await wait_until(pilot, lambda: prompt.text == "@workspace /fix ", "the prompt filled")
        assert prompt.has_focus and not app.busy  # nothing sent: the problem is still to type
