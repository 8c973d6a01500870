"""The one module that imports the ``mcp`` SDK (2.x): connect to a server and talk to it.

Everything crossing this boundary is converted to ``agent_tui.mcp.types``. Importing the SDK costs
about a second, so this module is imported only when a configured server starts (never at startup).

A connection lives inside one task (the SDK's transports are anyio task groups that must be entered
and exited by the same task); other tasks send requests through it. When the transport's read
stream ends (a stdio server exited, an HTTP session broke) ``Connection.wait_closed()`` returns.
"""

from __future__ import annotations

import base64
import binascii
import logging
import os
import signal
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, TextIO, TypeVar

import anyio
import httpx2
import mcp.client.stdio
import mcp_types as mt
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.sse import sse_client
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from pydantic import ValidationError

from agent_tui import __version__
from agent_tui.errors import McpError
from agent_tui.mcp.config import ServerConfig
from agent_tui.mcp.oauth import SignIn, http_auth, step_up_refused
from agent_tui.mcp.types import (
    CallOutcome,
    ClientHandlers,
    Part,
    ProgressHook,
    PromptArg,
    PromptInfo,
    PromptMessage,
    PromptResult,
    ResourceInfo,
    SamplingRequest,
    ServerFeatures,
    TemplateInfo,
    ToolInfo,
)
from agent_tui.subreaper import SERVER_MARKER_ENV

logger = logging.getLogger(__name__)
_T = TypeVar("_T")
MAX_PAGES = 100  # a server whose cursor never ends cannot hang a listing
USER_REJECTED = -1  # the spec's error code for "the user rejected the sampling request"

# After closing a stdio server's stdin the SDK waits this long before SIGTERM (then SIGKILL 2 s
# later). Its 2 s default made every /mcp restart and every exit wait 2 s for servers that keep
# running when stdin closes (server-everything does); SIGTERM is still a graceful request.
mcp.client.stdio.PROCESS_TERMINATION_TIMEOUT = 0.5

# The SDK logs every stdout line that is not JSON-RPC with a full traceback (11 lines each), which
# Python's last-resort handler prints on stderr, over the app and into a script's output. The
# line itself reaches us as a message (``on_message``) and goes to that server's log, once.
_PARSE_FAILURE = "Failed to parse JSONRPC message from server"
logging.getLogger("mcp.client.stdio").addFilter(
    lambda record: record.getMessage() != _PARSE_FAILURE
)


class ExitWatch:
    """The stdio server process a connection started, to say how it ended (``describe``)."""

    def __init__(self) -> None:
        self.process: Any = None

    def describe(self) -> str:
        """``exited with status 3``, ``killed by SIGKILL``, or "" (no process, or still running)."""
        code = getattr(self.process, "returncode", None)
        if code is None:
            return ""
        if code < 0:
            try:
                return f"killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"killed by signal {-code}"
        return f"exited with status {code}"


# The SDK keeps its server process to itself; this wrapper around its spawn function hands the
# process to the connection's ExitWatch (a context variable: each server runs in its own task).
_EXIT_WATCH: ContextVar[ExitWatch | None] = ContextVar("mcp_exit_watch", default=None)
_sdk_spawn = mcp.client.stdio._create_platform_compatible_process


async def _spawn_watched(*args: Any, **kwargs: Any) -> Any:
    process = await _sdk_spawn(*args, **kwargs)
    watch = _EXIT_WATCH.get()
    if watch is not None:
        watch.process = process
    return process


mcp.client.stdio._create_platform_compatible_process = _spawn_watched


def _stray_line(error: Exception) -> str | None:
    """The stdout line behind a transport parse error (not JSON, not JSON-RPC); else None."""
    if not isinstance(error, ValidationError):
        return None
    for detail in error.errors():
        if isinstance(detail.get("input"), str):
            return str(detail["input"])
    return ""


def _b64_size(data: str) -> int:
    try:
        return len(base64.b64decode(data, validate=False))
    except (binascii.Error, ValueError):
        return len(data) * 3 // 4


_TEXT_MIME_SUFFIXES = ("json", "xml", "yaml", "javascript", "toml", "csv", "markdown", "x-sh")


def _blob_text(data: str, mime: str) -> str | None:
    """A base64 blob of a text MIME type as text (servers send files as blobs); else None."""
    kind = mime.split(";")[0].strip().lower()
    if not (kind.startswith("text/") or kind.endswith(_TEXT_MIME_SUFFIXES)):
        return None
    try:
        return base64.b64decode(data, validate=True).decode("utf-8")
    except (binascii.Error, ValueError):  # not base64, or not UTF-8: left as binary
        return None


def _part(block: Any) -> Part:
    """Convert one SDK content block (or resource contents) to a Part."""
    if isinstance(block, mt.TextContent):
        return Part("text", text=block.text)
    if isinstance(block, mt.ImageContent):
        size = _b64_size(block.data)
        return Part("image", mime=block.mime_type, size=size, binary=True, data=block.data)
    if isinstance(block, mt.AudioContent):
        return Part(block.type, mime=block.mime_type, size=_b64_size(block.data), binary=True)
    if isinstance(block, mt.ResourceLink):
        return Part("link", uri=str(block.uri), name=block.name, mime=block.mime_type or "")
    if isinstance(block, mt.EmbeddedResource):
        return _part(block.resource)
    if isinstance(block, mt.TextResourceContents):
        return Part("resource", text=block.text, uri=str(block.uri), mime=block.mime_type or "")
    if isinstance(block, mt.BlobResourceContents):
        text = _blob_text(block.blob, block.mime_type or "")
        if text is not None:
            return Part("resource", text=text, uri=str(block.uri), mime=block.mime_type or "")
        return Part(
            "resource",
            uri=str(block.uri),
            mime=block.mime_type or "",
            size=_b64_size(block.blob),
            binary=True,
        )
    return Part(
        "text", text=f"[unsupported content: {getattr(block, 'type', type(block).__name__)}]"
    )


def _sampling_request(params: mt.CreateMessageRequestParams) -> SamplingRequest:
    messages = []
    for message in params.messages:
        blocks = message.content if isinstance(message.content, list) else [message.content]
        text = "\n".join(_part(block).render() for block in blocks)
        messages.append({"role": message.role, "content": text})
    hints: tuple[str, ...] = ()
    if params.model_preferences and params.model_preferences.hints:
        hints = tuple(h.name for h in params.model_preferences.hints if h.name)
    return SamplingRequest(
        messages=tuple(messages),
        system=params.system_prompt or "",
        max_tokens=params.max_tokens,
        temperature=params.temperature,
        model_hints=hints,
    )


# Locale on top of the SDK's safe set (HOME, LOGNAME, PATH, SHELL, TERM, USER), so a server
# reads and prints UTF-8 as it would in the user's shell.
_LOCALE_PREFIXES = ("LANG", "LC_")


def server_environment(
    configured: dict[str, str], hidden: frozenset[str] = frozenset()
) -> dict[str, str]:
    """A stdio server's environment: the SDK's safe default, the locale, and its config's ``env``.

    Never the whole ``os.environ``: API keys and tokens the user exported reach a server only
    when its entry names them (``env = { GITHUB_TOKEN = "${env:GITHUB_TOKEN}" }``). ``hidden``
    (the app's API key variables) is dropped from the default part whatever the names.
    """
    locale = {k: v for k, v in os.environ.items() if k.startswith(_LOCALE_PREFIXES)}
    default = {**mcp.client.stdio.get_default_environment(), **locale}
    return {
        **{k: v for k, v in default.items() if k not in hidden},
        **configured,
        SERVER_MARKER_ENV: str(os.getpid()),
    }


def sandboxed_server(argv: list[str], workspace: Path) -> list[str]:
    """A stdio server's command inside the session's sandbox (``sandbox = true``): the
    workspace writable, no network. Never unsandboxed when asked for.

    Raises:
        McpError: the sandbox cannot run here, or is off for this session.
    """
    from agent_tui.sandbox.runtime import current

    sandbox = current()
    if sandbox is None or not sandbox.active:
        why = sandbox.notice() if sandbox is not None else None
        raise McpError(
            "its config says sandbox = true, and the sandbox is "
            + (why or "off in this session (--sandbox off / [sandbox] mode)")
        )
    return sandbox.wrap_server(argv, workspace)


def _transport(
    config: ServerConfig,
    errlog: TextIO,
    cwd: Path,
    auth: httpx2.Auth | None,
    hidden_env: frozenset[str] = frozenset(),
) -> Any:
    if config.type == "stdio":
        command, args = config.command, list(config.args)
        if config.sandbox:
            command, *args = sandboxed_server([command, *args], cwd)
        params = StdioServerParameters(
            command=command,
            args=args,
            env=server_environment(config.env, hidden_env),
            cwd=str(cwd / config.cwd) if config.cwd else str(cwd),
        )
        return stdio_client(params, errlog=errlog)
    if config.type == "sse":
        return sse_client(config.url, headers=config.headers or None, auth=auth)
    # The SDK's own factory (its ClientSessionGroup uses it too): MCP's recommended timeouts.
    return streamable_http_client(
        config.url, http_client=create_mcp_http_client(headers=config.headers, auth=auth)
    )


@asynccontextmanager
async def _watched(transport: Any, lost: anyio.Event) -> AsyncIterator[Any]:
    """Pass a transport's streams through, setting ``lost`` when its read stream ends."""
    async with transport as (read_stream, write_stream):
        relay_in, relay_out = anyio.create_memory_object_stream[Any](0)

        async def pump() -> None:
            try:
                async with relay_in:
                    async for item in read_stream:
                        await relay_in.send(item)
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
                pass
            finally:
                lost.set()

        async with anyio.create_task_group() as group:
            group.start_soon(pump)
            try:
                yield relay_out, write_stream
            finally:
                group.cancel_scope.cancel()


class Connection:
    """A live session with one server. Methods raise ``McpError`` on any protocol failure."""

    def __init__(self, client: Client, lost: anyio.Event, auth: httpx2.Auth | None = None) -> None:
        self._client = client
        self._lost = lost
        self._auth = auth
        caps = client.server_capabilities
        info = client.server_info
        self.features = ServerFeatures(
            tools=caps.tools is not None,
            prompts=caps.prompts is not None,
            resources=caps.resources is not None,
            completions=caps.completions is not None,
            name=info.name if info else "",
            version=info.version if info else "",
            instructions=client.instructions or "",
        )

    async def wait_closed(self) -> None:
        await self._lost.wait()

    async def _guard(self, call: Awaitable[_T]) -> _T:
        try:
            return await call
        except MCPError as exc:
            raise McpError(exc.error.message if exc.error else str(exc)) from exc
        except ValidationError as exc:
            raise McpError(f"the server answered with an invalid message: {exc}") from exc
        except (anyio.ClosedResourceError, anyio.BrokenResourceError) as exc:
            raise McpError("the connection to the server is closed") from exc

    async def _pages(self, fetch: Callable[[str | None], Awaitable[Any]], attr: str) -> list[Any]:
        items: list[Any] = []
        cursor: str | None = None
        for _ in range(MAX_PAGES):
            page = await self._guard(fetch(cursor))
            items.extend(getattr(page, attr))
            cursor = page.next_cursor
            if not cursor:
                break
        return items

    async def list_tools(self) -> list[ToolInfo]:
        tools = await self._pages(lambda c: self._client.list_tools(cursor=c), "tools")
        out = []
        for tool in tools:
            ann = tool.annotations
            out.append(
                ToolInfo(
                    name=tool.name,
                    description=tool.description or "",
                    input_schema=dict(tool.input_schema or {"type": "object"}),
                    title=tool.title or (ann.title if ann and ann.title else ""),
                    read_only_hint=bool(ann and ann.read_only_hint),
                    destructive_hint=ann.destructive_hint if ann else None,
                )
            )
        return out

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any],
        *,
        timeout: float,
        on_progress: ProgressHook | None = None,
    ) -> CallOutcome:
        """Call a tool; a call silent for ``timeout`` seconds is cancelled and answers an error.

        Every progress notification restarts the timeout (a long job that reports is not
        abandoned). Cancelling sends ``notifications/cancelled`` (the SDK does, on cancellation).
        """
        with anyio.CancelScope() as scope:
            scope.deadline = anyio.current_time() + timeout

            async def reported(progress: float, total: float | None, message: str | None) -> None:
                scope.deadline = anyio.current_time() + timeout
                if on_progress is not None:
                    on_progress(progress, total, message or "")

            # The progress callback also makes the SDK send a progressToken with the call.
            try:
                result = await self._guard(
                    self._client.call_tool(name, arguments, progress_callback=reported)
                )
            except McpError:
                if not step_up_refused(self._auth):
                    raise
                return _needs_scope()
            except RuntimeError as exc:
                return _broke_output_schema(exc)
        if scope.cancelled_caught:
            text = (
                f"The tool did not answer within {timeout:g} s (nor report progress), so the "
                "call was cancelled."
            )
            return CallOutcome(parts=(Part("text", text=text),), is_error=True, timed_out=True)
        return CallOutcome(
            parts=tuple(_part(block) for block in result.content),
            structured=result.structured_content,
            is_error=bool(result.is_error),
        )

    async def list_prompts(self) -> list[PromptInfo]:
        prompts = await self._pages(lambda c: self._client.list_prompts(cursor=c), "prompts")
        return [
            PromptInfo(
                name=p.name,
                description=p.description or "",
                title=p.title or "",
                arguments=tuple(
                    PromptArg(a.name, a.description or "", bool(a.required))
                    for a in p.arguments or ()
                ),
            )
            for p in prompts
        ]

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> PromptResult:
        result = await self._guard(self._client.get_prompt(name, arguments))
        messages = tuple(PromptMessage(m.role, (_part(m.content),)) for m in result.messages)
        return PromptResult(result.description or "", messages)

    async def complete(
        self, kind: str, ref: str, argument: str, value: str, context: dict[str, str]
    ) -> list[str]:
        reference: mt.PromptReference | mt.ResourceTemplateReference
        if kind == "prompt":
            reference = mt.PromptReference(type="ref/prompt", name=ref)
        else:
            reference = mt.ResourceTemplateReference(type="ref/resource", uri=ref)
        result = await self._guard(
            self._client.complete(reference, {"name": argument, "value": value}, context or None)
        )
        return list(result.completion.values)

    async def list_resources(self) -> list[ResourceInfo]:
        found = await self._pages(lambda c: self._client.list_resources(cursor=c), "resources")
        return [
            ResourceInfo(str(r.uri), r.name, r.description or "", r.mime_type or "", r.title or "")
            for r in found
        ]

    async def list_templates(self) -> list[TemplateInfo]:
        found = await self._pages(
            lambda c: self._client.list_resource_templates(cursor=c), "resource_templates"
        )
        return [
            TemplateInfo(
                t.uri_template, t.name, t.description or "", t.mime_type or "", t.title or ""
            )
            for t in found
        ]

    async def read_resource(self, uri: str) -> list[Part]:
        result = await self._guard(self._client.read_resource(uri))
        return [_part(contents) for contents in result.contents]


def _needs_scope() -> CallOutcome:
    """The server wants a wider scope than the token has (403 insufficient_scope): this call
    fails, the connection and the other tools go on."""
    text = "The server wants more permission (a wider OAuth scope) for this tool."
    return CallOutcome(parts=(Part("text", text=text),), is_error=True, needs_scope=True)


def _broke_output_schema(exc: RuntimeError) -> CallOutcome:
    """The SDK checks structuredContent against the tool's outputSchema (jsonschema, imported
    on first use) and raises RuntimeError when it does not match."""
    reason = str(exc).splitlines()[0]
    text = f"The tool's structured result broke its declared outputSchema: {reason}"
    return CallOutcome(parts=(Part("text", text=text),), is_error=True)


def _callbacks(handlers: ClientHandlers, listening: anyio.Event) -> dict[str, Any]:
    """The SDK callbacks, each a thin conversion around a ClientHandlers method."""

    async def on_elicit(_ctx: Any, params: Any) -> mt.ElicitResult | mt.ErrorData:
        if isinstance(params, mt.ElicitRequestURLParams):
            # URL mode (a sign-in or payment page): the user sees the URL and decides.
            answer = await handlers.elicit_url(params.message, params.url)
            return mt.ElicitResult(action=answer.action)
        answer = await handlers.elicit(params.message, dict(params.requested_schema))
        content = answer.content if answer.action == "accept" else None
        return mt.ElicitResult(action=answer.action, content=content)

    async def on_sampling(_ctx: Any, params: mt.CreateMessageRequestParams) -> Any:
        answer = await handlers.sample(_sampling_request(params))
        if answer is None:
            return mt.ErrorData(
                code=USER_REJECTED, message="The user declined the sampling request"
            )
        return mt.CreateMessageResult(
            role="assistant",
            content=mt.TextContent(type="text", text=answer.text),
            model=answer.model,
            stop_reason="endTurn",
        )

    async def on_roots(_ctx: Any) -> mt.ListRootsResult:
        return mt.ListRootsResult(
            roots=[mt.Root(uri=uri, name=name) for uri, name in handlers.roots()]  # type: ignore[arg-type]
        )

    async def on_log(params: mt.LoggingMessageNotificationParams) -> None:
        handlers.log(f"[{params.level}] {params.logger or 'server'}: {params.data}")

    async def on_message(message: Any) -> None:
        _on_message(handlers, listening, message)

    return {
        "elicitation_callback": on_elicit,
        "sampling_callback": on_sampling,
        "list_roots_callback": on_roots,
        "logging_callback": on_log,
        "message_handler": on_message,
    }


def _on_message(handlers: ClientHandlers, listening: anyio.Event, message: Any) -> None:
    """A server's notification or a transport error (stray output on stdout among them)."""
    if listening.is_set() and not isinstance(message, Exception):
        return  # a listen stream (2026-07-28) delivers the changes; these are its copies
    if isinstance(message, mt.ToolListChangedNotification):
        handlers.changed("tools")
    elif isinstance(message, mt.PromptListChangedNotification):
        handlers.changed("prompts")
    elif isinstance(message, mt.ResourceListChangedNotification):
        handlers.changed("resources")
    elif isinstance(message, Exception):
        stray = _stray_line(message)
        if stray is not None:
            handlers.stray_output(stray)
        else:
            handlers.log(f"transport error: {message!r}")


async def _listen(client: Client, handlers: ClientHandlers, listening: anyio.Event) -> None:
    """Receive list changes on a 2026-07-28 connection, which sends them only to a listen stream."""
    from mcp.client.subscriptions import (
        PromptsListChanged,
        ResourcesListChanged,
        SubscriptionLost,
        ToolsListChanged,
    )

    kinds = {
        ToolsListChanged: "tools",
        PromptsListChanged: "prompts",
        ResourcesListChanged: "resources",
    }
    try:
        async with client.listen(
            tools_list_changed=True, prompts_list_changed=True, resources_list_changed=True
        ) as subscription:
            listening.set()
            async for event in subscription:
                kind = kinds.get(type(event))
                if kind is not None:
                    handlers.changed(kind)  # type: ignore[arg-type]
    except (MCPError, SubscriptionLost, TimeoutError) as exc:
        # No change notifications then; the connection itself may still be fine.
        handlers.log(f"subscriptions/listen ended: {exc!r}")


async def _auth(config: ServerConfig, sign_in: SignIn | None) -> httpx2.Auth | None:
    if config.type == "stdio" or any(k.lower() == "authorization" for k in config.headers):
        return None  # a configured Authorization header is the user's choice of credentials
    return await http_auth(config, sign_in)


@asynccontextmanager
async def connect(
    config: ServerConfig,
    handlers: ClientHandlers,
    *,
    errlog: TextIO,
    workspace: Path,
    sign_in: SignIn | None = None,
    exit_watch: ExitWatch | None = None,
    hidden_env: frozenset[str] = frozenset(),
) -> AsyncIterator[Connection]:
    """Start (stdio) or reach (HTTP) the server, run the handshake, and yield the Connection.

    Enter and exit in the same task; cancel that task to disconnect.

    Args:
        sign_in: the browser step of an OAuth sign-in the user asked for (``mcp.login``); None:
            an HTTP server that wants one fails with ``SignInRequired``.
        exit_watch: receives a stdio server's process, to tell how it ended.
        hidden_env: variables (the app's API keys) a stdio server gets only if its ``env`` names
            them.

    Raises:
        OSError: a stdio command cannot be started.
        Exception: transport failures surface as the SDK raised them (often an ExceptionGroup).
    """
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    lost = anyio.Event()
    listening = anyio.Event()
    auth = await _auth(config, sign_in)
    _EXIT_WATCH.set(exit_watch)
    client = Client(
        _watched(_transport(config, errlog, workspace, auth, hidden_env), lost),
        client_info=mt.Implementation(name="agent-tui", version=__version__),
        # The response cache would serve stale listings after list_changed; we re-list ourselves.
        cache=None,
        **_callbacks(handlers, listening),
    )
    async with client, anyio.create_task_group() as group:
        if client.protocol_version in MODERN_PROTOCOL_VERSIONS:
            group.start_soon(_listen, client, handlers, listening)
        try:
            yield Connection(client, lost, auth)
        finally:
            group.cancel_scope.cancel()
