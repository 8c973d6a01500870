"""Plain values exchanged between the MCP adapter and the rest of agent-tui.

The adapter (``agent_tui.mcp.adapter``) is the only module that sees the SDK's pydantic models; it
converts them to these frozen dataclasses so the manager, the tools, the commands and the UI never
depend on the SDK (or pay for importing it).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

# A prompt command's argument lives with the question event that asks for them; re-exported.
from agent_tui.events import PromptArg as PromptArg

if TYPE_CHECKING:
    from agent_tui.approvals.grants import GrantStore
    from agent_tui.approvals.types import Decision

PartKind = Literal["text", "image", "audio", "resource", "link"]


@dataclass(frozen=True)
class Part:
    """One content block of a tool result, prompt message or resource read.

    Args:
        kind: text, image, audio, resource (embedded or read contents) or link (resource_link).
        text: the text (text blocks and text resources).
        mime: the MIME type, when known.
        size: decoded size in bytes of binary data (images, audio, blob resources).
        uri: the resource's URI (resource and link).
        name: the link's name.
    """

    kind: PartKind
    text: str = ""
    mime: str = ""
    size: int = 0
    uri: str = ""
    name: str = ""
    binary: bool = False
    data: str = ""  # an image's base64 data, so that it can reach the model as an image

    def render(self) -> str:
        """This part as text for the model: text inline, binary summarised."""
        if self.kind == "text":
            return self.text
        if self.kind == "image":
            return f"[image: {self.mime or 'unknown type'}, {self.size} bytes]"
        if self.kind == "audio":
            # Neither the Anthropic nor the OpenAI API takes audio inside a tool result: say so
            # rather than let the model believe it heard something.
            return (
                f"[audio: {self.mime or 'unknown type'}, {self.size} bytes — not sent: "
                "the model API takes no audio in tool results]"
            )
        if self.kind == "link":
            mime = f" ({self.mime})" if self.mime else ""
            return f"[resource link: {self.name or self.uri} <{self.uri}>{mime}]"
        if self.binary:
            return f"[resource {self.uri}: {self.mime or 'binary'}, {self.size} bytes]"
        mime = f" ({self.mime})" if self.mime else ""
        return f"[resource {self.uri}{mime}]\n{self.text}"


def render_parts(parts: list[Part] | tuple[Part, ...]) -> str:
    return "\n".join(part.render() for part in parts)


@dataclass(frozen=True)
class ToolInfo:
    """A tool an MCP server lists: name, description, input schema and hints."""

    name: str
    description: str
    input_schema: dict[str, Any]
    title: str = ""
    read_only_hint: bool = False
    destructive_hint: bool | None = None


@dataclass(frozen=True)
class CallOutcome:
    """What an MCP tool call returned: its content parts, structured content and how it ended."""

    parts: tuple[Part, ...]
    structured: Any = None
    is_error: bool = False
    timed_out: bool = False
    needs_scope: bool = False  # 403 insufficient_scope: the user must sign in again


# A tool call's progress notifications: (progress, total or None, message).
ProgressHook = Callable[[float, float | None, str], None]


@dataclass(frozen=True)
class PromptInfo:
    """A prompt an MCP server lists, with the arguments it takes."""

    name: str
    description: str = ""
    title: str = ""
    arguments: tuple[PromptArg, ...] = ()


@dataclass(frozen=True)
class PromptMessage:
    """One message of an MCP prompt's result."""

    role: Literal["user", "assistant"]
    parts: tuple[Part, ...]


@dataclass(frozen=True)
class PromptResult:
    """An MCP prompt filled in with its arguments: the messages it gives."""

    description: str
    messages: tuple[PromptMessage, ...]


@dataclass(frozen=True)
class ResourceInfo:
    """A resource an MCP server lists: its URI, name and type."""

    uri: str
    name: str
    description: str = ""
    mime: str = ""
    title: str = ""


@dataclass(frozen=True)
class TemplateInfo:
    """A resource template an MCP server lists (a URI with placeholders)."""

    uri_template: str
    name: str
    description: str = ""
    mime: str = ""
    title: str = ""


@dataclass(frozen=True)
class ServerFeatures:
    """What the server said it supports (its capabilities)."""

    tools: bool = False
    prompts: bool = False
    resources: bool = False
    completions: bool = False
    name: str = ""
    version: str = ""
    instructions: str = ""


@dataclass(frozen=True)
class ElicitAnswer:
    """The user's answer to an elicitation form: accept (with content), decline or cancel."""

    action: Literal["accept", "decline", "cancel"]
    content: dict[str, Any] | None = None


@dataclass(frozen=True)
class SamplingRequest:
    """A server's ``sampling/createMessage`` request, flattened to text.

    ``messages`` are ``{"role": "user"|"assistant", "content": str}``; images and audio are
    summarised as ``[image: mime, N bytes]``.
    """

    messages: tuple[dict[str, str], ...]
    system: str
    max_tokens: int
    temperature: float | None = None
    model_hints: tuple[str, ...] = ()


@dataclass(frozen=True)
class SamplingAnswer:
    """The model's answer to an MCP server's sampling request, and the model that gave it."""

    text: str
    model: str


@dataclass(frozen=True)
class InputSpec:
    """A value a server's config takes from ``${input:ID}`` (an entry of VS Code's ``inputs``).

    Args:
        id: the ``ID`` in ``${input:ID}``.
        description: what to ask the user for.
        password: hide what is typed.
        default: pre-filled when asking; used as is when nobody can be asked.
        options: a ``pickString``'s choices (empty for a ``promptString``).
    """

    id: str
    description: str = ""
    password: bool = False
    default: str | None = None
    options: tuple[str, ...] = ()


# The UI's form for an elicitation: (server, message, requested JSON schema) -> answer.
ElicitHook = Callable[[str, str, dict[str, Any]], Awaitable[ElicitAnswer]]
# The UI's question for a URL-mode elicitation: (server, message, url) -> accept (opened),
# decline or cancel.
ElicitUrlHook = Callable[[str, str, str], Awaitable[ElicitAnswer]]
# The UI's consent question for a server's sampling request: (server, request) -> the answer, whose
# scope says how long an allow lasts (once, session, workspace, always).
SamplingConsentHook = Callable[[str, SamplingRequest], Awaitable["Decision"]]
# The UI's question for a ``${input:ID}`` value: (server, input) -> the value, None if cancelled.
InputHook = Callable[[str, InputSpec], Awaitable[str | None]]
# The configured model, injected by the app: (messages, system, max_tokens) -> text.
CompleteFn = Callable[[list[dict[str, str]], str, int], Awaitable[str]]


@dataclass
class McpHooks:
    """Callbacks the app fills in; anything left None is declined (headless mode).

    Args:
        on_elicit: show a form built from the schema and return the user's answer.
        on_elicit_url: show a server's URL and ask before opening it in the browser.
        ask_sampling: ask whether a server may use the model (asked until a lasting allow is given).
        complete: run the configured model for an allowed sampling request.
        ask_input: ask for a ``${input:ID}`` value a starting server needs (answers are kept for
            the session only, never written down: they are often secrets).
        model_name: reported back to the server as the sampling result's ``model``.
        grants: where lasting sampling allows are kept, beside the tools' grants (the approval
            engine's store, so ``/approvals`` lists them and ``/reset-confirmations`` clears them);
            None: the manager keeps its own store for the workspace.
    """

    on_elicit: ElicitHook | None = None
    on_elicit_url: ElicitUrlHook | None = None
    ask_sampling: SamplingConsentHook | None = None
    complete: CompleteFn | None = None
    ask_input: InputHook | None = None
    model_name: str = "agent-tui"
    grants: GrantStore | None = None
    # Servers the user refused this session: not asked again until restart (a deny is not stored).
    sampling_denied: set[str] = field(default_factory=set)


class ClientHandlers(Protocol):
    """What the adapter calls back into when a server talks to us (the manager implements it)."""

    async def elicit(self, message: str, schema: dict[str, Any]) -> ElicitAnswer: ...

    async def elicit_url(self, message: str, url: str) -> ElicitAnswer: ...

    async def sample(self, request: SamplingRequest) -> SamplingAnswer | None: ...

    def roots(self) -> list[tuple[str, str]]: ...

    def changed(self, kind: Literal["tools", "prompts", "resources"]) -> None: ...

    def log(self, text: str) -> None: ...

    def stray_output(self, line: str) -> None:
        """A stdout line that is not JSON-RPC (the server logs to the wrong stream)."""
        ...
