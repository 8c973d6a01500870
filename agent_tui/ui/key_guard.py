"""Keys typed for the prompt must not answer a question that opens under them.

A question that grants or runs something on one key (the approval dialog's ``a``, the trust
question's ``y``, the plan offer's ``1``) can open while the person is typing a message: the next
letters were taken as answers (``a`` stored an *always* grant and the command ran). So such a
question takes no key until the keyboard has been quiet for ``QUIET_S`` since it opened and since
the last key: keys that arrive before (the person still typing) go back to the prompt
(:class:`KeyHeld`, which the app turns into text) instead of answering. Once armed it stays armed:
the person paused and is looking at it.

While unarmed the question shows :data:`NOTICE` in place of its key legend (widgets with the class
``key-legend``: its buttons or its key line); nothing in it is focused by default, so Enter alone
answers nothing. The clock is the app's (``AgentApp.clock``), so tests step time instead of waiting.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, TypeVar

from textual import events, on
from textual.message import Message
from textual.message_pump import MessagePump
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Static

from agent_tui.ui.terminal_tail import Clock, app_clock

QUIET_S = 0.6  # typing puts less than this between keys; a pause this long arms the question
CHECK_INTERVAL_S = 0.1  # how often an unarmed question looks at the clock to show its keys
NOTICE = "⌨ Keys are ignored while you type — waiting for a pause"

ResultType = TypeVar("ResultType")


class KeyGuard:
    """Whether a question may take keys yet: quiet for ``quiet`` seconds since it opened and since
    the last key.

    Args:
        clock: monotonic seconds (``app_clock``).
        quiet: seconds; the module's ``QUIET_S`` when None (read when the question opens).
    """

    def __init__(self, clock: Clock, quiet: float | None = None) -> None:
        self.clock = clock
        self.quiet = QUIET_S if quiet is None else quiet
        self._quiet_since = clock()  # the question opened: a key now was aimed elsewhere
        self._armed = self.quiet <= 0

    @property
    def armed(self) -> bool:
        """True once the keyboard has been quiet long enough; it then stays True."""
        if not self._armed and self.clock() - self._quiet_since >= self.quiet:
            self._armed = True
        return self._armed

    def key_pressed(self) -> bool:
        """A key arrived. Returns whether the question may take it; if not, the quiet starts
        again from now (the person is still typing)."""
        if self.armed:
            return True
        self._quiet_since = self.clock()
        return False


class KeyHeld(Message):
    """A key that reached a question before it was armed: it was typed for the prompt."""

    def __init__(self, key: str, character: str | None) -> None:
        super().__init__()
        self.key = key
        self.character = character


def hold_unless_armed(node: MessagePump, guard: KeyGuard, event: events.Key) -> bool:
    """Keep ``event`` from an unarmed question: stop it (no binding or button sees it) and post
    it up as :class:`KeyHeld`. Returns True if the key was held."""
    if guard.key_pressed():
        return False
    event.stop()
    event.prevent_default()
    node.post_message(KeyHeld(event.key, event.character))
    return True


def watch_arming(
    node: Widget, guard: KeyGuard, keys_armed: Callable[[], None] | None = None
) -> None:
    """While ``guard`` is unarmed, give ``node`` the class ``-unarmed`` (the notice shows, the
    key legend hides); once it arms, drop the class and call ``keys_armed``."""

    def armed() -> None:
        node.remove_class("-unarmed")
        if keys_armed is not None:
            keys_armed()

    if guard.armed:
        armed()
        return

    def check() -> None:
        if guard.armed:
            timer.stop()
            armed()

    node.add_class("-unarmed")
    timer = node.set_interval(CHECK_INTERVAL_S, check)


def guard_notice() -> Static:
    """The line shown in place of the key legend while the question is unarmed."""
    return Static(NOTICE, id="guard-notice", markup=False)


def guard_css(type_name: str) -> str:
    """The rules that swap the notice and the key legend, for ``type_name``'s ``DEFAULT_CSS`` (a
    scoped rule must start with its own type name to apply to the node itself)."""
    return f"""
    {type_name} #guard-notice {{ display: none; color: $text-warning; }}
    {type_name}.-unarmed #guard-notice {{ display: block; }}
    {type_name}.-unarmed .key-legend {{ display: none; }}
    """


class GuardedModal(ModalScreen[ResultType]):
    """A question whose keys wait for a pause in typing (see the module docstring).

    Subclasses yield :func:`guard_notice` next to their key legend (class ``key-legend``), and may
    override ``keys_armed`` to focus a field once the question takes keys.
    """

    AUTO_FOCUS: ClassVar[str | None] = ""  # nothing focused: Enter alone answers nothing
    DEFAULT_CSS = guard_css("GuardedModal")

    key_guard: KeyGuard  # made when the question is shown: its quiet starts then

    @on(events.Mount)
    def _start_guard(self) -> None:
        self.key_guard = KeyGuard(app_clock(self))
        watch_arming(self, self.key_guard, self.keys_armed)

    def keys_armed(self) -> None:
        """Called once the question takes keys (a form focuses its first field here)."""

    def on_key(self, event: events.Key) -> None:
        hold_unless_armed(self, self.key_guard, event)
