"""A tool call answered 403 ``insufficient_scope`` after start-up (OAuth step-up), in the background.

The server is a few lines of ``http.server`` on 127.0.0.1 speaking MCP's Streamable HTTP with JSON
answers: it accepts ``Bearer A1`` (scope ``mcp:basic``), answers ``read`` and refuses ``write``
with the 403 challenge asking for ``mcp:write``.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from mcp.shared.auth import AuthorizationCodeResult, OAuthToken

from agent_tui.errors import McpError
from agent_tui.mcp.adapter import connect
from agent_tui.mcp.config import load_servers
from agent_tui.mcp.login import QuietHandlers
from agent_tui.mcp.oauth import SignIn, TokenStore
from tests.helpers import QuietHandler, serve_http
from tests.mcp.conftest import MakeManager, registered_store

TOOLS = [
    {"name": n, "inputSchema": {"type": "object"}, "description": n} for n in ("read", "write")
]


class _Protected(QuietHandler):
    def do_POST(self) -> None:
        message = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        if self.path == "/register":  # dynamic client registration (the legacy fallback path)
            self.send_json(201, {**message, "client_id": "registered"})
            return
        if self.headers.get("Authorization") != "Bearer A1":
            self.send_json(401, {"error": "invalid_token"}, 'Bearer error="invalid_token"')
            return
        method, ident = message.get("method", ""), message.get("id")
        if ident is None:  # a notification
            self.send_response(202)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if method == "initialize":
            result: dict[str, object] = {
                "protocolVersion": "2025-06-18",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "protected", "version": "1"},
            }
        elif method == "tools/list":
            result = {"tools": TOOLS}
        elif method == "tools/call" and message["params"]["name"] == "write":
            challenge = 'Bearer error="insufficient_scope", scope="mcp:basic mcp:write"'
            self.send_json(403, {"error": "insufficient_scope"}, challenge)
            return
        elif method == "tools/call":
            result = {"content": [{"type": "text", "text": "read ok"}]}
        else:
            result = {}
        self.send_json(200, {"jsonrpc": "2.0", "id": ident, "result": result})

    def do_GET(self) -> None:
        self.send_response(405)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_DELETE = do_GET


@pytest.fixture
def protected_url() -> Iterator[str]:
    with serve_http(_Protected, "/mcp") as url:
        yield url


async def _signed_in(url: str) -> TokenStore:
    store = await registered_store(url)
    await store.set_tokens(OAuthToken(access_token="A1", scope="mcp:basic", expires_in=3600))
    return store


async def test_a_403_insufficient_scope_is_a_tool_error_and_the_connection_stays(
    protected_url: str, make_manager: MakeManager
) -> None:
    store = await _signed_in(protected_url)
    manager, _ = await make_manager({"prot": {"url": protected_url}})
    state = manager.state("prot")
    assert state.status == "running", state.error

    outcome = await manager.call_tool("prot", "write", {})

    assert outcome.is_error
    text = outcome.parts[0].text
    assert "needs more permission" in text and "/mcp login prot" in text
    assert state.status == "running"
    assert state.error.startswith("needs sign-in: /mcp login prot")
    # The next sign-in asks for what was granted plus what the server wanted.
    assert store.step_up() == "mcp:basic mcp:write"
    # Only that call failed: the connection is alive and other tools still answer.
    read = await manager.call_tool("prot", "read", {})
    assert not read.is_error and read.parts[0].text == "read ok"
    assert "insufficient_scope" in state.log_path.read_text()


async def test_the_next_sign_in_asks_for_the_granted_and_the_wanted_scope(
    protected_url: str, tmp_path: Path
) -> None:
    store = await _signed_in(protected_url)
    store.want_scope("mcp:basic mcp:write")
    shown: list[str] = []

    async def open_url(url: str) -> None:
        shown.append(url)

    async def no_callback() -> AuthorizationCodeResult:
        raise McpError("the test stops at the browser")

    sign_in = SignIn("http://127.0.0.1:1/callback", open_url, no_callback)
    config = load_servers({"servers": {"prot": {"url": protected_url}}}, tmp_path, trusted=False)
    with pytest.raises(BaseException):  # noqa: B017 - the SDK wraps the stop in groups
        async with connect(
            config["prot"],
            QuietHandlers(),
            errlog=io.StringIO(),
            workspace=tmp_path,
            sign_in=sign_in,
        ):
            pass
    assert len(shown) == 1
    # The stored token lacked a scope, so it was dropped and the browser asked for both.
    query = parse_qs(urlsplit(shown[0]).query)
    assert query["scope"] == ["mcp:basic mcp:write"]
    assert not store.has_tokens()


async def test_login_with_tokens_still_good_answers_at_once_instead_of_waiting_forever(
    protected_url: str, make_manager: MakeManager
) -> None:
    """``/mcp login NAME`` waited for an authorization URL that never comes when the stored
    tokens are still good (no browser is needed): every wait has a bound (issue 15 §4)."""
    import asyncio

    from agent_tui.mcp.login import begin_sign_in

    await _signed_in(protected_url)
    manager, _ = await make_manager({"prot": {"url": protected_url}})
    url = await asyncio.wait_for(begin_sign_in(manager, "prot"), 30)
    assert url == ""
    # The sign-in goes on to restart the server in the background: let it finish before the
    # manager is shut down (a restart racing the teardown hung it).
    from agent_tui.mcp.login import _SIGN_INS

    await asyncio.wait_for(asyncio.gather(*_SIGN_INS), 30)
    assert manager.state("prot").status == "running"
