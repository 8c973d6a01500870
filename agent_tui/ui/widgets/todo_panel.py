"""The model's todo list, live above the prompt (the ``todo`` tool; hidden while it is empty).

Expanded it shows a heading and one line per item; collapsed (F2, or a click) only the
heading: "☐ 3 of 5 done · now: <the item in progress>". Every line is one terminal line, cut with
an ellipsis at the panel's width, and the items' text is the model's: its control characters are
shown, never sent to the terminal.
"""

from __future__ import annotations

from rich.text import Text
from textual.events import Click
from textual.widgets import Static

from agent_tui import events as ev
from agent_tui.text_safety import one_line

MAX_SHOWN = 8  # item lines at most; the rest are counted
MARKS = {"completed": "☑", "in_progress": "▶", "pending": "☐"}
STYLES = {"completed": "dim", "in_progress": "bold", "pending": ""}


def heading(items: tuple[ev.TodoItem, ...]) -> str:
    """``"☐ 3 of 5 done · now: Write the tests"`` (☑ once every item is done)."""
    done = sum(item.status == "completed" for item in items)
    now = next((item.content for item in items if item.status == "in_progress"), "")
    mark = "☑" if done == len(items) else "☐"
    return f"{mark} {done} of {len(items)} done" + (f" · now: {one_line(now)}" if now else "")


def shown_items(items: tuple[ev.TodoItem, ...]) -> tuple[int, list[ev.TodoItem]]:
    """The items a long list shows: from the one before the first open item, ``MAX_SHOWN`` at
    most; returns how many are skipped before them, and them."""
    if len(items) <= MAX_SHOWN:
        return 0, list(items)
    first_open = next((n for n, i in enumerate(items) if i.status != "completed"), len(items))
    start = max(0, min(first_open - 1, len(items) - MAX_SHOWN))
    return start, list(items[start : start + MAX_SHOWN])


class TodoPanel(Static):
    """The todo list; ``show_items`` sets it, a click or ``toggle`` collapses it to one line."""

    DEFAULT_CSS = """
    TodoPanel {
        height: auto; padding: 0 1; display: none; border-top: solid $primary 30%;
        text-wrap: nowrap; text-overflow: ellipsis;
    }
    TodoPanel.-shown { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.items: tuple[ev.TodoItem, ...] = ()
        self.collapsed = False

    def show_items(self, items: tuple[ev.TodoItem, ...]) -> None:
        self.items = items
        self._draw()

    def toggle(self) -> None:
        self.collapsed = not self.collapsed
        self._draw()

    def on_click(self, event: Click) -> None:
        event.stop()
        self.toggle()

    def _draw(self) -> None:
        self.set_class(bool(self.items), "-shown")
        if not self.items:
            self.update("")
            return
        hint = " (F2 shows the list)" if self.collapsed else " (F2 hides)"
        text = Text(no_wrap=True, overflow="ellipsis", end="")
        text.append(heading(self.items), style="bold")
        text.append(hint, style="dim")
        if not self.collapsed:
            self._append_items(text)
        self.update(text)

    def _append_items(self, text: Text) -> None:
        skipped, shown = shown_items(self.items)
        if skipped:
            text.append(f"\n  … {skipped} done before", style="dim")
        for item in shown:
            mark = MARKS.get(item.status, "?")
            text.append(f"\n  {mark} {one_line(item.content)}", style=STYLES.get(item.status, ""))
        left = len(self.items) - skipped - len(shown)
        if left:
            text.append(f"\n  … {left} more", style="dim")
