"""Moving the focus on a key without losing or reordering the keys typed after it.

The app routes each key to the focused widget as it reads it from the terminal, and a terminal
delivers what was typed fast or pasted without brackets in one read: by the time the widget
handles the key that moves the focus (a letter typed over the plan offer, ``e`` in the approval
dialog), the keys after it are already queued for that widget. They went to its bindings (a card's
Space toggle took the spaces of "change step 2"), or were dropped with the widget that was going
away; moving the focus at once instead let newer keys reach the new widget before the queued ones.

A :class:`KeyHandover` passes the keys still queued for the old widget on to the new one, in
order, and moves the focus only when the old widget's queue is empty (its ``on_idle``): the keys
read after that go to the new widget directly, behind the handed ones. A key the app had already
routed to the old widget can still arrive after that; a printable one is passed on too (the new
widget, a text field, would have taken it: it cannot be one bubbling back from there).
"""

from __future__ import annotations

from collections.abc import Callable

from textual import events
from textual.widget import Widget

from agent_tui.ui.prompt_focus import focus_now


class KeyHandover:
    """Keys for the owner (a widget or screen) go to ``target`` until the owner is idle.

    The owner calls :meth:`take` first in its ``on_key`` and :meth:`idle` from its ``on_idle``.

    Args:
        target: the widget that takes the keys and then the focus.
        done: called once the focus has moved (e.g. to remove the owner).
    """

    def __init__(self, target: Widget, done: Callable[[], object] | None = None) -> None:
        self.target = target
        self.done = done
        self._handed: list[events.Key] = []  # bubbling back up from the target: not taken again
        self.moved = False  # the target has the focus

    def take(self, event: events.Key) -> bool:
        """Pass ``event`` on to the target; False for a key already handed (it bubbled back) and,
        once the target has the focus, for any key but text."""
        if any(event is handed for handed in self._handed):
            return False
        if self.moved and not (event.is_printable and event.character):
            return False
        event.stop()
        event.prevent_default()
        key = events.Key(event.key, event.character)
        self._handed.append(key)
        self.target.post_message(key)
        return True

    def idle(self) -> None:
        """No key is left for the owner: the target takes the focus (and the next keys)."""
        if self.moved:
            return
        self.moved = True
        focus_now(self.target)
        if self.done is not None:
            self.done()
