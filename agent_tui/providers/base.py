"""The Provider protocol and the events every provider yields.

A provider turns a :class:`ProviderRequest` into an async stream of :data:`ProviderEvent`. Each API
has one pure reducer from its wire events (plain dicts) to these events, fed by either transport
(httpx SSE, or the official SDK). Failures are raised as ``errors.ProviderError`` subclasses; a
stream that breaks mid-way raises ``StreamInterrupted`` after yielding what arrived.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from agent_tui.conversation import Message


@dataclass(frozen=True)
class ToolSpec:
    """A tool as the model sees it."""

    name: str
    description: str
    input_schema: dict[str, Any]


@dataclass(frozen=True)
class ProviderRequest:
    """One request to the model: the system prompt, the messages, the tools and the settings."""

    model: str
    system: str
    messages: list[Message]
    tools: list[ToolSpec] = field(default_factory=list)
    max_tokens: int = 8192
    temperature: float | None = None
    thinking_budget: int | None = None
    reasoning_effort: str | None = None  # OpenAI reasoning models: minimal | low | medium | high
    # The provider's own web search, at most this many searches a request (0: not offered).
    web_search_uses: int = 0


@dataclass(frozen=True)
class TextDelta:
    """A fragment of the answer's text."""

    text: str


@dataclass(frozen=True)
class ThinkingDelta:
    """A piece of the model's reasoning. A ``signature`` closes a thinking block (Anthropic sends
    it last); ``redacted`` is a whole encrypted block (Anthropic's ``redacted_thinking`` data).
    Both must go back to the API unchanged in a tool-use loop."""

    text: str
    signature: str = ""
    redacted: str = ""
    encrypted: str = ""  # closes an OpenAI Responses reasoning item (its encrypted_content)


@dataclass(frozen=True)
class ToolCallStart:
    """A tool call begins: its index in the reply, its id and the tool's name."""

    index: int
    id: str
    name: str


@dataclass(frozen=True)
class ToolCallDelta:
    """A fragment of the arguments of the tool call at ``index``."""

    index: int
    arguments: str  # a fragment of the JSON arguments


@dataclass(frozen=True)
class ToolCallEnd:
    """The tool call at ``index`` has all its arguments."""

    index: int


@dataclass(frozen=True)
class Usage:
    """Tokens one request used, as the server counted them."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0  # part of output_tokens (OpenAI reports it apart)


@dataclass(frozen=True)
class Stop:
    """Why the reply ended (normalised to the Anthropic names)."""

    reason: str  # "end_turn" | "tool_use" | "max_tokens" | "stop_sequence" | "refusal" | other


@dataclass(frozen=True)
class ServerBlock:
    """A finished block of the provider's own tool, to keep in the answer and send back as is."""

    api: str  # "anthropic" | "responses"
    raw: dict[str, Any]


@dataclass(frozen=True)
class WebSource:
    """A page a web search found."""

    title: str
    url: str


@dataclass(frozen=True)
class WebSearch:
    """The provider searched the web (its server-side tool): the query and what it found."""

    query: str
    sources: tuple[WebSource, ...] = ()
    error: str = ""


@dataclass(frozen=True)
class Citation:
    """A source the answer's text cites."""

    url: str
    title: str = ""
    cited_text: str = ""


ProviderEvent = (
    TextDelta
    | ThinkingDelta
    | ToolCallStart
    | ToolCallDelta
    | ToolCallEnd
    | Usage
    | Stop
    | ServerBlock
    | WebSearch
    | Citation
)


class Provider(Protocol):
    name: str

    def stream(self, request: ProviderRequest) -> AsyncIterator[ProviderEvent]: ...

    async def aclose(self) -> None: ...
