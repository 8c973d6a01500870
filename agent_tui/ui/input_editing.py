"""Editing the prompt outside the one-line habit: Ctrl+G opens ``$VISUAL``/``$EDITOR`` on it, and
Esc twice on an empty prompt brings the previous prompt back to edit (``/rewind`` undoes the
conversation side).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from textual.app import SuspendNotSupported

FALLBACK_EDITOR = "vi"


def editor_command(env: dict[str, str] | None = None) -> list[str]:
    """``$VISUAL``, else ``$EDITOR``, else vi, split as a shell would (``code --wait``)."""
    source = os.environ if env is None else env
    words = shlex.split(source.get("VISUAL") or source.get("EDITOR") or FALLBACK_EDITOR)
    return words or [FALLBACK_EDITOR]


def run_editor(text: str, command: list[str]) -> str | None:
    """Let the editor change ``text`` in a temporary file; None when it failed (text unchanged)."""
    fd, name = tempfile.mkstemp(prefix="agent-tui-prompt-", suffix=".md")
    path = Path(name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        try:
            code = subprocess.run([*command, str(path)], check=False).returncode
        except OSError:
            return None
        if code != 0:
            return None
        edited = path.read_text(encoding="utf-8", errors="replace")
        return edited[:-1] if edited.endswith("\n") and not text.endswith("\n") else edited
    finally:
        path.unlink(missing_ok=True)


def edit_prompt_in_editor(app: Any) -> None:
    """Ctrl+G: hand the terminal to the editor on the prompt's text, then take the result back."""
    prompt = app.prompt_input
    command = editor_command()
    try:
        with app.suspend():
            edited = run_editor(prompt.text, command)
    except SuspendNotSupported:  # no real terminal (tests, textual-web): nothing to hand over
        edited = run_editor(prompt.text, command)
    if edited is None:
        app.notify(f"The editor ({shlex.join(command)}) failed; the prompt is unchanged.")
        return
    prompt.load_text(edited)
    prompt.move_cursor(prompt.document.end)
    prompt.focus()


class PreviousPromptOffer:
    """Esc on an empty prompt while idle offers the previous prompt; a second Esc takes it."""

    def __init__(self) -> None:
        self.armed = False

    def escape(self, app: Any, previous: str) -> None:
        """One Esc with nothing running and an empty prompt."""
        if not previous:
            return
        if not self.armed:
            self.armed = True
            app.notify("Esc again to edit your previous prompt (/rewind undoes the conversation).")
            return
        self.armed = False
        app.prompt_input.load_text(previous)
        app.prompt_input.move_cursor(app.prompt_input.document.end)
        app.prompt_input.focus()

    def disarm(self) -> None:
        self.armed = False
