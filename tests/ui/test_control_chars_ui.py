"""Model and tool text in the transcript shows its control characters instead of sending them to
the terminal (issue 10 §2): the assistant's Markdown (streamed and finished), a tool card's output
from a real subprocess, notes; and the app's last-line filter for any widget that forgot."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from agent_tui.ui.widgets.assistant import AssistantMessage
from agent_tui.ui.widgets.notes import Note
from agent_tui.ui.widgets.tool_card import ToolCard
from tests.ui.app_helpers import running_app, send_to_approval
from tests.ui.conftest import MakeAgent
from tests.ui.helpers import send, wait_idle, wait_until
from tests.ui.screen_text import screen_lines, terminal_output

OSC_TITLE = "\x1b]0;pwned\x07"
ATTACK_TEXT = f"Title {OSC_TITLE}set, line \x1b[2Kerased, \x9b2J, \u202eevil, a\rb."


def screen(app: App[object]) -> str:
    return "\n".join(screen_lines(app))


def assert_not_sent(app: App[object]) -> None:
    raw = terminal_output(app)
    for sequence in (OSC_TITLE, "\x1b]0;", "\x1b[2K", "\x9b", "\u202e"):
        assert sequence not in raw


async def test_an_osc_title_in_the_answer_is_shown_not_obeyed(make_agent: MakeAgent) -> None:
    h = make_agent([{"text": ATTACK_TEXT}])
    async with running_app(h.agent, size=(100, 30)) as (app, pilot):
        await send(pilot, "hi")
        await wait_idle(pilot)
        shown = screen(app)
        assert "␛]0;pwned␇set" in shown
        assert "␛[2Kerased" in shown and "\\x9b2J" in shown and "\\u202eevil" in shown
        assert "a␍b." in shown
        assert_not_sent(app)


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield VerticalScroll(id="log")


async def test_a_streaming_answer_shows_control_characters_while_it_streams() -> None:
    app = Host()  # a bare app: no filter behind the widget
    async with app.run_test(size=(100, 20)) as pilot:
        message = AssistantMessage()
        await app.query_one("#log").mount(message)
        for piece in ("Streaming ", OSC_TITLE, "now &#x202e;ok"):
            await message.append_text(piece)
        await wait_until(pilot, lambda: "now" in screen(app), "the streamed text")
        assert message.streaming  # still the live Markdown widget
        shown = screen(app)
        assert "␛]0;pwned␇" in shown and "&#x202e;ok" in shown
        assert "\x1b" not in shown and "\u202e" not in shown


async def test_tool_output_with_escapes_is_shown_on_the_card(make_agent: MakeAgent) -> None:
    # The output the card shows is what the model got, which has CSI/OSC removed already; the
    # rest (a C1 CSI, a bidi override) comes through from a real subprocess.
    command = "printf 'out \\302\\2332J \\342\\200\\256evil\\n'"
    call = {"id": "t1", "name": "run_in_terminal", "input": {"command": command}}
    h = make_agent([{"tool_calls": [call]}, {"text": "ok"}], builtin=True)
    async with running_app(h.agent, size=(100, 40)) as (app, pilot):
        await send_to_approval(pilot, "run", "y")
        await wait_idle(pilot)
        card = app.query(ToolCard).first()
        assert "\x9b2J" in card.state.output and "\u202e" in card.state.output
        await pilot.click(card.query_one(".toggle"))
        await wait_until(pilot, lambda: "output:" in screen(app), "the card's details")
        shown = screen(app)
        assert "out \\x9b2J \\u202eevil" in shown
        assert "\x9b" not in shown and "\u202e" not in shown
        assert_not_sent(app)


async def test_notes_show_control_characters(make_agent: MakeAgent) -> None:
    async with running_app(make_agent([]).agent, size=(100, 20)) as (app, pilot):
        await app.transcript.add(Note(f"server said {OSC_TITLE}", "warning"))
        await pilot.pause()
        assert "server said ␛]0;pwned␇" in screen(app)
        assert_not_sent(app)


async def test_the_app_filter_keeps_raw_controls_off_the_terminal(make_agent: MakeAgent) -> None:
    # A widget given raw text (as a future one might be): the filter drops the controls.
    async with running_app(make_agent([]).agent, size=(100, 20)) as (app, pilot):
        await app.transcript.add(Static(f"raw {OSC_TITLE} \x1b[2K\x9b2J\u202e end", markup=False))
        await pilot.pause()
        assert "raw ]0;pwned [2K2J end" in screen(app)
        assert_not_sent(app)
