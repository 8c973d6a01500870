"""Pilot tests: the whole app with a real Agent on the scripted provider."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import Static

from agent_tui.conversation import ToolResultBlock
from agent_tui.ui.app import AgentApp
from agent_tui.ui.widgets.assistant import AssistantMessage
from agent_tui.ui.widgets.notes import ErrorNote, Note, UserMessage
from agent_tui.ui.widgets.tool_card import ToolCard
from tests.ui.app_helpers import deny_with_reason, running_app, send_clear, send_to_approval
from tests.ui.conftest import MakeAgent
from tests.ui.helpers import send, terminal_sends, wait_idle, wait_screen, wait_until

NOTE_CALL = {"id": "call_1", "name": "write_note", "input": {"path": "n.txt", "content": "hi"}}


def tool_results(agent: object) -> list[ToolResultBlock]:
    return [
        b
        for m in agent.conversation.messages  # type: ignore[attr-defined]
        for b in m.content
        if isinstance(b, ToolResultBlock)
    ]


async def test_prompt_shows_user_message_and_streamed_markdown(make_agent: MakeAgent) -> None:
    h = make_agent([{"text": "Hello **world**, this is a longer streamed answer."}])
    async with running_app(h.agent, workspace_label="~/ws") as (app, pilot):
        await send(pilot, "say hello")
        await wait_idle(pilot)
        users = app.query(UserMessage)
        assert [u.text for u in users] == ["say hello"]
        answers = list(app.query(AssistantMessage))
        assert len(answers) == 1
        assert answers[0].text == "Hello **world**, this is a longer streamed answer."
        # Streamed through a Markdown widget, then frozen into one Rich Markdown renderable.
        assert not answers[0].query("Markdown")
        frozen = answers[0].query_one(".answer", Static).content
        assert frozen.markup == "Hello **world**, this is a longer streamed answer."  # type: ignore[union-attr]
        assert h.agent.conversation.messages[-1].text.startswith("Hello")
        assert app.query_one("PromptInput").text == ""  # type: ignore[attr-defined]


async def test_approve_once_runs_the_tool_and_card_says_who(make_agent: MakeAgent) -> None:
    h = make_agent([{"text": "Writing.", "tool_calls": [NOTE_CALL]}, {"text": "Done."}])
    async with running_app(h.agent) as (app, pilot):
        await send_to_approval(pilot, "write a note")
        card = app.query_one(ToolCard)
        assert card.state.status == "waiting"
        assert "approval needed" in app.title  # the signal besides the bell
        await pilot.press("y")
        await wait_idle(pilot)
        assert (h.workspace / "n.txt").read_text() == "hi"
        assert card.state.status == "done"
        assert card.state.message == "Wrote n.txt"
        assert card.state.decided == "allowed by you, once"
        assert "+hi" in card.state.diff
        assert app.query(AssistantMessage).last().text == "Done."
        assert app.title == "agent-tui"


async def test_allow_for_session_is_not_asked_again(make_agent: MakeAgent) -> None:
    second = {**NOTE_CALL, "id": "call_2"}
    h = make_agent(
        [
            {"tool_calls": [NOTE_CALL]},
            {"text": "one"},
            {"tool_calls": [second]},
            {"text": "two"},
        ]
    )
    async with running_app(h.agent) as (app, pilot):
        await send_to_approval(pilot, "first", "s")
        await wait_idle(pilot)
        (h.workspace / "n.txt").unlink()
        await send(pilot, "second")
        await wait_idle(pilot)
        # No modal the second time, and the file was written again.
        assert app.screen is app.screen_stack[0]
        assert (h.workspace / "n.txt").read_text() == "hi"
        cards = list(app.query(ToolCard))
        assert cards[0].state.decided == "allowed by you, session"
        assert cards[1].state.status == "done"
        assert not cards[1].state.decided.startswith("allowed by you")


async def test_deny_with_reason_reaches_the_model_and_turn_finishes(make_agent: MakeAgent) -> None:
    h = make_agent([{"tool_calls": [NOTE_CALL]}, {"text": "OK, I will not write it."}])
    async with running_app(h.agent) as (app, pilot):
        await send_to_approval(pilot, "write a note")
        await deny_with_reason(pilot, "not today")
        await wait_idle(pilot)
        assert not (h.workspace / "n.txt").exists()
        results = tool_results(h.agent)
        assert len(results) == 1 and "not today" in results[0].content
        card = app.query_one(ToolCard)
        assert card.state.status == "denied"
        assert "not today" in card.state.decided
        assert app.query(AssistantMessage).last().text == "OK, I will not write it."


async def test_escape_twice_denies_without_a_reason(make_agent: MakeAgent) -> None:
    h = make_agent([{"tool_calls": [NOTE_CALL]}, {"text": "fine"}])
    async with running_app(h.agent) as (app, pilot):
        await send_to_approval(pilot, "write a note", "escape", "escape")
        await wait_idle(pilot)
        assert not (h.workspace / "n.txt").exists()
        assert tool_results(h.agent)[0].is_error or "declin" in tool_results(h.agent)[0].content


async def test_edit_input_is_validated_then_allowed(make_agent: MakeAgent) -> None:
    h = make_agent([{"tool_calls": [NOTE_CALL]}, {"text": "edited"}])
    async with running_app(h.agent) as (app, pilot):
        await send_to_approval(pilot, "write a note", "e")
        editor = app.screen.query_one("#editor")
        error = app.screen.query_one("#edit-error")
        editor.load_text('{"path": "n.txt", "content": ')  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        assert "Not accepted: not valid JSON" in str(error.render())
        editor.load_text('{"path": "n.txt"}')  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        assert "content" in str(error.render())  # the schema's required key is named
        assert type(app.screen).__name__ == "ApprovalScreen"
        editor.load_text('{"path": "edited.txt", "content": "changed"}')  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        await wait_idle(pilot)
        assert (h.workspace / "edited.txt").read_text() == "changed"
        assert not (h.workspace / "n.txt").exists()
        # The model is told what actually ran.
        assert tool_results(h.agent)[0].content == "wrote edited.txt"


async def test_reset_confirmations_asks_again(make_agent: MakeAgent) -> None:

    second = {**NOTE_CALL, "id": "call_2"}
    h = make_agent(
        [{"tool_calls": [NOTE_CALL]}, {"text": "one"}, {"tool_calls": [second]}, {"text": "ok"}]
    )
    assert h.agent.deps.commands.get("reset-confirmations") is not None
    async with running_app(h.agent) as (app, pilot):
        await send_to_approval(pilot, "first", "s")
        await wait_idle(pilot)
        await send(pilot, "/reset-confirmations session")
        await wait_idle(pilot)
        assert "session" in app.query("MarkdownNote, Note").last().text  # type: ignore[attr-defined]
        await send_to_approval(pilot, "second", "n", "enter")
        await wait_idle(pilot)
        assert app.query(ToolCard).last().state.decided == "denied by you"


async def test_escape_cancels_a_turn_mid_stream(make_agent: MakeAgent) -> None:
    h = make_agent([{"text": "word " * 4000}, {"text": "after"}], chunk_delay=0.001)
    async with running_app(h.agent) as (app, pilot):
        await send(pilot, "talk a lot")
        await wait_until(
            pilot, lambda: len(app.query(AssistantMessage)) and app.busy, "streaming to start"
        )
        await pilot.press("escape")
        await wait_idle(pilot)
        answer = app.query(AssistantMessage).last()
        assert 0 < len(answer.text) < len("word " * 4000)
        notes = [n.text for n in app.query(Note)]
        assert "Turn cancelled." in notes
        # The conversation stays usable: the next turn runs.
        await send(pilot, "again")
        await wait_idle(pilot)
        assert app.query(AssistantMessage).last().text == "after"


async def test_provider_error_shows_a_note_with_retry(make_agent: MakeAgent) -> None:
    h = make_agent([{"text": "partial answer", "fault": "cut"}, {"text": "second try"}])
    async with running_app(h.agent) as (app, pilot):
        await send(pilot, "hello")
        await wait_idle(pilot)
        note = app.query_one(ErrorNote)
        assert note.prompt == "hello"
        await pilot.click("#retry")
        await wait_idle(pilot)
        assert app.query(AssistantMessage).last().text == "second try"
        assert [u.text for u in app.query(UserMessage)] == ["hello", "hello"]


async def test_round_limit_modal_stop_ends_the_turn(make_agent: MakeAgent) -> None:
    look = {"id": "call_1", "name": "look_around", "input": {}}
    look2 = {**look, "id": "call_2"}
    h = make_agent([{"tool_calls": [look]}, {"tool_calls": [look2]}, {"text": "never"}])
    h.agent.max_rounds = 1
    async with running_app(h.agent) as (app, pilot):
        await send(pilot, "look")
        await wait_screen(pilot, "RoundLimitScreen")
        await pilot.press("s")
        await wait_idle(pilot)
        errors = [n.text for n in app.query(Note) if n.level == "error"]
        assert len(errors) == 1 and "round limit" in errors[0]
        assert not app.query(ErrorNote)  # stopping on purpose is not retryable
        assert all(a.text != "never" for a in app.query(AssistantMessage))


async def test_prompt_history_up_and_down(make_agent: MakeAgent) -> None:
    h = make_agent([{"text": "a"}, {"text": "b"}])
    async with running_app(h.agent) as (app, pilot):
        prompt = app.query_one("PromptInput")
        await send(pilot, "first prompt")
        await wait_idle(pilot)
        await send(pilot, "second prompt")
        await wait_idle(pilot)
        prompt.load_text("draft")  # type: ignore[attr-defined]
        prompt.move_cursor((0, 0))  # type: ignore[attr-defined]
        await pilot.press("up")
        assert prompt.text == "second prompt"  # type: ignore[attr-defined]
        await pilot.press("up")
        assert prompt.text == "first prompt"  # type: ignore[attr-defined]
        await pilot.press("down", "down")
        assert prompt.text == "draft"  # type: ignore[attr-defined]


async def test_prompt_history_survives_a_restart_in_the_same_workspace(
    make_agent: MakeAgent,
) -> None:
    first = AgentApp(make_agent([{"text": "a"}]).agent)
    async with first.run_test(size=(100, 32)) as pilot:
        await send(pilot, "remember me")
        await wait_idle(pilot)
    second = AgentApp(make_agent([]).agent)
    async with second.run_test(size=(100, 32)) as pilot:
        prompt = second.query_one("PromptInput")
        await pilot.press("up")
        assert prompt.text == "remember me"  # type: ignore[attr-defined]


async def test_ctrl_j_inserts_a_newline_and_enter_sends_both_lines(make_agent: MakeAgent) -> None:
    h = make_agent([{"text": "ok"}])
    async with running_app(h.agent) as (app, pilot):
        await pilot.press("a", "ctrl+j", "b", "enter")
        await wait_idle(pilot)
        assert [u.text for u in app.query(UserMessage)] == ["a\nb"]


async def test_slash_completion_and_help_command(make_agent: MakeAgent) -> None:
    h = make_agent([])
    async with running_app(h.agent) as (app, pilot):
        await pilot.press("/", "h", "e")
        completions = app.query_one("CompletionList")
        assert completions.has_class("-shown")
        await pilot.press("tab")
        prompt = app.query_one("PromptInput")
        assert prompt.text == "/help "  # type: ignore[attr-defined]
        assert not completions.has_class("-shown")
        await pilot.press("enter")
        await wait_idle(pilot)
        # /help is answered locally: no request reached the model.
        assert h.provider.requests == []
        assert "/clear" in app.query("MarkdownNote").last().text  # type: ignore[attr-defined]


async def test_clear_command_empties_transcript_and_conversation(make_agent: MakeAgent) -> None:
    h = make_agent([{"text": "hello"}])
    async with running_app(h.agent) as (app, pilot):
        await send(pilot, "hi")
        await wait_idle(pilot)
        await send_clear(pilot, "y")  # issue 11 §10: it asks first
        assert h.agent.conversation.messages == []
        assert [type(e).__name__ for e in app.transcript.entries] == ["Note"]  # how to undo


async def test_tool_picker_disables_a_tool_for_the_next_request(
    make_agent: MakeAgent, tmp_path: Path
) -> None:
    h = make_agent([{"text": "first"}, {"text": "second"}])
    async with running_app(h.agent) as (app, pilot):
        await send(pilot, "one")
        await wait_idle(pilot)
        assert "write_note" in [t.name for t in h.provider.requests[-1].tools]
        await pilot.press("ctrl+t")
        await wait_screen(pilot, "ToolPickerScreen")
        await pilot.press("tab")  # from the filter box to the first group's list
        selections = app.screen.query_one("#group-0")
        assert app.focused is selections
        # write_note is second alphabetically (look_around, write_note)
        await pilot.press("down", "space")
        assert "write_note" not in selections.selected  # type: ignore[attr-defined]
        assert "1 of 2 tools enabled" in str(app.screen.query_one("#count").render())
        await pilot.press("enter")
        await wait_until(pilot, lambda: h.agent.deps.tools.disabled == {"write_note"}, "applied")
        await send(pilot, "two")
        await wait_idle(pilot)
        assert [t.name for t in h.provider.requests[-1].tools] == ["look_around"]
    # Persisted per workspace: a new app on the same workspace starts with it disabled.
    h2 = make_agent([])
    app2 = AgentApp(h2.agent)
    async with app2.run_test(size=(100, 32)):
        assert h2.agent.deps.tools.disabled == {"write_note"}


async def test_tool_picker_filter_hides_non_matching(make_agent: MakeAgent) -> None:
    h = make_agent([])
    async with running_app(h.agent) as (app, pilot):
        await pilot.press("ctrl+t")
        await wait_screen(pilot, "ToolPickerScreen")
        await pilot.press(*"note")
        selections = app.screen.query_one("#group-0")
        values = [o.value for o in selections.options]  # type: ignore[attr-defined]
        assert values == ["write_note"]
        await pilot.press("escape")
        await pilot.pause()
        assert h.agent.deps.tools.disabled == set()  # filtering is not disabling


async def test_transcript_prunes_old_entries_and_shows_them_again(make_agent: MakeAgent) -> None:
    h = make_agent([])
    async with running_app(h.agent, max_mounted=10) as (app, pilot):
        for i in range(25):
            await app.transcript.add(UserMessage(f"message {i}"))
        assert len(app.transcript.entries) == 10
        assert len(app.transcript.hidden) == 15
        bar = app.query_one("EarlierBar")
        assert bar.display
        bar.action_show_earlier()  # type: ignore[attr-defined]
        await pilot.pause()
        texts = [w.text for w in app.transcript.entries]  # type: ignore[attr-defined]
        assert texts == [f"message {i}" for i in range(25)]
        assert not bar.display


async def test_terminal_output_tail_and_background_terminals_killed_on_exit(
    make_agent: MakeAgent,
) -> None:
    run = {
        "id": "t1",
        "name": "run_in_terminal",
        "input": {"command": "echo first-line; echo second-line", "explanation": "print"},
    }
    background = {
        "id": "t2",
        "name": "run_in_terminal",
        "input": {"command": "sleep 60", "explanation": "wait", "is_background": True},
    }
    h = make_agent(
        [{"tool_calls": [run]}, {"tool_calls": [background]}, {"text": "ran"}], builtin=True
    )
    async with running_app(h.agent) as (app, pilot):
        await send_to_approval(pilot, "run it", "y")
        await wait_screen(pilot, "ApprovalScreen")
        await pilot.press("y")
        await wait_idle(pilot)
        card = app.query(ToolCard).first()
        assert card.state.status == "done"
        assert "second-line" in card.state.output
        assert card.state.kind == "execute"
        terminals = h.agent.deps.session.extras["terminals"].terminals()
        assert len(terminals) == 1 and terminals[0].running
        await pilot.press("ctrl+c")
        assert app.is_running  # one Ctrl+C only warns
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: not terminals[0].running, "the background terminal to die")


async def test_small_terminal_no_color_shows_every_approval_button(
    make_agent: MakeAgent, monkeypatch: object
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")  # type: ignore[attr-defined]
    h = make_agent([{"tool_calls": [NOTE_CALL]}, {"text": "ok"}])
    app = AgentApp(h.agent)
    assert app.no_color
    async with app.run_test(size=(80, 24)) as pilot:
        await send_to_approval(pilot, "write")
        dialog = app.screen.query_one("#dialog").content_region
        buttons = list(app.screen.query("#buttons > Button"))
        assert len(buttons) == 6
        for button in buttons:
            region = button.region
            # Fully inside the dialog: not clipped at 80 columns.
            assert region.width > 0 and region.right <= dialog.right, button.id
            assert dialog.y <= region.y < dialog.bottom, button.id
        await pilot.press("y")
        await wait_idle(pilot)
        assert (h.workspace / "n.txt").exists()


async def test_light_theme_from_config(make_agent: MakeAgent) -> None:
    h = make_agent([])
    (h.workspace.parent / "home" / ".agentrc").write_text('[ui]\ntheme = "light"\n')
    h = make_agent([])  # reload the config with the user file in place
    app = AgentApp(h.agent)
    async with app.run_test(size=(100, 32)):
        assert app.theme == "textual-light"
        assert not app.current_theme.dark


async def test_running_command_shows_a_live_tail(make_agent: MakeAgent, tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    command = f"echo tail-line; while [ ! -e {gate} ]; do sleep 0.05; done; echo end"
    call = {
        "id": "t1",
        "name": "run_in_terminal",
        "input": {"command": command, "explanation": "x"},
    }
    h = make_agent([{"tool_calls": [call]}, {"text": "ran"}], builtin=True)
    async with running_app(h.agent) as (app, pilot):
        await send_to_approval(pilot, "run it", "y")
        card = app.query_one(ToolCard)
        await wait_until(pilot, lambda: "tail-line" in card.state.tail, "the live tail")
        assert card.state.status == "running"
        assert card.query_one(".tail").display
        gate.touch()  # let the command finish
        await wait_idle(pilot)
        assert card.state.status == "done"
        assert not card.query_one(".tail").display  # the tail gives way to the output
        assert "end" in card.state.output


async def test_round_limit_modal_continue_runs_more_rounds(make_agent: MakeAgent) -> None:
    look = {"id": "call_1", "name": "look_around", "input": {}}
    h = make_agent([{"tool_calls": [look]}, {"text": "finished after continuing"}])
    h.agent.max_rounds = 1
    async with running_app(h.agent) as (app, pilot):
        await send(pilot, "look")
        await wait_screen(pilot, "RoundLimitScreen")
        await pilot.press("c")
        await wait_idle(pilot)
        assert app.query(AssistantMessage).last().text == "finished after continuing"
        assert not app.query(ErrorNote)


async def test_exit_command_quits_the_app(make_agent: MakeAgent) -> None:
    h = make_agent([])
    async with running_app(h.agent) as (app, pilot):
        await send(pilot, "/exit")
        await wait_until(pilot, lambda: not app.is_running, "the app to exit")
    assert app.return_code == 0


async def test_tool_card_details_open_on_click_and_errors_open_by_default(
    make_agent: MakeAgent,
) -> None:
    bad = {
        "id": "call_9",
        "name": "write_note",
        "input": {"path": "../outside.txt", "content": "x"},
    }
    h = make_agent([{"tool_calls": [NOTE_CALL]}, {"tool_calls": [bad]}, {"text": "done"}])
    async with running_app(h.agent) as (app, pilot):
        await send_to_approval(pilot, "write", "y")
        await wait_idle(pilot)
        ok_card, bad_card = list(app.query(ToolCard))
        assert not ok_card.query(".details")  # closed cards mount no details widget
        ok_card.query_one(".toggle").action_press()  # type: ignore[attr-defined]
        await pilot.pause()
        details = str(ok_card.query_one(".details", Static).content)
        assert '"path": "n.txt"' in details and "wrote n.txt" in details
        # The invalid path failed in prepare(): an error card, open, in red.
        assert bad_card.state.status == "error"
        assert bad_card.query_one(".details").has_class("-error-output")
        assert "outside the workspace" in str(bad_card.query_one(".details", Static).content)


async def test_file_reference_completion_from_the_workspace(make_agent: MakeAgent) -> None:
    h = make_agent([{"text": "ok"}])
    (h.workspace / "src").mkdir()
    (h.workspace / "src" / "loader.py").write_text("x = 1\n")
    (h.workspace / "issue12.txt").write_text("x\n")
    async with running_app(h.agent) as (app, pilot):
        await wait_until(pilot, lambda: "src/loader.py" in app.completer.files, "the file list")
        prompt = app.query_one("PromptInput")
        await pilot.press(*"explain #file:ldr")
        assert app.query_one("CompletionList").has_class("-shown")
        await pilot.press("tab")
        assert prompt.text == "explain #file:src/loader.py "  # type: ignore[attr-defined]
        prompt.load_text("")  # type: ignore[attr-defined]
        # A casual `#12` sends on Enter even though a file matches it.
        await pilot.press(*"fix #12", "enter")
        await wait_idle(pilot)
        assert [u.text for u in app.query(UserMessage)] == ["fix #12"]


async def test_enter_on_a_fully_typed_command_sends_it(make_agent: MakeAgent) -> None:
    h = make_agent([])
    async with running_app(h.agent) as (app, pilot):
        await pilot.press(*"/help")
        assert app.query_one("CompletionList").has_class("-shown")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.query("MarkdownNote"), "the /help output")
        assert [u.text for u in app.query(UserMessage)] == ["/help"]


async def test_builtin_demo_script_creates_the_scratch_file(make_agent: MakeAgent) -> None:
    import json

    from agent_tui.resources import data_dir

    demo = json.loads((data_dir("prompts") / "demo.json").read_text())
    h = make_agent(demo, builtin=True)
    async with running_app(h.agent, banner="demo model: set ANTHROPIC_API_KEY ...") as (app, pilot):
        await send_to_approval(pilot, "hello", "y")
        await wait_idle(pilot)
        assert (h.workspace / "demo_scratch.txt").read_text().startswith("Hello from agent-tui")
        assert app.query_one(ToolCard).state.status == "done"
        assert "ANTHROPIC_API_KEY" in app.query(AssistantMessage).last().text
        # Later prompts still get a scripted answer instead of an error.
        await send(pilot, "what now?")
        await wait_idle(pilot)
        assert not app.query(ErrorNote)


async def test_unknown_command_is_an_error_note_without_retry(make_agent: MakeAgent) -> None:
    h = make_agent([])
    async with running_app(h.agent) as (app, pilot):
        await send(pilot, "/nosuchcommand now")
        await wait_idle(pilot)
        errors = [n for n in app.query(Note) if n.level == "error"]
        assert len(errors) == 1 and "nosuchcommand" in errors[0].text
        assert not app.query(ErrorNote)
        assert h.provider.requests == []


async def test_escape_during_a_running_tool_keeps_the_conversation_valid(
    make_agent: MakeAgent,
) -> None:
    call = {
        "id": "t1",
        "name": "run_in_terminal",
        "input": {"command": "sleep 30", "explanation": "x"},
    }
    h = make_agent([{"tool_calls": [call]}, {"text": "next turn works"}], builtin=True)
    async with running_app(h.agent) as (app, pilot):
        await send_to_approval(pilot, "wait", "y")
        card = app.query_one(ToolCard)
        await wait_until(pilot, lambda: card.state.decided.startswith("allowed"), "the call to run")
        await pilot.press("escape")
        await wait_idle(pilot)
        assert card.state.status == "error"
        results = tool_results(h.agent)
        assert [r.tool_use_id for r in results] == ["t1"]  # every call has a result
        await send(pilot, "again")
        await wait_idle(pilot)
        assert app.query(AssistantMessage).last().text == "next turn works"


async def test_model_command_switches_by_alias_and_from_the_picker(
    make_agent: MakeAgent, tmp_path: Path
) -> None:
    script = tmp_path / "fast.json"
    script.write_text('[{"text": "from the fast model"}]')
    rc = tmp_path / "home" / ".agentrc"
    rc.write_text(
        f'[models.fast]\nprovider = "scripted"\nname = "fast-1"\nscript = "{script}"\n'
        '[models.broken]\nprovider = "scripted"\nname = "broken-1"\n'
    )
    h = make_agent([])
    async with running_app(h.agent) as (app, pilot):
        await send(pilot, "/model two words")
        await wait_idle(pilot)
        assert "/model takes one model name or alias" in app.query(Note).last().text
        await send(pilot, "/model broken")  # no script: the provider cannot be built
        await wait_idle(pilot)
        assert "Cannot use broken" in app.query(Note).last().text
        await send(pilot, "/model")
        await wait_screen(pilot, "ModelPickerScreen")
        options = app.screen.query_one("OptionList")
        options.highlighted = options.get_option_index("fast")  # type: ignore[attr-defined]
        await pilot.press("enter")
        await wait_idle(pilot)
        assert h.agent.model.name == "fast-1"
        assert app.status.model_name == "fast-1"
        await send(pilot, "hi")
        await wait_idle(pilot)
        assert app.query(AssistantMessage).last().text == "from the fast model"


async def test_at_completion_offers_participants_and_files_and_attaches_the_file(
    make_agent: MakeAgent,
) -> None:
    h = make_agent([{"text": "ok"}])
    (h.workspace / "src").mkdir()
    (h.workspace / "src" / "loader.py").write_text("LOADER_MARKER = 1\n")
    async with running_app(h.agent) as (app, pilot):
        await wait_until(pilot, lambda: "src/loader.py" in app.completer.files, "the file list")
        prompt = app.query_one("PromptInput")
        _, offers = app.completer.complete("@w")
        assert "@workspace" in [o.label for o in offers]  # participants and files together
        await pilot.press(*"explain @ldr")
        assert app.query_one("CompletionList").has_class("-shown")
        await pilot.press("tab")
        assert prompt.text == "explain @src/loader.py "  # type: ignore[attr-defined]
        await pilot.press("enter")
        await wait_idle(pilot)
        notes = [n.text for n in app.query(Note)]
        assert "attached #file:src/loader.py" in notes
        sent = json.dumps(h.agent.conversation.to_json())
        assert "LOADER_MARKER" in sent


async def test_enter_right_after_tab_sends_the_completed_prompt(make_agent: MakeAgent) -> None:
    """Tab and Enter in one read (typed fast, or sent by tmux back to back): the Enter reaches
    the prompt after the completion is taken, and sends it — it was lost, as the completion list
    it was queued for had closed by the time it was handled."""
    h = make_agent([{"text": "ok"}])
    (h.workspace / "src").mkdir()
    (h.workspace / "src" / "loader.py").write_text("LOADER_MARKER = 1\n")
    async with running_app(h.agent) as (app, pilot):
        await wait_until(pilot, lambda: "src/loader.py" in app.completer.files, "the file list")
        await pilot.press(*"explain @ldr")
        assert app.query_one("CompletionList").has_class("-shown")
        await terminal_sends(pilot, "\t\r")
        await wait_idle(pilot)
        assert "LOADER_MARKER" in json.dumps(h.agent.conversation.to_json())
        assert app.query_one("PromptInput").text == ""  # type: ignore[attr-defined]
