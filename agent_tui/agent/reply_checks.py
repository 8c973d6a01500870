"""Replies a small model gets wrong, answered with one short nudge instead of ending the turn.

After each round the loop asks :class:`ReplyChecks` about the reply:

- **A failed round** is a reply made only of the chat template's tool markup (an echo of
  ``<tool_response>…</tool_response>``, ``<|im_start|>``, a ``<tool_call>`` with nothing usable
  in it), or one whose only calls were written as text that could not be read. The first gets a
  nudge (an echo a user message; a failed call its error result); a second in a row ends the turn
  with :class:`~agent_tui.errors.UnusableReply`, so ``-p`` exits non-zero instead of reporting
  the markup as the answer.
- **An echo of the context block**: a local server gets the folder's and the turn's context as a
  ``<context>\n# Environment …</context>`` block before the user's request (agent/stable_prefix.py),
  and a small model may answer by copying it (gemma-3-270m began every reply on
  bench/bench_local_tasks.py with such a block, then looped). A reply that is only that block is a failed round like a markup
  echo, with its own nudge: there may be no tool result above to point to.
- **A call described in prose** ("I'll call create_file with path … and content …") by a model
  that writes its calls as text gets one nudge a turn asking for the call alone; the reply after
  it is taken as it comes. A call written out in call syntax inside an answer (a fenced
  ``{"name": …, "arguments": …}`` after prose) is not nudged: the text-call parser treats that
  as part of an answer on purpose (it may be quoted, or planted), and a nudge would turn it into
  a call.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from agent_tui.agent.assemble import RawCall
from agent_tui.agent.instructions import ENVIRONMENT_HEADING, TURN_HEADING
from agent_tui.agent.text_calls import TEXT_ORIGIN
from agent_tui.errors import UnusableReply
from agent_tui.lazy_regex import lazy_pattern
from agent_tui.providers.base import ToolSpec
from agent_tui.providers.text_tool_calls import OPEN_TAG, looks_like_call

# A chat template's tool markup and special tokens (ChatML/Qwen, Hermes, Llama 3), with what a
# tag encloses: an echo of a tool result is markup however much text it carries.
_MARKUP = lazy_pattern(
    r"<tool_response>.*?(?:</tool_response>|\Z)|</?tool_response>"
    r"|<tool_call>.*?(?:</tool_call>|\Z)|</tool_call>"
    r"|<\|[A-Za-z0-9_]{1,32}\|>(?:[ \t]*(?:system|user|assistant|tool|ipython)\b)?",
    re.DOTALL,
)
# Our own context block (stable_prefix.py), copied back: it opens with one of its two headings.
_HEADINGS = "|".join(re.escape(h.strip()) for h in (ENVIRONMENT_HEADING, TURN_HEADING))
_CONTEXT = lazy_pattern(rf"<context>\s*(?:{_HEADINGS})\n.*?(?:</context>|\Z)", re.DOTALL)
CONTEXT_NUDGE = (
    "Your last reply only repeated the <context> block you were given; it is not a tool call "
    "and not an answer. Do what the user's request asks: reply with one tool call, or with "
    "your final answer in plain text."
)
ECHO_NUDGE = (
    "Your last reply was only chat-template markup (such as <tool_response>), not a tool call "
    "and not an answer. The tool results are already above. Reply with one tool call, or with "
    "your final answer in plain text."
)
MAX_FAILED_ROUNDS = 2  # failed rounds in a row that end the turn
MAX_DESCRIPTION_CHARS = 20_000  # a longer reply is an answer: not searched for a described call


def is_template_echo(text: str) -> bool:
    """Whether ``text`` is only chat-template markup (and whitespace)."""
    if "<" not in text:  # all markup starts with it: most replies need no regex (nor its compile)
        return False
    return _MARKUP().search(text) is not None and not _MARKUP().sub("", text).strip()


def is_context_echo(text: str) -> bool:
    """Whether ``text`` is only our context block(s), with or without template markup."""
    if "<context>" not in text or _CONTEXT().search(text) is None:
        return False
    return not _MARKUP().sub("", _CONTEXT().sub("", text)).strip()


def _words(text: str) -> str:
    """``text`` lowercased with ``_`` and ``-`` dropped, so ``file_path`` matches ``filePath``."""
    return re.sub(r"[_-]", "", text.lower())


def _names(text: str, name: str) -> bool:
    """Whether ``name`` occurs in ``text`` as a whole word: no word character (``\\w``: a letter
    or digit of any script, or ``_``) just before or after it. Without a regex: one compiled for
    each offered tool took ~1 ms of a turn's first reply."""
    start = text.find(name)
    while start != -1:
        end = start + len(name)
        before = text[start - 1] if start else " "
        after = text[end] if end < len(text) else " "
        if not _is_word(before) and not _is_word(after):
            return True
        start = text.find(name, start + 1)
    return False


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"  # what ``\w`` matches in a str pattern


def described_call(text: str, specs: Sequence[ToolSpec]) -> str | None:
    """The offered tool ``text`` describes a call to without making it, or None.

    A description names the tool and every argument its schema requires (a tool that requires
    none is never matched: naming it is not describing a call).
    """
    if len(text) > MAX_DESCRIPTION_CHARS:
        return None
    flat = _words(text)
    for spec in specs:
        required = spec.input_schema.get("required")
        if not isinstance(required, list) or not required:
            continue
        if not _names(text, spec.name):
            continue
        if all(isinstance(arg, str) and _words(arg) in flat for arg in required):
            return spec.name
    return None


@dataclass(frozen=True)
class Nudge:
    """What the user is told and what the model is sent instead of ending the turn."""

    notice: str
    message: str


@dataclass
class ReplyChecks:
    """One turn's checks; ``text_calls`` is whether the model's calls are read from its text."""

    text_calls: bool
    failed: int = 0  # failed rounds in a row
    prose_nudged: bool = False

    def after_round(
        self, text: str, calls: Sequence[RawCall], specs: Sequence[ToolSpec]
    ) -> Nudge | None:
        """The nudge the round's reply needs, if any.

        Raises:
            UnusableReply: the second failed round in a row.
        """
        context = not calls and is_context_echo(text)
        echo = context or (not calls and is_template_echo(text))
        unread = bool(calls) and all(c.origin == TEXT_ORIGIN and c.input is None for c in calls)
        if not (echo or unread):
            self.failed = 0
            return None if calls else self._prose(text, specs)
        self.failed += 1
        if self.failed >= MAX_FAILED_ROUNDS:
            what = "its chat template's markup" if echo else "tool calls that could not be read"
            what = "a copy of the context it was given" if context else what
            raise UnusableReply(
                f"the model answered with {what} {self.failed} times in a row, not a tool "
                "call or an answer; the turn was stopped (try a lower model.temperature or a "
                "larger model)"
            )
        if not echo:
            return None  # the failed call's error result is the nudge
        if context:
            return Nudge(
                "The model copied its context block instead of answering; it was asked again.",
                CONTEXT_NUDGE,
            )
        return Nudge(
            "The model answered with template markup only; it was asked again.", ECHO_NUDGE
        )

    def _prose(self, text: str, specs: Sequence[ToolSpec]) -> Nudge | None:
        if not self.text_calls or self.prose_nudged or OPEN_TAG in text or looks_like_call(text):
            return None
        name = described_call(text, specs)
        if name is None:
            return None
        self.prose_nudged = True
        return Nudge(
            f"The model described a call to {name} without making it; it was asked to make it.",
            f"You described a call to {name} but did not make it. To run it, reply with only "
            "the tool call, no other text. If you have finished, reply with your final answer.",
        )
