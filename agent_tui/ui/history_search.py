"""Ctrl+R: reverse search of the prompts sent in this workspace (the history Up recalls).

As in bash: typing narrows, Ctrl+R again goes to the next older match, Enter takes the match
into the prompt (to edit or send), Esc, Ctrl+G or Ctrl+C give the prompt back as it was. The
prompt's text is not touched while searching, so cancelling has nothing to restore; the search
line above it (``Composer``) shows what :meth:`HistorySearch.line` says. Matching ignores case.
"""

from __future__ import annotations

from agent_tui.text_safety import one_line


class HistorySearch:
    """One search over ``history`` (oldest first), from the newest prompt back."""

    def __init__(self, history: list[str]) -> None:
        self.history = history
        self.query = ""
        self.index: int | None = None  # the match shown; None: no match (or no query yet)
        self.failed = False

    @property
    def match(self) -> str:
        return "" if self.index is None else self.history[self.index]

    def type(self, text: str) -> None:
        """The query grew: the match is the newest prompt (from the current one back) holding it."""
        self.query += text
        start = len(self.history) - 1 if self.index is None else self.index
        self._find(start)

    def backspace(self) -> None:
        """The query shrank: search again from the newest prompt."""
        self.query = self.query[:-1]
        self.index = None
        self.failed = False
        if self.query:
            self._find(len(self.history) - 1)

    def older(self) -> None:
        """Ctrl+R again: the next older prompt holding the query (a different text)."""
        if self.index is None:
            self._find(len(self.history) - 1)
            return
        current = self.match
        for index in range(self.index - 1, -1, -1):
            text = self.history[index]
            if text != current and self._holds(text):
                self.index = index
                self.failed = False
                return
        self.failed = True  # as bash: the match stays, the line says the search failed

    def line(self) -> str:
        """``(reverse-i-search)`query': match``, the match on one line, controls made visible."""
        label = "failed reverse-i-search" if self.failed else "reverse-i-search"
        return f"({label})`{one_line(self.query)}': {one_line(self.match)}"

    def _holds(self, text: str) -> bool:
        return self.query.casefold() in text.casefold()

    def _find(self, start: int) -> None:
        for index in range(start, -1, -1):
            if self._holds(self.history[index]):
                self.index = index
                self.failed = False
                return
        self.failed = bool(self.query)
