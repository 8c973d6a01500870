"""A local server's prompt cache: the same prefix for every folder and every turn.

llama.cpp (and Ollama, LM Studio, vLLM) reuse the KV cache of the longest prefix a new request
shares with the last one. Chat templates put the tool schemas after the system message (Qwen's:
``<|im_start|>system\\n{system}\\n\\n# Tools …``), so anything in the system message that changes
— the workspace root, its instructions files, this turn's tool hints — makes the whole prompt,
tools included, be read again: minutes on a laptop CPU. For a local server the system message
is therefore the fixed part only (the base prompt); the rest goes after the tools, as Codex sends
its environment: the folder's part (environment, instructions, skills, MCP instructions, the
participant) with the conversation's first request, this turn's part with the current request.
Both are marked as context, not as something the user typed.
"""

from __future__ import annotations

from agent_tui.agent.instructions import ENVIRONMENT_HEADING, TURN_HEADING
from agent_tui.conversation import Message, TextBlock, ToolResultBlock


def after_the_tools(system: str, messages: list[Message]) -> tuple[str, list[Message]]:
    """``system`` cut to its fixed part, the rest moved into ``messages`` (see the docstring).

    Unchanged when there is nothing to move or no user request to carry it.
    """
    fixed, heading, rest = system.partition(f"\n\n{ENVIRONMENT_HEADING}")
    if not heading:
        return system, messages
    folder, turn_heading, turn = f"{ENVIRONMENT_HEADING}{rest}".partition(f"\n\n{TURN_HEADING}")
    # The first and the last request only: found from each end (a long turn's rounds are many).
    indexes = range(len(messages))
    first = next((n for n in indexes if _is_request(messages[n])), None)
    if first is None:
        return system, messages
    moved = list(messages)
    if turn_heading:  # first: in a one-request conversation the folder's part still leads
        last = next(n for n in reversed(indexes) if _is_request(messages[n]))
        _prepend(moved, last, f"<context>\n{TURN_HEADING}{turn}\n</context>")
    _prepend(moved, first, f"<context>\n{folder.strip()}\n</context>")
    return fixed, moved


def _is_request(message: Message) -> bool:
    """A message the user wrote (text, images), not tool results (which must follow their call)."""
    return (
        message.role == "user"
        and bool(message.content)
        and not any(isinstance(block, ToolResultBlock) for block in message.content)
    )


def _prepend(messages: list[Message], index: int, text: str) -> None:
    """``text`` before the message's content, in its first text block when it starts with one
    (one part, as a client that joins parts sends it, and as the tokenizer counts it)."""
    old = messages[index]
    head, *rest = old.content
    if isinstance(head, TextBlock):
        messages[index] = Message(old.role, [TextBlock(f"{text}\n\n{head.text}"), *rest])
    else:
        messages[index] = Message(old.role, [TextBlock(text), *old.content])
