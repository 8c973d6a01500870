"""Typing always reaches the prompt.

A click in the transcript or on a card, or Tab, moves focus off the prompt; keys typed then went
nowhere. ``type_into_prompt`` (called from the app's key handler, where keys that no widget used
end up) sends a printable key back to the prompt, focused again. A key some binding wants (Space
on a card's details toggle, Enter on a button) is left to that binding.

``put_back`` does the same for the keys a question held while the person was still typing
(``key_guard``): its letters and Backspaces land in the prompt behind it, as if it had not opened.

Focus moves with :func:`focus_now` wherever a key moves it and typing goes on: ``Widget.focus()``
only schedules the move, after the keys already queued, and a terminal delivers what was typed
fast or pasted without brackets in one read. Those keys went to the old focus: a card's Space
toggle swallowed the spaces of "change step 2" typed over the plan offer, and the approval's edit
box lost what was typed right after ``e``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events
from textual.widget import Widget

if TYPE_CHECKING:
    from agent_tui.ui.app import AgentApp


def type_into_prompt(app: AgentApp, event: events.Key) -> None:
    """Focus the prompt and insert the key's character (then the key is used up)."""
    if not event.is_printable or not event.character:
        return
    prompt = app.prompt_input
    # Only on the chat screen: a dialog's keys are the dialog's.
    if prompt.screen is not app.screen or prompt.has_focus:
        return
    if event.key in app.active_bindings:
        return
    focus_now(prompt)
    prompt.typed(event.key, event.character)
    event.stop()
    event.prevent_default()


def put_back(app: AgentApp, key: str, character: str | None) -> None:
    """A key typed as a question opened (``KeyHeld``): a character is inserted in the prompt,
    Backspace deletes; anything else (Enter, arrows) is dropped, never sent on to the question."""
    prompt = app.prompt_input
    if character and character.isprintable():
        prompt.typed(key, character)
    elif key == "backspace":
        prompt.action_delete_left()


def focus_now(widget: Widget) -> None:
    """Focus ``widget`` before the next queued key is handled (see the module docstring)."""
    widget.screen.set_focus(widget)
