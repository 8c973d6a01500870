"""``[ui] vim = true``: normal and insert modes in the prompt, the few vi keys hands expect.

Normal mode: h j k l, w b, 0 $, x, dd, u (undo), i a I A o to insert; j / k on the last / first
line recall prompts as Down / Up do; Enter still sends. Other letters do nothing (they never
type). Keys with Ctrl, arrows and Enter keep their prompt meaning in both modes.

Esc, decided so a running turn can still be stopped with one key: in insert mode with text it
only goes to normal mode; in normal mode, or on an empty prompt, it also does what Esc does
without vim (cancel the running turn; idle, twice on an empty prompt: the previous prompt).

:class:`VimKeys` edits through the TextArea's own methods (``move_cursor``, ``delete``,
``insert``, ``undo``), so undo and the Changed messages work as for typed text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

INSERT, NORMAL = "insert", "normal"
Location = tuple[int, int]  # (row, column), as TextArea has it
MODE_LABELS = {INSERT: "-- INSERT --", NORMAL: "-- NORMAL --"}


class VimPrompt(Protocol):
    """What the keys need of the prompt (``PromptInput``)."""

    text: str
    cursor_location: Location

    def move_cursor(self, location: Location) -> None: ...
    def delete(self, start: Location, end: Location) -> object: ...
    def insert(self, text: str, location: Location | None = None) -> object: ...
    def undo(self) -> None: ...
    def recall(self, step: int) -> bool: ...


def _lines(prompt: VimPrompt) -> list[str]:
    return prompt.text.split("\n")


class VimKeys:
    """The mode and a pending ``d``; :meth:`key` says whether it used the key."""

    def __init__(self, on_mode: Callable[[str], object]) -> None:
        self.mode = INSERT
        self.pending = ""
        self._on_mode = on_mode

    def set_mode(self, mode: str) -> None:
        if mode != self.mode:
            self.mode = mode
            self._on_mode(mode)

    def key(self, prompt: VimPrompt, key: str, character: str | None) -> bool:
        """Handle one key; False lets the prompt (and the app) have it."""
        if key == "escape":
            return self._escape(prompt)
        if self.mode == INSERT or not character or not character.isprintable():
            return False
        command, self.pending = self.pending + character, ""
        if command == "d":
            self.pending = "d"
        elif command == "dd":
            self._delete_line(prompt)
        else:
            self._command(prompt, command[-1])
        return True

    def _escape(self, prompt: VimPrompt) -> bool:
        if self.pending:
            self.pending = ""
            return True
        if self.mode == INSERT:
            self.set_mode(NORMAL)
            row, col = prompt.cursor_location
            prompt.move_cursor((row, max(col - 1, 0)))  # as vi: onto the last character typed
            return bool(prompt.text)
        return False

    def _command(self, prompt: VimPrompt, char: str) -> None:
        row, col = prompt.cursor_location
        lines = _lines(prompt)
        line = lines[row]
        moves: dict[str, Location] = {
            "h": (row, max(col - 1, 0)),
            "l": (row, min(col + 1, max(len(line) - 1, 0))),
            "0": (row, 0),
            "$": (row, max(len(line) - 1, 0)),
            "w": _word_forward(lines, row, col),
            "b": _word_back(lines, row, col),
        }
        if char in moves:
            prompt.move_cursor(moves[char])
        elif char in "jk":
            self._vertical(prompt, 1 if char == "j" else -1)
        elif char == "x" and col < len(line):
            prompt.delete((row, col), (row, col + 1))
        elif char == "u":
            prompt.undo()
        elif char in "iaAIo":
            self._insert_at(prompt, char, row, col, line)

    def _vertical(self, prompt: VimPrompt, step: int) -> None:
        row, col = prompt.cursor_location
        lines = _lines(prompt)
        target = row + step
        if 0 <= target < len(lines):
            prompt.move_cursor((target, min(col, max(len(lines[target]) - 1, 0))))
        else:
            prompt.recall(step)  # past the first / last line: earlier or later prompts

    def _insert_at(self, prompt: VimPrompt, char: str, row: int, col: int, line: str) -> None:
        if char == "a":
            prompt.move_cursor((row, min(col + 1, len(line))))
        elif char == "A":
            prompt.move_cursor((row, len(line)))
        elif char == "I":
            prompt.move_cursor((row, len(line) - len(line.lstrip())))
        elif char == "o":
            prompt.insert("\n", (row, len(line)))
            prompt.move_cursor((row + 1, 0))
        self.set_mode(INSERT)

    def _delete_line(self, prompt: VimPrompt) -> None:
        row, _ = prompt.cursor_location
        lines = _lines(prompt)
        if len(lines) == 1:
            prompt.delete((0, 0), (0, len(lines[0])))
        elif row == len(lines) - 1:  # the last line: take the newline before it
            prompt.delete((row - 1, len(lines[row - 1])), (row, len(lines[row])))
            prompt.move_cursor((row - 1, 0))
        else:
            prompt.delete((row, 0), (row + 1, 0))
            prompt.move_cursor((row, 0))


def _word_class(char: str) -> int:
    return 0 if char.isspace() else 1 if char.isalnum() or char == "_" else 2


def _word_forward(lines: list[str], row: int, col: int) -> Location:
    """``w``: the start of the next word (a run of word characters or of punctuation)."""
    text = "\n".join(lines)
    index = sum(len(line) + 1 for line in lines[:row]) + col
    if index < len(text):
        kind = _word_class(text[index])
        while index < len(text) and kind and _word_class(text[index]) == kind:
            index += 1
        while index < len(text) and text[index].isspace():
            index += 1
    return _location(lines, min(index, len(text)))


def _word_back(lines: list[str], row: int, col: int) -> Location:
    """``b``: the start of this word, or of the one before when already at a start."""
    text = "\n".join(lines)
    index = sum(len(line) + 1 for line in lines[:row]) + col
    while index > 0 and text[index - 1].isspace():
        index -= 1
    if index > 0:
        kind = _word_class(text[index - 1])
        while index > 0 and _word_class(text[index - 1]) == kind:
            index -= 1
    return _location(lines, index)


def _location(lines: list[str], index: int) -> Location:
    for row, line in enumerate(lines):
        if index <= len(line):
            return (row, index)
        index -= len(line) + 1
    return (len(lines) - 1, len(lines[-1]))
