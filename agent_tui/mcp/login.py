"""Signing in to an OAuth-protected MCP server: ``agent-tui mcp login|logout NAME``, ``/mcp login``.

A sign-in opens the authorization URL with Python's ``webbrowser`` (so ``$BROWSER`` is honoured),
also prints it, and takes the redirect on a one-shot HTTP server on 127.0.0.1 (a free port). The
redirect must carry the ``state`` of this sign-in's authorization URL: anything else gets 400 and the
sign-in goes on waiting for the real one (any local program or web page can reach the port, and
must not be able to end, or steer, a sign-in it did not start).
Then the server's MCP handshake runs once with the new tokens, which the token store keeps.
"""

from __future__ import annotations

import asyncio
import io
import sys
import webbrowser
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import parse_qs, urlsplit

from mcp.shared.auth import AuthorizationCodeResult

from agent_tui.errors import McpError, UsageError
from agent_tui.mcp.config import ServerConfig
from agent_tui.mcp.oauth import SignIn, TokenStore
from agent_tui.mcp.types import ElicitAnswer, SamplingAnswer, SamplingRequest
from agent_tui.plural import plural
from agent_tui.text_safety import visible

if TYPE_CHECKING:
    from agent_tui.mcp.manager import McpManager

CALLBACK_PATH = "/callback"
SIGN_IN_TIMEOUT_S = 300.0  # the user has five minutes in the browser
_PAGE = (
    "<!doctype html><meta charset=utf-8><title>agent-tui</title>"
    "<p>{text}</p><p>You can close this tab and return to agent-tui.</p>"
)


class _Callback:
    """The redirect an authorization waits for (one per authorization: a step-up asks again)."""

    def __init__(self) -> None:
        self.result: asyncio.Future[AuthorizationCodeResult] = (
            asyncio.get_running_loop().create_future()
        )
        # The ``state`` of the authorization URL last opened; None: it carried none (any goes).
        self.state: str | None = None

    def rearm(self, authorization_url: str) -> None:
        if self.result.done():
            self.result = asyncio.get_running_loop().create_future()
        self.state = parse_qs(urlsplit(authorization_url).query).get("state", [None])[0]

    def _answer(self, query: dict[str, str]) -> tuple[str, str]:
        """The HTTP status and page for a redirect to the callback path; completes the wait when
        it is this sign-in's."""
        if self.state is not None and query.get("state") != self.state:
            return "400 Bad Request", "This is not the sign-in agent-tui is waiting for."
        if "error" in query:
            detail = f"{query['error']} {query.get('error_description', '')}"[:300]
            self.result.set_exception(McpError(f"the authorization server said: {detail}"))
            return "400 Bad Request", "Sign-in failed."
        if "code" in query and "state" in query:
            self.result.set_result(
                AuthorizationCodeResult(
                    code=query["code"], state=query["state"], iss=query.get("iss")
                )
            )
            return "200 OK", "Signed in."
        return "400 Bad Request", "The redirect carries no code."

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = await asyncio.wait_for(reader.readline(), 10)
            while (await asyncio.wait_for(reader.readline(), 10)) not in (b"\r\n", b"\n", b""):
                pass  # headers: not needed
        except (TimeoutError, ConnectionError, ValueError):
            writer.close()
            return
        parts = line.decode("latin-1").split()
        target = urlsplit(parts[1]) if len(parts) >= 2 else urlsplit("")
        status, text = "404 Not Found", "Not found."
        if target.path == CALLBACK_PATH and not self.result.done():
            status, text = self._answer({k: v[0] for k, v in parse_qs(target.query).items()})
        body = _PAGE.format(text=text).encode()
        writer.write(
            f"HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
            + body
        )
        try:
            await writer.drain()
        except ConnectionError:
            pass
        writer.close()


async def open_in_browser(url: str) -> None:
    """``webbrowser.open`` in a thread: a ``$BROWSER`` command may block until it exits."""
    await asyncio.to_thread(webbrowser.open, url)


@asynccontextmanager
async def loopback_sign_in(
    show: Callable[[str], None],
    open_url: Callable[[str], Awaitable[None]] = open_in_browser,
) -> AsyncIterator[SignIn]:
    """A SignIn whose redirect comes back to a one-shot server on 127.0.0.1 (closed on exit).

    Args:
        show: prints the authorization URL for the user (who may open it elsewhere).
        open_url: opens it (the browser; tests pass a headless fetch).
    """
    callback = _Callback()
    server = await asyncio.start_server(callback.handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]

    async def start(url: str) -> None:
        callback.rearm(url)
        show(url)
        await open_url(url)

    async def wait() -> AuthorizationCodeResult:
        try:
            return await asyncio.wait_for(callback.result, SIGN_IN_TIMEOUT_S)
        except TimeoutError:
            raise McpError(f"no sign-in within {SIGN_IN_TIMEOUT_S:g} s") from None

    try:
        yield SignIn(f"http://127.0.0.1:{port}{CALLBACK_PATH}", start, wait)
    finally:
        server.close()
        await server.wait_closed()


class QuietHandlers:
    """ClientHandlers for a sign-in's one handshake: declines whatever the server asks."""

    async def elicit(self, message: str, schema: dict[str, Any]) -> ElicitAnswer:
        return ElicitAnswer("decline")

    async def elicit_url(self, message: str, url: str) -> ElicitAnswer:
        return ElicitAnswer("decline")

    async def sample(self, request: SamplingRequest) -> SamplingAnswer | None:
        return None

    def roots(self) -> list[tuple[str, str]]:
        return []

    def changed(self, kind: Literal["tools", "prompts", "resources"]) -> None:
        pass

    def log(self, text: str) -> None:
        pass

    def stray_output(self, line: str) -> None:
        pass


async def sign_in(
    config: ServerConfig, workspace: Path, show: Callable[[str], None]
) -> tuple[int, str]:
    """Sign in to ``config``'s server and check the tokens with one handshake.

    Returns:
        The server's tool count and where the tokens are kept ("": the server asked for none).

    Raises:
        McpError: the server is not remote, the sign-in failed or timed out.
    """
    from agent_tui.mcp.adapter import connect

    if config.type == "stdio":
        raise McpError(f"{config.name} is a stdio server: there is nothing to sign in to")
    async with (
        loopback_sign_in(show) as browser,
        connect(
            config, QuietHandlers(), errlog=io.StringIO(), workspace=workspace, sign_in=browser
        ) as connection,
    ):
        tools = await connection.list_tools() if connection.features.tools else []
    store = TokenStore(config.url)
    store.step_up_done()
    return len(tools), store.where if store.has_tokens() else ""


def sign_out(config: ServerConfig) -> bool:
    """Forget the server's tokens and client registration. Returns whether there were any."""
    if config.type == "stdio":
        raise McpError(f"{config.name} is a stdio server: there is nothing to sign out of")
    return TokenStore(config.url).clear()


def _server(name: str, workspace: Path, trusted: bool) -> ServerConfig:
    """The configured server ``name``, its ``${input:ID}`` filled from ``[mcp.input_values]``."""
    from agent_tui.config import load_config
    from agent_tui.mcp.config import load_servers, user_input_values

    config = load_config(workspace, trusted=trusted)
    servers = load_servers(config.section("mcp"), workspace, trusted=config.trusted)
    if name not in servers:
        known = ", ".join(sorted(servers)) or "none configured"
        raise UsageError(f"no MCP server named {name!r} ({known})")
    return servers[name].with_inputs(user_input_values(config))


def login_command(action: str, name: str, workspace: Path, *, trusted: bool) -> int:
    """``agent-tui mcp login|logout NAME``: exit 0 on success, 1 when the sign-in failed.

    Raises:
        UsageError: no server has that name (exit 2).
    """
    from agent_tui.mcp.manager import describe_failure

    server = _server(name, workspace, trusted)
    try:
        if action == "logout":
            had = sign_out(server)
            print(f"{name}: signed out" if had else f"{name}: was not signed in")
            return 0

        def show(url: str) -> None:
            print(
                f"Opening the browser to sign in to {name}. If it does not open, visit:\n"
                + visible(url, keep_newlines=False)
            )
            sys.stdout.flush()

        tools, where = asyncio.run(sign_in(server, workspace, show))
    except Exception as exc:  # noqa: BLE001 - a failed sign-in is reported, not a traceback
        reason = visible(describe_failure(exc), keep_newlines=False)  # the server's words
        sys.stderr.write(f"agent-tui: sign-in to {name} failed: {reason}\n")
        return 1
    if not where:
        print(f"{name}: connected ({plural(tools, 'tool')}); it did not ask for a sign-in")
        return 0
    print(f"{name}: signed in ({plural(tools, 'tool')}); tokens kept in {where}")
    return 0


def subcommand(command: str, argv: list[str]) -> int:
    """``agent-tui mcp login|logout ...`` as cli.MCP_SUBCOMMANDS calls it."""
    return main([command, *argv])


def main(argv: list[str]) -> int:
    """``agent-tui mcp login|logout NAME [-C DIR] [--trust]``."""
    import argparse

    from agent_tui.approvals.trust import is_trusted
    from agent_tui.logs import setup_logging
    from agent_tui.paths import state_dir
    from agent_tui.state_files import check_writable

    parser = argparse.ArgumentParser(prog="agent-tui mcp")
    parser.add_argument("action", choices=["login", "logout"])
    parser.add_argument("name", help="the server's name in the config")
    parser.add_argument("-C", "--workspace", type=Path, default=None)
    parser.add_argument("--trust", action="store_true", help="read this workspace's servers")
    args = parser.parse_args(argv)
    check_writable(state_dir())
    setup_logging()
    workspace = (args.workspace or Path.cwd()).resolve()
    trusted = args.trust or is_trusted(workspace)
    return login_command(args.action, args.name, workspace, trusted=trusted)


_SIGN_INS: set[asyncio.Task[None]] = set()  # running /mcp login tasks (kept from the collector)


async def begin_sign_in(manager: McpManager, name: str) -> str:
    """``/mcp login NAME``: start a sign-in and return once the browser has been sent off.

    The sign-in goes on in the background; when it succeeds the server restarts with the new
    tokens, when it fails (or the user never finishes) ``/mcp`` says so in its notes.

    Returns:
        The authorization URL (for the user to open by hand if no browser came up); "" when the
        stored tokens were still good and no browser was needed.

    Raises:
        McpError: the server is unknown or not remote, or the sign-in failed before a URL existed.
    """
    state = manager.state(name)
    config = state.config
    if config.type == "stdio":
        raise McpError(f"{name} is a stdio server: there is nothing to sign in to")
    shown: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    def show(url: str) -> None:
        if not shown.done():
            shown.set_result(url)

    async def run() -> None:
        try:
            await sign_in(config, manager.workspace, show)
        except Exception as exc:  # noqa: BLE001 - reported in /mcp, the task must not die loudly
            from agent_tui.mcp.manager import describe_failure

            reason = visible(describe_failure(exc), keep_newlines=False)
            manager.write_log(state, f"sign-in failed: {reason}")
            manager.notices.append(f"sign-in to {name} failed: {reason}")
            if not shown.done():
                shown.set_exception(McpError(f"sign-in to {name} failed: {reason}"))
            return
        manager.write_log(state, "signed in")
        if not shown.done():  # the stored tokens were still good: no browser was needed
            shown.set_result("")
        await manager.restart(name)

    task = asyncio.get_running_loop().create_task(run())
    _SIGN_INS.add(task)
    task.add_done_callback(_SIGN_INS.discard)
    return await shown
