"""The conversation: provider-neutral messages that serialise to JSON.

Shaped like the Anthropic Messages API (content blocks), which maps losslessly to OpenAI Chat
Completions: each provider module converts to its own wire format.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal


@dataclass(frozen=True)
class TextBlock:
    text: str
    type: Literal["text"] = "text"


@dataclass(frozen=True)
class ThinkingBlock:
    text: str
    signature: str = ""
    redacted: str = ""  # the data of a redacted_thinking block (then text is empty)
    type: Literal["thinking"] = "thinking"


@dataclass(frozen=True)
class ToolUseBlock:
    id: str
    name: str
    input: dict[str, Any]
    type: Literal["tool_use"] = "tool_use"


@dataclass(frozen=True)
class ToolResultBlock:
    tool_use_id: str
    content: str
    is_error: bool = False
    type: Literal["tool_result"] = "tool_result"


Block = TextBlock | ThinkingBlock | ToolUseBlock | ToolResultBlock
_BLOCK_TYPES: dict[str, type[Any]] = {
    "text": TextBlock,
    "thinking": ThinkingBlock,
    "tool_use": ToolUseBlock,
    "tool_result": ToolResultBlock,
}


@dataclass(frozen=True)
class Message:
    """One message of the conversation; never changed once made.

    A request holds the same Message objects as the conversation it was built from, so a change
    made to one in place would rewrite a request already sent (that is how a prompt once reached
    the model twice). ``content`` is copied on construction and typed read-only.
    """

    role: Literal["user", "assistant"]
    content: Sequence[Block] = field(default_factory=list)

    def __post_init__(self) -> None:
        object.__setattr__(self, "content", list(self.content))

    @property
    def text(self) -> str:
        return "".join(b.text for b in self.content if isinstance(b, TextBlock))

    @property
    def is_empty_answer(self) -> bool:
        """An assistant message neither API can carry: no visible text and no tool call.

        Both APIs drop such a message on the wire (Anthropic rejects whitespace-only text and
        unsigned thinking), which would leave two user messages in a row.
        """
        return not self.tool_uses and not self.text.strip()

    @property
    def tool_uses(self) -> list[ToolUseBlock]:
        return [b for b in self.content if isinstance(b, ToolUseBlock)]

    def to_dict(self) -> dict[str, Any]:
        return {"role": self.role, "content": [asdict(b) for b in self.content]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Message:
        blocks = [_BLOCK_TYPES[b["type"]](**b) for b in data["content"]]
        return cls(role=data["role"], content=blocks)


SUMMARY_HEADER = "Summary of the earlier conversation:"


def user_text(text: str) -> Message:
    return Message("user", [TextBlock(text)])


@dataclass
class Conversation:
    """The trajectory of a session: the list of messages, in order."""

    messages: list[Message] = field(default_factory=list)

    def append(self, message: Message) -> None:
        self.messages.append(message)

    def append_user(self, message: Message) -> None:
        """Append a user message, merging into a trailing user message.

        After a cancel the conversation may end on a user message (the calls' results): the next
        request joins it, since both APIs want user and assistant to alternate. The merged message
        is a new object: requests already built keep the old one.
        """
        last = self.messages[-1] if self.messages else None
        if last is not None and last.role == "user":
            # Tool results lead a user message (the Anthropic API rejects them after text).
            blocks = [*last.content, *message.content]
            results = [b for b in blocks if isinstance(b, ToolResultBlock)]
            rest = [b for b in blocks if not isinstance(b, ToolResultBlock)]
            self.messages[-1] = Message("user", [*results, *rest])
        else:
            self.messages.append(message)

    def checkpoint(self) -> list[Message]:
        """The conversation as it is now, for :meth:`restore` (messages are immutable)."""
        return list(self.messages)

    def restore(self, checkpoint: list[Message]) -> None:
        """Go back to a :meth:`checkpoint`: a turn the model never answered leaves no trace."""
        self.messages[:] = checkpoint

    def replace_last(self, message: Message) -> None:
        """Put ``message`` in place of the last message (e.g. tool inputs the user edited)."""
        self.messages[-1] = message

    def clear(self) -> None:
        self.messages.clear()

    def truncate(self, n: int) -> None:
        """Keep ``messages[:n]`` (restoring a rewound conversation; a session's ``rewind`` line)."""
        del self.messages[n:]

    def compact(self, upto: int, summary: str) -> None:
        """Replace ``messages[:upto]`` with one user message holding ``summary``.

        ``upto`` must fall on a user-turn boundary so no tool_use loses its result. (Helper C
        owns the full version of this method; this is the minimal one the session loader needs.)
        """
        text = f"{SUMMARY_HEADER}\n\n{summary}"
        self.messages[:upto] = [Message("user", [TextBlock(text)])]

    def to_json(self) -> list[dict[str, Any]]:
        return [m.to_dict() for m in self.messages]

    @classmethod
    def from_json(cls, data: list[dict[str, Any]]) -> Conversation:
        return cls([Message.from_dict(m) for m in data])

    def unanswered_tool_uses(self) -> list[ToolUseBlock]:
        """Tool calls of the last assistant message with no result yet (after a cancel)."""
        if not self.messages or self.messages[-1].role != "assistant":
            return []
        return self.messages[-1].tool_uses
