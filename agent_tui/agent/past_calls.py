"""Large arguments of tool calls that already ran are left out of later requests.

A 900 KB ``create_file`` was written, and then every later request carried those 900 KB again in
the call, until one needed "about 285,271 tokens" and the conversation could not go on: the
budget (``agent/prompt.py``) elides old tool *outputs*, never the calls. Once a call has its
result, each string in its input longer than ``MAX_ARGUMENT_CHARS`` (a file's content, a patch)
is replaced by a note saying how long it was; an input still over ``MAX_INPUT_CHARS`` after that
(many middling strings) is replaced whole. The model can read the file back when it needs it.

As with ``pruned_outputs``, the conversation itself is changed (messages replaced, never changed
in place), so the budget, automatic compaction and saved sessions all count what is really sent.
A call without a result yet (the round being run) keeps its input.
"""

from __future__ import annotations

import json
from typing import Any

from agent_tui.conversation import Block, Conversation, Message, ToolResultBlock, ToolUseBlock
from agent_tui.identity_cache import IdentityCache

MAX_ARGUMENT_CHARS = 4 * 1024
MAX_INPUT_CHARS = 16 * 1024
NOTE_KEY = "agent_tui_note"
# Each call is looked at once: a long conversation's calls are not measured again every round.
_SLIMMED: IdentityCache[ToolUseBlock, dict[str, Any] | None] = IdentityCache()


def left_out(chars: int) -> str:
    """What replaces an argument of ``chars`` characters."""
    return (
        f"[{chars:,} characters left out of this earlier call to save context; the call ran with "
        "all of them. Read the file back if you need its content.]"
    )


def _slim_value(value: Any) -> Any:
    if isinstance(value, str):
        return left_out(len(value)) if len(value) > MAX_ARGUMENT_CHARS else value
    if isinstance(value, list):
        return [_slim_value(v) for v in value]
    if isinstance(value, dict):
        return {k: _slim_value(v) for k, v in value.items()}
    return value


def slim_input(value: dict[str, Any]) -> dict[str, Any] | None:
    """``value`` with its long arguments left out, or None when nothing in it is long."""
    size = len(json.dumps(value, ensure_ascii=False))
    if size <= MAX_ARGUMENT_CHARS:
        return None  # nothing in it can be over the limit: the common case, cheap
    slimmed: dict[str, Any] = _slim_value(value)
    if len(json.dumps(slimmed, ensure_ascii=False)) > MAX_INPUT_CHARS:
        return {NOTE_KEY: left_out(size)}
    return None if slimmed == value else slimmed


def slim_past_calls(conversation: Conversation) -> int:
    """Leave the long arguments out of every answered call in ``conversation``.

    Returns:
        How many calls were slimmed now.
    """
    messages = conversation.messages
    # Each message measures its calls once; only those with a long one are looked at again.
    heavy = [
        index
        for index, message in enumerate(messages)
        if message.role == "assistant" and message.input_chars > MAX_ARGUMENT_CHARS
    ]
    if not heavy:
        return 0
    answered = {
        block.tool_use_id
        for message in messages
        if message.role == "user"
        for block in message.content
        if isinstance(block, ToolResultBlock)
    }
    slimmed = 0
    for index in heavy:
        message = messages[index]
        smaller = {
            position: found
            for position, block in enumerate(message.content)
            if isinstance(block, ToolUseBlock)
            and block.id in answered
            and (found := _SLIMMED.get(block, _slim_block)) is not None
        }
        if not smaller:
            continue  # its long calls have no result yet
        blocks: list[Block] = [
            ToolUseBlock(block.id, block.name, smaller[position])
            if position in smaller and isinstance(block, ToolUseBlock)
            else block
            for position, block in enumerate(message.content)
        ]
        conversation.lighten(index, Message(message.role, blocks))
        slimmed += len(smaller)
    return slimmed


def _slim_block(block: ToolUseBlock) -> dict[str, Any] | None:
    return slim_input(block.input)
