"""Waiting helpers for Pilot tests: poll a condition between message-queue drains, with a deadline."""

from __future__ import annotations

import time
from collections.abc import Callable

from textual.pilot import Pilot

DEADLINE_S = 15.0


async def wait_until(pilot: Pilot[object], condition: Callable[[], object], what: str) -> None:
    """Process messages until ``condition()`` is truthy; fail with ``what`` after the deadline."""
    deadline = time.monotonic() + DEADLINE_S
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for: {what}")
        await pilot.pause()


def screen_name(pilot: Pilot[object]) -> str:
    return type(pilot.app.screen).__name__


async def wait_screen(pilot: Pilot[object], name: str) -> None:
    await wait_until(pilot, lambda: screen_name(pilot) == name, f"screen {name}")


async def wait_idle(pilot: Pilot[object]) -> None:
    """Wait until the turn worker has finished."""
    app = pilot.app
    await wait_until(pilot, lambda: not app.busy, "the turn to finish")  # type: ignore[attr-defined]
    await pilot.pause()


async def send(pilot: Pilot[object], text: str) -> None:
    """Type ``text`` into the prompt and press Enter."""
    prompt = pilot.app.query_one("PromptInput")
    prompt.load_text(text)  # type: ignore[attr-defined]
    prompt.focus()
    await pilot.pause()
    await pilot.press("enter")


async def terminal_sends(pilot: Pilot[object], data: str) -> None:
    """Deliver ``data`` as the terminal would in one read: parsed by the app's parser
    (``ui/terminal_keys.KeyParser``) and every event posted before the app handles the first,
    as the driver's input thread does. ``pilot.press`` waits after each key, which hid the bugs
    of keys typed fast (issue 23 §9)."""
    from agent_tui.ui.terminal_keys import KeyParser

    parser = KeyParser()
    for event in [*parser.feed(data), *parser.feed("")]:
        pilot.app.post_message(event)
    await pilot.pause()
