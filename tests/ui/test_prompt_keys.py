"""Prompt editing (issue 27 item 5): Ctrl+R searches earlier prompts, ``\\`` + Enter adds a line,
``[ui] keys`` rebinds the app's keys, ``[ui] vim`` gives normal and insert modes."""

from __future__ import annotations

from agent_tui.config_gate import workspace_layer
from agent_tui.ui.prompt_history import append_history
from agent_tui.ui.screens.help import help_markdown
from agent_tui.ui.widgets.composer import Composer, SearchLine
from agent_tui.ui.widgets.notes import Note, UserMessage
from agent_tui.ui.widgets.todo_panel import TodoPanel
from tests.ui.app_helpers import running_app
from tests.ui.conftest import Harness, MakeAgent
from tests.ui.helpers import terminal_sends, wait_idle, wait_screen, wait_until

EARLIER = ["git status", "fix the parser", "git log --oneline", "run the tests"]


def _with_history(make_agent: MakeAgent, rc: str = "") -> Harness:
    h = make_agent([])
    for prompt in EARLIER:
        append_history(h.workspace, prompt)
    if rc:
        (h.workspace.parent / "home" / ".agentrc").write_text(rc)
        h = make_agent([{"text": "ok"}])  # the config is read again with the user file in place
    return h


def _search_line(app: object) -> str:
    line = app.query_one(SearchLine)  # type: ignore[attr-defined]
    return str(line.render()) if line.has_class("-shown") else ""


def _notes(app: object) -> str:
    return "\n".join(str(n.text) for n in app.query(Note))  # type: ignore[attr-defined]


async def test_ctrl_r_finds_older_matches_and_enter_takes_one_without_sending(
    make_agent: MakeAgent,
) -> None:
    h = _with_history(make_agent)
    async with running_app(h.agent, size=(80, 24)) as (app, pilot):
        await pilot.press(*"draft")
        await terminal_sends(pilot, "\x12")  # Ctrl+R as the terminal sends it
        assert _search_line(app) == "(reverse-i-search)`': "
        await pilot.press(*"GIT")  # case does not matter
        assert _search_line(app) == "(reverse-i-search)`GIT': git log --oneline"
        assert app.prompt_input.text == "draft"  # untouched while searching
        await terminal_sends(pilot, "\x12")
        assert _search_line(app) == "(reverse-i-search)`GIT': git status"
        await terminal_sends(pilot, "\x12")  # nothing older: the match stays, the line says so
        assert _search_line(app) == "(failed reverse-i-search)`GIT': git status"
        await pilot.press("enter")
        assert app.prompt_input.text == "git status"
        assert _search_line(app) == ""
        assert not app.query(UserMessage)  # taken into the prompt, not sent
        assert app.prompt_input.cursor_location == (0, len("git status"))


async def test_escape_or_ctrl_g_cancels_the_search_and_keeps_what_was_typed(
    make_agent: MakeAgent,
) -> None:
    h = _with_history(make_agent)
    async with running_app(h.agent, size=(80, 24)) as (app, pilot):
        await pilot.press(*"half typed")
        for cancel in ("escape", "ctrl+g"):
            await pilot.press("ctrl+r", *"pars")
            assert _search_line(app) == "(reverse-i-search)`pars': fix the parser"
            await pilot.press("backspace", "backspace", "backspace", "backspace", "q")
            assert _search_line(app) == "(failed reverse-i-search)`q': "
            await pilot.press(cancel)
            assert _search_line(app) == ""
            assert app.prompt_input.text == "half typed"
        assert len(app.screen_stack) == 1  # Ctrl+G ended the search, it did not open an editor
        await pilot.press("ctrl+r", *"git", "ctrl+c")  # the app's Ctrl+C: the search first
        assert _search_line(app) == ""
        assert app.prompt_input.text == "half typed"
        await pilot.press("ctrl+c")  # then, as always, the prompt
        assert app.prompt_input.text == ""
        await pilot.press("ctrl+r")
        await terminal_sends(pilot, "\x1b[200~the p\nrest\x1b[201~")  # a bracketed paste
        assert _search_line(app) == "(reverse-i-search)`the p': fix the parser"
        assert app.prompt_input.text == ""


async def test_a_backslash_before_enter_becomes_a_newline(make_agent: MakeAgent) -> None:
    h = make_agent([{"text": "ok"}])
    async with running_app(h.agent, size=(80, 24)) as (app, pilot):
        # Typed as a terminal sends it: the backslash, then CR.
        await terminal_sends(pilot, "first line\\\rsecond \\ line")
        assert app.prompt_input.text == "first line\nsecond \\ line"
        assert not app.query(UserMessage)
        await terminal_sends(pilot, "\r")  # no backslash before the cursor: sent
        await wait_idle(pilot)
        assert app.query_one(UserMessage).text == "first line\nsecond \\ line"


async def test_ui_keys_rebinds_prompt_and_app_actions(make_agent: MakeAgent) -> None:
    rc = '[ui.keys]\nhistory_search = "ctrl+f"\ntoggle_todo = ["f5"]\nsubmit = "ctrl+x"\n'
    h = _with_history(make_agent, rc)
    async with running_app(h.agent, size=(80, 24)) as (app, pilot):
        assert _notes(app) == ""  # all valid, no conflict
        await pilot.press("ctrl+r")
        assert _search_line(app) == ""  # Ctrl+R is free now
        await pilot.press("ctrl+f", *"parser", "enter")
        assert app.prompt_input.text == "fix the parser"
        panel = app.query_one(TodoPanel)
        collapsed = panel.collapsed
        await pilot.press("f5")
        assert panel.collapsed != collapsed
        await pilot.press("f2")
        assert panel.collapsed != collapsed  # F2 no longer toggles it
        await pilot.press("enter")  # Enter is no longer submit: the prompt's own newline
        assert app.prompt_input.text == "fix the parser\n"
        await pilot.press("ctrl+x")
        await wait_idle(pilot)
        assert app.query_one(UserMessage).text == "fix the parser"


async def test_bad_ui_keys_give_one_notice_each_and_keep_the_defaults(
    make_agent: MakeAgent,
) -> None:
    rc = (
        "[ui.keys]\n"
        'launch = "ctrl+l"\n'  # no such action
        'tools = "q"\n'  # a bare letter
        'help = "ctrl+banana"\n'  # not a key
        'toggle_todo = "ctrl+k"\n'  # the prompt's own editing key
        'history_search = "ctrl+t"\n'  # the tool picker's default: it moves here
    )
    h = _with_history(make_agent, rc)
    async with running_app(h.agent, size=(100, 40)) as (app, pilot):
        notes = _notes(app)
        assert "no action 'launch'" in notes
        assert "keys.tools: 'q' would stop you typing 'q'" in notes
        assert "keys.help: 'ctrl+banana' is not a key" in notes
        assert "keys.toggle_todo: ctrl+k edits the prompt" in notes
        assert "ctrl+t is both history_search and tools; it does history_search" in notes
        await pilot.press("f1")  # help kept its default
        await wait_screen(pilot, "HelpScreen")
        await pilot.press("escape")
        await wait_screen(pilot, "Screen")
        await pilot.press("ctrl+t")
        assert _search_line(app) == "(reverse-i-search)`': "
        assert len(app.screen_stack) == 1  # not the tool picker


def _vim_rc() -> str:
    return "[ui]\nvim = true\n"


async def test_vim_modes_move_and_edit_the_prompt(make_agent: MakeAgent) -> None:
    h = _with_history(make_agent, _vim_rc())
    async with running_app(h.agent, size=(80, 24)) as (app, pilot):
        prompt, composer = app.prompt_input, app.query_one(Composer)
        await wait_until(pilot, lambda: composer.border_title == "-- INSERT --", "insert mode")
        await pilot.press(*"hello big world")
        await pilot.press("escape")
        assert composer.border_title == "-- NORMAL --"
        assert prompt.cursor_location == (0, 14)  # onto the last character typed
        await pilot.press("b", "b")
        assert prompt.cursor_location == (0, 6)
        await pilot.press("x", "w")
        assert prompt.text == "hello ig world"
        assert prompt.cursor_location == (0, 9)
        await pilot.press("0", "i", "X", "escape", "$", "a", "!", "escape")
        assert prompt.text == "Xhello ig world!"
        await pilot.press("o", *"two", "escape", "k", "I", ">", "escape")
        assert prompt.text == ">Xhello ig world!\ntwo"
        await pilot.press("j", "d", "d")
        assert prompt.text == ">Xhello ig world!"
        await pilot.press("u")
        assert prompt.text == ">Xhello ig world!\ntwo"
        await pilot.press("q", "z")  # other letters do nothing in normal mode
        assert prompt.text == ">Xhello ig world!\ntwo"
        app.transcript.focus()  # typing goes back to the prompt: as a command in normal mode
        await pilot.press("x")
        assert prompt.has_focus
        assert prompt.text == ">Xhello ig world!\nwo"
        await pilot.press("u")
        await pilot.press("k", "k")  # k on the first line: the newest earlier prompt
        assert prompt.text == "run the tests"
        await pilot.press("k", "j")
        assert prompt.text == "run the tests"
        await pilot.press("A", *" now", "enter")
        await wait_idle(pilot)
        assert app.query_one(UserMessage).text == "run the tests now"
        assert composer.border_title == "-- INSERT --"  # a new prompt starts in insert mode


async def test_vim_escape_with_text_stays_in_the_prompt_and_in_normal_mode_cancels(
    make_agent: MakeAgent,
) -> None:
    h = make_agent([])
    (h.workspace.parent / "home" / ".agentrc").write_text(_vim_rc())
    h = make_agent([{"text": "slow " * 200}], chunk_delay=0.05)
    async with running_app(h.agent, size=(80, 24)) as (app, pilot):
        await pilot.press(*"go", "enter")
        await wait_until(pilot, lambda: app.status.busy, "the turn to start")
        await pilot.press(*"next")
        await pilot.press("escape")  # insert mode with text: only to normal mode
        assert app.busy
        assert app.query_one(Composer).border_title == "-- NORMAL --"
        await pilot.press("escape")  # normal mode: Esc cancels the turn as without vim
        await wait_idle(pilot)
        assert app.prompt_input.text == "next"
        assert "Turn cancelled." in _notes(app)


async def test_help_lists_the_keys_the_user_changed(make_agent: MakeAgent) -> None:
    h = _with_history(make_agent, '[ui.keys]\nhistory_search = ["ctrl+f", "f9"]\n')
    async with running_app(h.agent, size=(100, 40)) as (app, pilot):
        await pilot.press("f1")
        await wait_screen(pilot, "HelpScreen")
        text = help_markdown([], app.screen.rebound)  # type: ignore[attr-defined]
        assert "- **Ctrl+F / F9**: search earlier prompts (`history_search`)" in text
        assert "Ctrl+R" in text  # the defaults are still listed below


def test_a_workspace_rc_cannot_set_keys_or_vim() -> None:
    tree = {"ui": {"theme": "light", "vim": True, "keys": {"submit": "ctrl+x"}}}
    kept, gated, never = workspace_layer(tree, trusted=True)
    assert kept == {"ui": {"theme": "light"}}
    assert set(never) == {"ui.vim", "ui.keys"} and gated == ()


async def test_vim_escape_typed_fast_before_a_command_is_escape_then_the_command(
    make_agent: MakeAgent,
) -> None:
    """ESC b in one read (tmux sends it so within its escape-time) is Esc then b, not ctrl+left;
    without vim the app reads the pair as before."""
    from agent_tui.ui.terminal_keys import KeyParser

    h = _with_history(make_agent, _vim_rc())
    async with running_app(h.agent, size=(80, 24)) as (app, pilot):
        await pilot.press(*"hello big world")
        await terminal_sends(pilot, "\x1bbx")
        assert app.prompt_input.text == "hello big orld"
        assert app.query_one(Composer).border_title == "-- NORMAL --"
        await terminal_sends(pilot, "\x1b[D")  # a CSI sequence still reads as its key (left)
        assert app.prompt_input.cursor_location == (0, 9)
    h = make_agent([])
    (h.workspace.parent / "home" / ".agentrc").write_text("")
    h = make_agent([])
    async with running_app(h.agent, size=(80, 24)) as (app, pilot):
        assert not KeyParser.meta_as_escape
        await pilot.press(*"hello big world")
        await terminal_sends(pilot, "\x1bbx")  # no vi here: x is typed, nothing is deleted
        text = app.prompt_input.text
        assert "x" in text and text.replace("x", "", 1) == "hello big world"
