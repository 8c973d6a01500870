"""The conversation as text for the summarisation request.

The part to summarise goes to the model as one user message rather than as the original
messages: it is valid for both APIs whatever it holds (signed thinking, calls and results), and
the model reads it as material to digest, not as a dialogue to continue.

Everything in it may have been written to deceive (a file, a tool's output, a web page): each
entry is fenced in tags naming its source, and text that would close a fence early or open a
forged one is defused, so tool output cannot pose as the user inside the transcript.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from agent_tui.conversation import Message, TextBlock, ToolResultBlock, ToolUseBlock
from agent_tui.lazy_regex import lazy_pattern

MAX_BLOCK_CHARS = 4_000  # one tool input or output: its head and tail say what it was
_TAG = lazy_pattern(r"<(/?)(user|assistant|tool_call|tool_result|conversation)\b", re.IGNORECASE)


def _defuse(text: str) -> str:
    """Neutralise our fence tags inside outside text: ``</tool_result>`` -> ``<\u200b/tool_result>``."""
    return _TAG().sub(lambda m: f"<\u200b{m.group(1)}{m.group(2)}", text)


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n[… {len(text) - 2 * half:,} characters left out …]\n{text[-half:]}"


def _render(message: Message) -> list[str]:
    parts: list[str] = []
    for block in message.content:
        if isinstance(block, TextBlock) and block.text.strip():
            body = _defuse(_cut(block.text, MAX_BLOCK_CHARS * 2))
            parts.append(f"<{message.role}>\n{body}\n</{message.role}>")
        elif isinstance(block, ToolUseBlock):
            args = _defuse(_cut(json.dumps(block.input, ensure_ascii=False), MAX_BLOCK_CHARS))
            parts.append(f'<tool_call name="{_defuse(block.name)}">{args}</tool_call>')
        elif isinstance(block, ToolResultBlock):
            error = ' error="true"' if block.is_error else ""
            body = _defuse(_cut(block.content, MAX_BLOCK_CHARS))
            parts.append(f"<tool_result{error}>\n{body}\n</tool_result>")
        # Thinking is left out: the model's private reasoning, not part of what was agreed.
    return parts


def render_transcript(messages: Sequence[Message], max_chars: int) -> str:
    """The messages as fenced text of at most about ``max_chars`` characters.

    When it is longer, the middle gives way: the start holds the goals (and any earlier
    summary), the end the latest state.
    """
    text = "\n".join(part for message in messages for part in _render(message))
    return _cut(text, max(max_chars, 200))
