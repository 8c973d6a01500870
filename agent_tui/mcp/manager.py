"""Start, watch and stop MCP servers; keep their tools in the ToolRegistry.

Each server runs in its own asyncio task (the SDK's transports must be entered and left by one
task), started in the background so a session never waits for a server. The SDK is imported by the
first server task, never when no server is configured. A server that exits or drops its connection
is marked ``failed`` and its tools are withdrawn; ``restart()`` brings it back. A stdio server's
stderr, and our notes about each server, go to ``<state dir>/logs/mcp-<name>.log``. A server whose
config uses ``${input:ID}`` gets those values (``mcp.inputs``) as it starts, before its connect
timeout begins; one that cannot get them is marked ``failed``, saying how to supply them.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TextIO

from agent_tui.errors import McpError
from agent_tui.mcp.config import (
    DEFAULT_CONNECT_TIMEOUT_S,
    DEFAULT_STARTUP_WAIT_S,
    ServerConfig,
    connect_timeout,
    ignored_workspace_files,
    load_servers,
    startup_wait,
    user_input_values,
)
from agent_tui.mcp.inputs import InputValues, missing_message
from agent_tui.mcp.tools import McpTool, build_manifest, source_of
from agent_tui.mcp.types import (
    CallOutcome,
    ElicitAnswer,
    McpHooks,
    Part,
    ProgressHook,
    PromptInfo,
    PromptResult,
    ResourceInfo,
    SamplingAnswer,
    SamplingRequest,
    ServerFeatures,
    TemplateInfo,
    ToolInfo,
)
from agent_tui.paths import state_dir
from agent_tui.plural import plural
from agent_tui.state_files import private_dir, private_fd
from agent_tui.text_safety import one_line

if TYPE_CHECKING:
    from agent_tui.config import Config
    from agent_tui.mcp.adapter import Connection
    from agent_tui.tools.base import Manifest, Tool
    from agent_tui.tools.registry import ToolRegistry

logger = logging.getLogger(__name__)
Status = Literal["stopped", "starting", "running", "failed", "disabled"]
MAX_LOG_BYTES = 1_000_000
# How much longer than the connect timeout a wait for starting servers lasts before it gives up on
# them (inputs are asked before the connect timeout starts; headless asks none).
START_GRACE_S = 5.0
STRAY_LINE_CHARS = 500  # of a stdout line that is not JSON-RPC, in the server's log
STDERR_TAIL_LINES = 3  # of a failed stdio server's stderr, in its error
STDERR_TAIL_CHARS = 200  # per line
OUR_LOG_PREFIX = "[agent-tui "  # our own lines in a server's log (the rest is its stderr)


@dataclass
class ServerState:
    """What the manager knows about one server (read by ``/mcp`` and the UI)."""

    config: ServerConfig
    log_path: Path
    status: Status = "stopped"
    error: str = ""
    features: ServerFeatures = field(default_factory=ServerFeatures)
    tools: list[ToolInfo] = field(default_factory=list)
    prompts: list[PromptInfo] = field(default_factory=list)
    resources: list[ResourceInfo] = field(default_factory=list)
    templates: list[TemplateInfo] = field(default_factory=list)
    connection: Connection | None = None
    task: asyncio.Task[None] | None = None
    timed_out: bool = False
    stopping: bool = False
    # Lines it wrote to stdout that are not JSON-RPC (each in its log; one notice says so).
    stray_lines: int = 0

    @property
    def name(self) -> str:
        return self.config.name


class _Handlers:
    """The ClientHandlers of one server: requests and notifications from that server."""

    def __init__(self, manager: McpManager, state: ServerState) -> None:
        self.manager = manager
        self.state = state

    async def elicit(self, message: str, schema: dict[str, Any]) -> ElicitAnswer:
        hook = self.manager.hooks.on_elicit
        if hook is None:  # headless: nobody to fill in the form
            return ElicitAnswer("decline")
        return await hook(self.state.name, message, schema)

    async def elicit_url(self, message: str, url: str) -> ElicitAnswer:
        hook = self.manager.hooks.on_elicit_url
        if hook is None:  # headless: nobody to ask, and nothing is opened unasked
            self.log(f"declined a URL-mode elicitation (nobody to ask): {url}")
            return ElicitAnswer("decline")
        return await hook(self.state.name, message, url)

    async def sample(self, request: SamplingRequest) -> SamplingAnswer | None:
        return await self.manager.sample(self.state.name, request)

    def roots(self) -> list[tuple[str, str]]:
        root = self.manager.workspace.resolve()
        return [(root.as_uri(), root.name or str(root))]

    def changed(self, kind: Literal["tools", "prompts", "resources"]) -> None:
        self.manager.schedule_refresh(self.state, kind)

    def log(self, text: str) -> None:
        self.manager.write_log(self.state, text)

    def stray_output(self, line: str) -> None:
        self.state.stray_lines += 1
        self.log(f"stdout line that is not JSON-RPC, ignored: {one_line(line[:STRAY_LINE_CHARS])}")


class McpManager:
    """All MCP servers of a session.

    Args:
        servers: the configured servers by name (``config.load_servers``).
        tools: the agent's ToolRegistry; server tools are registered into it as they appear.
        workspace: the workspace root (the root offered to servers, stdio servers' default cwd).
        hooks: the UI's elicitation / sampling callbacks; unset ones decline.
        connect_timeout_s: how long a server may take to start and answer the handshake.
        log_dir: where server logs go (default ``<state dir>/logs``).
        input_values: reads ``[mcp.input_values]`` of the user's ``.agentrc`` (for ``${input:ID}``;
            called only when a starting server needs an input).
    """

    def __init__(
        self,
        servers: dict[str, ServerConfig],
        *,
        tools: ToolRegistry | None,
        workspace: Path,
        hooks: McpHooks | None = None,
        connect_timeout_s: float = DEFAULT_CONNECT_TIMEOUT_S,
        log_dir: Path | None = None,
        input_values: Callable[[], Mapping[str, str]] | None = None,
    ) -> None:
        self.registry = tools
        self.workspace = workspace
        self.hooks = hooks or McpHooks()
        self.connect_timeout_s = connect_timeout_s
        self._log_dir = log_dir
        self.inputs = InputValues(input_values)
        self.servers: dict[str, ServerState] = {
            name: ServerState(
                config, self._log_path(name), "disabled" if config.disabled else "stopped"
            )
            for name, config in servers.items()
        }
        self.notices: list[str] = []
        # How long a request waits for servers still starting (``[mcp] startup_wait_s``).
        self.startup_wait_s = DEFAULT_STARTUP_WAIT_S
        # Called with a server name whenever its state, tools, prompts or resources change.
        self.listeners: list[Callable[[str], None]] = []
        self._changed = asyncio.Condition()
        self._sampling_locks: dict[str, asyncio.Lock] = {}
        self._refreshes: set[asyncio.Task[None]] = set()
        # The app's API key variables: a stdio server gets one only if its entry's env names it.
        self.hidden_env: frozenset[str] = frozenset()

    @classmethod
    def from_config(
        cls, config: Config, tools: ToolRegistry | None, hooks: McpHooks | None = None
    ) -> McpManager:
        """The manager for a loaded Config (trust-gating the workspace's JSON files).

        Raises:
            ConfigError: a workspace MCP file or server entry is malformed.
        """
        section = config.section("mcp")
        servers = load_servers(section, config.workspace, trusted=config.trusted)
        manager = cls(
            servers,
            tools=tools,
            workspace=config.workspace,
            hooks=hooks,
            connect_timeout_s=connect_timeout(section),
            input_values=lambda: user_input_values(config),
        )
        manager.startup_wait_s = startup_wait(section)
        manager.hidden_env = frozenset(config.api_key_names)
        if "mcp.input_values" in config.ignored_user_only:
            manager.notices.append(
                ".agentrc: this workspace's [mcp.input_values] are ignored; only ~/.agentrc's apply."
            )
        for relative in ignored_workspace_files(config.workspace, trusted=config.trusted):
            manager.notices.append(
                f"{relative}: MCP servers not started because this folder is not trusted (/trust)."
            )
        return manager

    def _log_path(self, name: str) -> Path:
        folder = self._log_dir or state_dir() / "logs"
        safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)
        return folder / f"mcp-{safe}.log"

    # -- lifecycle ---------------------------------------------------------------------------

    def state(self, name: str) -> ServerState:
        """Raises McpError for an unknown server name."""
        try:
            return self.servers[name]
        except KeyError:
            known = ", ".join(sorted(self.servers)) or "none configured"
            raise McpError(f"no MCP server named {name!r} (servers: {known})") from None

    def start_all(self) -> None:
        """Start every enabled server in the background (call from inside the event loop)."""
        for name in self.servers:
            self.launch(name)

    def launch(self, name: str) -> None:
        """Start one stopped server in the background, without waiting for it."""
        state = self.state(name)
        if state.status == "stopped":
            self._launch(state)

    def _launch(self, state: ServerState) -> None:
        state.status, state.error, state.timed_out, state.stopping = "starting", "", False, False
        loop = asyncio.get_running_loop()
        state.task = loop.create_task(self._run(state), name=f"mcp:{state.name}")
        self._notify(state)

    def _connect_timed_out(self, state: ServerState, task: asyncio.Task[Any] | None) -> None:
        if task is not None and state.task is task and state.status == "starting":
            state.timed_out = True
            task.cancel()

    async def start(self, name: str) -> ServerState:
        """Start a server (if not running) and wait until it is running or has failed."""
        state = self.state(name)
        if state.status in ("stopped", "failed", "disabled"):
            self._launch(state)
        try:
            bound = self.connect_timeout_s + START_GRACE_S  # never outlives the connect timeout
            await self.wait_for(lambda: state.status in ("running", "failed"), bound)
        except TimeoutError:
            await self.stop(name)
            self._fail(state, f"did not start within {bound:g} s")
        return state

    async def stop(self, name: str) -> ServerState:
        state = self.state(name)
        task = state.task
        if task is not None and not task.done():
            state.stopping = True
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        state.status, state.error = "stopped", ""
        self._notify(state)
        return state

    async def restart(self, name: str) -> ServerState:
        await self.stop(name)
        return await self.start(name)

    async def aclose(self) -> None:
        """Stop every server (their processes end) and cancel pending refreshes."""
        for task in list(self._refreshes):
            task.cancel()
        # Concurrently: each stdio server may take a grace period to exit.
        await asyncio.gather(*(self.stop(name) for name in list(self.servers)))

    def starting(self) -> list[str]:
        """The servers still starting."""
        return [name for name, s in self.servers.items() if s.status == "starting"]

    async def wait_started(self, timeout: float | None = None) -> list[str]:
        """Wait until no server is still starting, for at most ``timeout`` seconds.

        Args:
            timeout: the bound; None: the connect timeout plus a grace period, after which a
                server still starting is stopped and marked ``failed`` (it can no longer connect
                in time, and a wait must never outlive it).

        Returns:
            The servers still starting when the bound was reached (none when ``timeout`` is None).
        """
        enforce = timeout is None
        bound = self.connect_timeout_s + START_GRACE_S if timeout is None else timeout
        try:
            await self.wait_for(lambda: not self.starting(), bound)
        except TimeoutError:
            pass
        late = self.starting()
        if enforce:
            for name in late:
                state = self.servers[name]
                if state.task is not None:
                    state.stopping = True  # its task's own failure must not overwrite ours
                    state.task.cancel()
                state.stopping = False
                self._fail(state, f"did not start within {bound:g} s")
            return []
        return late

    async def wait_for(self, predicate: Callable[[], bool], timeout: float | None = 60) -> None:
        """Wait until ``predicate()`` holds; it is re-checked after every state change.

        Raises:
            TimeoutError: it did not hold within ``timeout`` seconds.
        """
        async with asyncio.timeout(timeout):
            async with self._changed:
                await self._changed.wait_for(predicate)

    def _notify(self, state: ServerState) -> None:
        for listener in list(self.listeners):
            listener(state.name)

        async def pulse() -> None:
            async with self._changed:
                self._changed.notify_all()

        self._spawn(pulse())

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._refreshes.add(task)
        task.add_done_callback(self._refreshes.discard)

    def write_log(self, state: ServerState, text: str) -> None:
        with open(private_fd(state.log_path, append=True), "a", encoding="utf-8") as log:
            log.write(f"{OUR_LOG_PREFIX}{time.strftime('%H:%M:%S')}] {text}\n")

    def stray_output_notices(self, *, all_servers: bool = False) -> list[str]:
        """One line per server that wrote non-JSON-RPC lines to stdout (the lines are in its log);
        with ``all_servers``, one entry per server in order, "" for the quiet ones."""
        lines = [
            f"MCP server {name} wrote {plural(state.stray_lines, 'line')} to stdout that "
            f"{'is' if state.stray_lines == 1 else 'are'} not JSON-RPC (ignored; a server must "
            f"log to stderr); see {state.log_path}"
            if state.stray_lines
            else ""
            for name, state in self.servers.items()
        ]
        return lines if all_servers else [line for line in lines if line]

    async def _run(self, state: ServerState) -> None:
        if state.config.problem:  # a wrong entry fails alone; the other servers start
            self._fail(state, f"not started: {state.config.problem}")
            return
        config = await self._fill_inputs(state)
        if config is None:
            return
        # The connect timeout starts now: the user may take a while to answer an input's question.
        task = asyncio.current_task()
        loop = asyncio.get_running_loop()
        handle = loop.call_later(self.connect_timeout_s, self._connect_timed_out, state, task)
        try:
            await self._connect(state, config)
        finally:
            handle.cancel()
            # Whatever ended the task, a server is never left "starting" (waits would never end).
            if state.status == "starting" and not state.stopping:
                self._fail(state, self._timeout_reason() if state.timed_out else "did not start")

    def _timeout_reason(self) -> str:
        return f"did not connect within {self.connect_timeout_s:g} s"

    async def _fill_inputs(self, state: ServerState) -> ServerConfig | None:
        """The server's config with its ``${input:ID}`` values; None (and failed) if one is missing."""
        values: dict[str, str] = {}
        for spec in state.config.inputs:
            value = await self.inputs.value(state.name, spec, self.hooks.ask_input)
            if value is None:
                cancelled = self.hooks.ask_input is not None
                self._fail(state, missing_message(spec, cancelled=cancelled))
                return None
            values[spec.id] = value
        return state.config.with_inputs(values) if values else state.config

    def _open_log(self, state: ServerState) -> TextIO:
        """The server's log (the old one kept once when large), opened for its stderr."""
        private_dir(state.log_path.parent)
        if state.log_path.exists() and state.log_path.stat().st_size > MAX_LOG_BYTES:
            state.log_path.replace(state.log_path.with_suffix(".log.1"))  # keep one old log
        # The template, not ``config``: input values are often secrets.
        self.write_log(state, f"starting {state.config.describe()}")
        return open(private_fd(state.log_path, append=True), "a", encoding="utf-8", buffering=1)

    def _forget_lists(self, state: ServerState) -> None:
        """What a server offered went with it: /mcp must not count a dead server's old lists."""
        state.connection = None
        state.tools, state.prompts, state.resources, state.templates = [], [], [], []
        if self.registry is not None:
            self.registry.unregister_source(source_of(state.name))

    async def _connect(self, state: ServerState, config: ServerConfig) -> None:
        errlog = self._open_log(state)
        stderr_from = errlog.tell()  # what the server writes to stderr comes after this
        failure = ""
        exit_watch: Any = None
        try:
            # The SDK import (~1 s) happens only once a server starts, and in a thread so the
            # event loop (the TUI) keeps running meanwhile. Inside the try: the connect timeout
            # may fire while it runs, and must fail the server like any other timeout.
            adapter = await asyncio.to_thread(importlib.import_module, "agent_tui.mcp.adapter")
            exit_watch = adapter.ExitWatch()
            async with adapter.connect(
                config,
                _Handlers(self, state),
                errlog=errlog,
                workspace=self.workspace,
                exit_watch=exit_watch,
                hidden_env=self.hidden_env,
            ) as connection:
                state.connection = connection
                state.features = connection.features
                await self._refresh(state, "all")
                state.status = "running"
                self.write_log(state, f"connected: {plural(len(state.tools), 'tool')}")
                self._notify(state)
                await connection.wait_closed()
            failure = "the server closed the connection"
        except asyncio.CancelledError:
            if state.timed_out:
                failure = self._timeout_reason()
            elif not state.stopping:
                raise
        except Exception as exc:  # noqa: BLE001 - any failure of a server task marks it failed
            failure = describe_failure(exc)
            # Read before the traceback goes in: the tail must be the server's own words.
            failure += _how_it_ended(exit_watch, state.log_path, stderr_from)
            errlog.write("".join(traceback.format_exception(exc)))
        else:
            failure += _how_it_ended(exit_watch, state.log_path, stderr_from)
        finally:
            self._forget_lists(state)
            errlog.close()
        if failure:
            self._fail(state, failure)

    def _fail(self, state: ServerState, reason: str) -> None:
        if state.stopping:
            return
        state.status, state.error = "failed", reason
        self.write_log(state, f"failed: {reason}")
        logger.warning("MCP server %s failed: %s", state.name, reason)
        self._notify(state)

    # -- listings ----------------------------------------------------------------------------

    def schedule_refresh(self, state: ServerState, kind: str) -> None:
        if state.connection is not None and state.status == "running":
            self._spawn(self._refresh_logged(state, kind))

    async def _refresh_logged(self, state: ServerState, kind: str) -> None:
        try:
            await self._refresh(state, kind)
        except McpError as exc:
            self.write_log(state, f"refreshing {kind} failed: {exc}")
        self._notify(state)

    async def _refresh(self, state: ServerState, kind: str) -> None:
        connection = state.connection
        if connection is None:
            return
        features = connection.features
        if kind in ("tools", "all") and features.tools:
            state.tools = await connection.list_tools()
            self._register_tools(state)
        if kind in ("prompts", "all") and features.prompts:
            state.prompts = await connection.list_prompts()
        if kind in ("resources", "all") and features.resources:
            state.resources = await connection.list_resources()
            state.templates = await connection.list_templates()

    def _register_tools(self, state: ServerState) -> None:
        if self.registry is None:
            return
        self.registry.unregister_source(source_of(state.name))
        for info in state.tools:
            manifest = build_manifest(state.name, info)
            self.registry.register(manifest, self._factory(state.name, info.name))

    def _factory(self, server: str, tool: str) -> Callable[[Manifest], Tool]:
        def build(manifest: Manifest) -> Tool:
            return McpTool(manifest, self, server, tool)

        return build

    # -- requests ----------------------------------------------------------------------------

    def connection(self, name: str) -> Connection:
        """The live connection of a running server.

        Raises:
            McpError: the server is unknown, not started, or failed.
        """
        state = self.state(name)
        if state.connection is None or state.status != "running":
            detail = f": {state.error}" if state.error else ""
            raise McpError(f"MCP server {name!r} is {state.status}{detail}")
        return state.connection

    async def call_tool(
        self,
        server: str,
        tool: str,
        arguments: dict[str, Any],
        on_progress: ProgressHook | None = None,
    ) -> CallOutcome:
        """Call a server's tool, bounded by its ``call_timeout_s`` (restarted by progress)."""
        state = self.state(server)
        outcome = await self.connection(server).call_tool(
            tool, arguments, timeout=state.config.call_timeout_s, on_progress=on_progress
        )
        if outcome.timed_out:
            self.write_log(
                state, f"tools/call {tool}: no answer in {state.config.call_timeout_s:g} s"
            )
        if outcome.needs_scope:
            state.error = f"needs sign-in: /mcp login {server} (more permission for {tool})"
            self.write_log(state, f"tools/call {tool}: 403 insufficient_scope")
            self._notify(state)
            text = f"{tool}: needs more permission: the user must run /mcp login {server}"
            outcome = replace(outcome, parts=(Part("text", text=text),))
        return outcome

    async def get_prompt(self, server: str, prompt: str, arguments: dict[str, str]) -> PromptResult:
        return await self.connection(server).get_prompt(prompt, arguments)

    async def read_resource(self, server: str, uri: str) -> list[Part]:
        return await self.connection(server).read_resource(uri)

    async def complete(
        self,
        server: str,
        kind: Literal["prompt", "resource"],
        ref: str,
        argument: str,
        value: str,
        context: dict[str, str] | None = None,
    ) -> list[str]:
        """Suggestions for an argument of a prompt or resource template; [] if unsupported."""
        state = self.state(server)
        if state.connection is None or not state.features.completions:
            return []
        try:
            return await state.connection.complete(kind, ref, argument, value, context or {})
        except McpError as exc:
            self.write_log(state, f"completion/complete failed: {exc}")
            return []

    async def sample(self, server: str, request: SamplingRequest) -> SamplingAnswer | None:
        """Answer a server's sampling request if the user allows it.

        A lasting allow is a grant (``SAMPLING_GRANT`` for the server) kept like a tool's; a deny
        holds for the rest of the session. None: declined.
        """
        from agent_tui.approvals.grants import SAMPLING_GRANT, GrantStore
        from agent_tui.approvals.types import Scope

        hooks = self.hooks
        if hooks.complete is None:
            return None
        if hooks.grants is None:
            hooks.grants = GrantStore(self.workspace)
        lock = self._sampling_locks.setdefault(server, asyncio.Lock())
        async with lock:  # two concurrent first requests ask once
            if server in hooks.sampling_denied:
                return None
            granted = any(g.pattern == server for g in hooks.grants.for_tool(SAMPLING_GRANT))
            if not granted:
                if hooks.ask_sampling is None:
                    return None
                decision = await hooks.ask_sampling(server, request)
                if not decision.allow:
                    hooks.sampling_denied.add(server)
                    return None
                if decision.scope is not Scope.ONCE:
                    hooks.grants.remember(decision.scope, SAMPLING_GRANT, server)
        text = await hooks.complete(list(request.messages), request.system, request.max_tokens)
        return SamplingAnswer(text, hooks.model_name)


def _stderr_tail(log_path: Path, start: int) -> list[str]:
    """The last lines a server wrote to stderr since ``start`` (its log, without our own lines)."""
    try:
        with open(log_path, "rb") as log:
            log.seek(start)
            text = log.read().decode("utf-8", "replace")
    except OSError:
        return []
    lines = [line for line in text.splitlines() if line.strip()]
    theirs = [line for line in lines if not line.startswith(OUR_LOG_PREFIX)]
    return [one_line(line[:STDERR_TAIL_CHARS]) for line in theirs[-STDERR_TAIL_LINES:]]


def _how_it_ended(exit_watch: Any, log_path: Path, stderr_from: int) -> str:
    """``; exited with status 3; stderr ends: "..." | "..."`` for a failed stdio server, or ""."""
    parts = []
    status = exit_watch.describe() if exit_watch is not None else ""
    if status:
        parts.append(status)
    tail = _stderr_tail(log_path, stderr_from)
    if tail:
        parts.append("stderr ends: " + " | ".join(f'"{line}"' for line in tail))
    return "".join(f"; {part}" for part in parts)


def _describe(exc: BaseException) -> str:
    """The innermost meaningful message of an exception (groups from anyio task groups)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def _sign_in_needed(exc: BaseException | None, depth: int = 0) -> McpError | None:
    """A ``SignInRequired`` anywhere in ``exc`` (the SDK wraps it in groups and MCP errors)."""
    if exc is None or depth > 10:
        return None
    if isinstance(exc, McpError) and type(exc).__name__ == "SignInRequired":
        return exc  # matched by name: importing mcp.oauth here would import the SDK
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            found = _sign_in_needed(inner, depth + 1)
            if found is not None:
                return found
    return _sign_in_needed(exc.__cause__ or exc.__context__, depth + 1)


def describe_failure(exc: BaseException) -> str:
    """What a failed connection says to the user: "needs sign-in: ..." or the innermost error."""
    needed = _sign_in_needed(exc)
    return str(needed) if needed is not None else _describe(exc)
