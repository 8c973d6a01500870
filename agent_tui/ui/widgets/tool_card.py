"""A tool call in the transcript: running -> decided -> finished, with input, output and diff."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static

from agent_tui.durations import elapsed_text
from agent_tui.plural import plural
from agent_tui.text_safety import visible
from agent_tui.ui.terminal_tail import REDRAW_INTERVAL_S, LiveOutput, app_clock

KIND_ICONS = {"read": "◇", "edit": "✎", "execute": "$", "fetch": "↓"}
STATUS_MARKS = {
    "running": "…",
    "waiting": "?",
    "done": "✓",
    "error": "✗",
    "failed": "✗",
    "denied": "⊘",
}
SUMMARY_KEYS = ("command", "path", "url", "urls", "query", "pattern", "terminal_id")
SUMMARY_CHARS = 60
MAX_OUTPUT_CHARS = 6_000  # the card shows the start of long outputs; the model got all of it


def strip_fences(text: str) -> str:
    """Drop Markdown code fences around a diff so it can be coloured line by line."""
    lines = [ln for ln in text.splitlines() if not ln.startswith("```")]
    return "\n".join(lines)


def looks_like_diff(text: str) -> bool:
    body = strip_fences(text)
    return any(ln.startswith(("@@", "--- ", "+++ ")) for ln in body.splitlines()[:20])


def coloured_diff(diff: str) -> Text:
    """A unified diff as Rich Text: additions green, removals red, hunks cyan (bold in NO_COLOR)."""
    out = Text()
    for line in strip_fences(diff).splitlines():
        if line.startswith(("+++", "---")):
            style = "bold"
        elif line.startswith("+"):
            style = "green"
        elif line.startswith("-"):
            style = "red"
        elif line.startswith("@@"):
            style = "cyan"
        else:
            style = ""
        out.append(line + "\n", style=style)
    out.rstrip()
    return out


@dataclass
class CardState:
    """Everything a card shows; kept so a pruned card can be mounted again as it was."""

    call_id: str
    name: str
    kind: str = ""
    input: dict[str, Any] = field(default_factory=dict)
    message: str = ""  # invocation message while running, past tense once done
    status: str = "running"  # running | waiting | done | failed (non-zero exit) | error | denied
    decided: str = ""
    output: str = ""
    diff: str = ""
    tail: str = ""
    duration_s: float = 0.0
    exit_code: int | None = None  # a command's; shown on the card when it is not 0
    note: str = ""  # after the message: "parsed from text" (the model wrote the call as text)


def exit_text(code: int) -> str:
    """``2`` -> ``exit code 2``; a negative code is the signal that killed the command."""
    return f"killed by signal {-code}" if code < 0 else f"exit code {code}"


def input_summary(tool_input: dict[str, Any]) -> str:
    """The input's telling value (the command, the path...), cut short, for a one-line header."""
    for key in SUMMARY_KEYS:
        value = tool_input.get(key)
        if isinstance(value, list):
            value = ", ".join(str(v) for v in value)
        if isinstance(value, str) and value.strip():
            line = value.strip().splitlines()[0]
            return line if len(line) <= SUMMARY_CHARS else line[: SUMMARY_CHARS - 1] + "…"
    return ""


class DetailsToggle(Static):
    """The "▶ input and output" line: click (or Enter) opens the call's details."""

    can_focus = True
    BINDINGS = [("enter,space", "press", "Show details")]

    class Pressed(Message):
        """Open or close the details."""

    def on_click(self) -> None:
        self.post_message(self.Pressed())

    def action_press(self) -> None:
        self.post_message(self.Pressed())


def progress_text(progress: float, total: float | None, message: str) -> str:
    """``45% — indexing`` (with a total) or ``3 — indexing``; the message cut to one line."""
    line = message.splitlines()[0][:200] if message.strip() else ""
    if total:
        amount = f"{min(progress / total, 1.0):.0%}"
    else:
        amount = f"{progress:g}"
    return f"{amount} — {line}" if line else amount


class ToolCard(Vertical):
    """Attributes down: the app calls the ``set_*`` methods as the call's events arrive."""

    DEFAULT_CSS = """
    ToolCard { height: auto; margin: 1 0 0 0; padding: 0 1; border-left: thick $secondary; }
    ToolCard.-waiting { border-left: thick $warning; }
    ToolCard.-error, ToolCard.-denied, ToolCard.-failed { border-left: thick $error; }
    ToolCard.-done { border-left: thick $success; }
    ToolCard > .header { text-style: bold; }
    ToolCard.-error > .header, ToolCard.-denied > .header, ToolCard.-failed > .header {
        color: $error;
    }
    ToolCard > .decided { color: $text-muted; }
    ToolCard > .tail {
        color: $text-muted; max-height: 10; text-wrap: nowrap; text-overflow: ellipsis;
    }
    ToolCard > .toggle { color: $text-muted; }
    ToolCard > .toggle:hover { color: $text; text-style: underline; }
    ToolCard > .details { padding: 0 2; max-height: 30; overflow-y: auto; }
    ToolCard > .details.-error-output { color: $error; }
    """

    def __init__(self, state: CardState) -> None:
        super().__init__(classes=f"-{state.status}")
        self.state = state
        self.details_open = state.status == "error"
        self._header = Static(classes="header", markup=False)
        self._decided = Static(classes="decided", markup=False)
        self._diff = Static(classes="diff")
        self._tail = Static(classes="tail", markup=False)
        self._toggle = DetailsToggle(classes="toggle", markup=False)
        self._details: Static | None = None  # mounted on first open: most cards stay closed
        self.live: LiveOutput | None = None  # a running command's output tail and elapsed time
        self._ticker: Timer | None = None

    def compose(self) -> ComposeResult:
        yield self._header
        yield self._decided
        yield self._diff
        yield self._tail
        yield self._toggle
        if self.details_open:  # set before mounting (a resumed call's error): drawn with the rest
            self._details = Static(classes="details", markup=False)
            yield self._details

    def on_mount(self) -> None:
        if self.live is not None and self._ticker is None and self.state.status == "running":
            self._ticker = self.set_interval(REDRAW_INTERVAL_S, self._draw_live)
        self._refresh_all()

    def _details_text(self) -> str:
        pretty = json.dumps(self.state.input, indent=2, ensure_ascii=False)
        output = self.state.output[:MAX_OUTPUT_CHARS]
        return f"input:\n{pretty}" + (f"\n\noutput:\n{output}" if output else "")

    def on_details_toggle_pressed(self) -> None:
        self.details_open = not self.details_open
        self._refresh_all()

    def _refresh_all(self) -> None:
        s = self.state
        icon = KIND_ICONS.get(s.kind, "•")
        # Under a second is noise (and would make snapshots depend on timing).
        took = f"  ({s.duration_s:.1f}s)" if s.duration_s >= 1 else ""
        mark = STATUS_MARKS[s.status]
        code = f" — {exit_text(s.exit_code)}" if s.exit_code else ""
        # Every string shown here comes from the model or a tool: control characters made visible.
        note = f" · {s.note}" if s.note else ""
        if self.live is not None and s.status == "running":
            # No-break spaces: a wrapped header keeps "· 12 s" together on one line.
            took = " · " + elapsed_text(self.live.elapsed()).replace(" ", "\u00a0")
        self._header.update(f"{mark} {icon} {visible(s.message or s.name)}{code}{note}{took}")
        self._decided.update(visible(s.decided))
        self._decided.display = bool(s.decided)
        self._diff.update(coloured_diff(visible(s.diff)) if s.diff else "")
        self._diff.display = bool(s.diff)
        self._tail.update(visible(s.tail))
        self._tail.display = bool(s.tail) and s.status == "running"
        what = "input and output" if s.output else "input"
        self._toggle.update(f"{'▼' if self.details_open else '▶'} {what}")
        if self.details_open and self.is_mounted:
            if self._details is None:
                self._details = Static(classes="details", markup=False)
                self.mount(self._details)
        if self.details_open and self._details is not None:
            self._details.update(visible(self._details_text()))
            self._details.set_class(s.status == "error", "-error-output")
        if self._details is not None:
            self._details.display = self.details_open
        for status in STATUS_MARKS:
            self.set_class(s.status == status, f"-{status}")

    def set_waiting(self, diff: str = "") -> None:
        self.state.status = "waiting"
        if diff and looks_like_diff(diff):
            self.state.diff = diff
        self._refresh_all()

    def set_streaming(self, message: str) -> None:
        """The call's arguments are still arriving: show the live progress line."""
        self.state.message = message
        self._refresh_all()

    def set_started(self, kind: str, input: dict[str, Any], message: str) -> None:
        """The pending card of a streamed call becomes the call's card (input complete)."""
        self.state.kind, self.state.input, self.state.message = kind, input, message
        self._refresh_all()

    def set_decided(self, allowed: bool, reason: str) -> None:
        self.state.decided = reason
        self.state.status = "running" if allowed else "denied"
        if not allowed:  # the invocation message ("Running `ls`") would say it ran
            self.state.message = self._final_title("Not run")
        elif self.state.kind == "execute":
            self._start_live()  # a command: its elapsed time ticks from now
        self._refresh_all()
        if self.live is not None:
            self.live.drawn()

    def set_progress(self, progress: float, total: float | None, message: str) -> None:
        """A running tool's progress report, in place of the live output tail."""
        self.state.tail = progress_text(progress, total, message)
        self._tail.update(visible(self.state.tail))
        self._tail.display = self.state.status == "running"

    def _start_live(self) -> LiveOutput:
        if self.live is None:
            self.live = LiveOutput(app_clock(self))
            if self.is_mounted:  # else on_mount starts it (a card drawn before it is mounted)
                self._ticker = self.set_interval(REDRAW_INTERVAL_S, self._draw_live)
        return self.live

    def append_output(self, text: str) -> None:
        """Output of the running call: kept at once, drawn at most 10 times a second."""
        self._start_live().feed(text)
        self._draw_live()

    def _draw_live(self) -> None:
        live = self.live
        if live is None or self.state.status != "running" or not live.due():
            return
        if live.chunks:
            self.state.tail = "\n".join(live.tail.lines())
        self._refresh_all()
        live.drawn()

    def set_finished(
        self,
        content: str,
        is_error: bool,
        display: str | None,
        past: str,
        duration_s: float,
        exit_code: int | None = None,
        new_problems: int = 0,
    ) -> None:
        s = self.state
        if self._ticker is not None:
            self._ticker.stop()
        s.exit_code = exit_code
        if new_problems:  # the lines themselves are in the output, as the model got them
            found = f"{plural(new_problems, 'new problem')} (language server)"
            s.note = f"{s.note} · {found}" if s.note else found
        if s.status != "denied":
            s.status = "error" if is_error else "failed" if exit_code else "done"
        if past and not is_error:
            s.message = past
        elif is_error and s.status != "denied":
            # The invocation message ("Running echo (server)") would say it is still running.
            s.message = self._final_title("Failed")
        shown = display if display is not None else content
        if display is not None and looks_like_diff(display):
            s.diff = display
            s.output = content
        else:
            s.output = shown
        s.duration_s = duration_s
        if s.status == "error":
            self.details_open = True  # errors show what went wrong without a click
        self._refresh_all()

    def set_cancelled(self) -> None:
        """The turn was cancelled while this call ran or waited: it ends, saying so."""
        self.set_finished("cancelled", True, None, "", 0.0)
        self.state.message = self._final_title("Cancelled")
        self._refresh_all()

    def set_interrupted(self) -> None:
        """A resumed session's call that never ended: the app was closed while it ran."""
        self.set_finished("interrupted: the app was closed while it ran", True, None, "", 0.0)
        self.state.message = self._final_title("Interrupted")
        self._refresh_all()

    def set_undone(self) -> None:
        """/undo (or /rewind of the code) put back what this call changed."""
        self.state.note = "undone"
        self._refresh_all()

    def _final_title(self, outcome: str) -> str:
        """``Failed: ls -la``: how the call ended and what it was (its input's telling value)."""
        return f"{outcome}: {input_summary(self.state.input) or self.state.name}"

    def record(self) -> Callable[[], Widget]:
        state = replace(self.state)
        return lambda: ToolCard(replace(state))
