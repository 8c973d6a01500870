"""2025-03-26 servers (no protected resource metadata) whose metadata names an issuer with a path.

The server is ``http.server`` on 127.0.0.1: the MCP endpoint answers 401, the authorization server
metadata is at the origin's root well-known URL and names ``ISSUER`` (a format string over the
origin). The sign-in is followed up to the browser step: the authorization URL shown means the
metadata was accepted; none shown means the sign-in stopped at the issuer check.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp.shared.auth import AuthorizationCodeResult

from agent_tui.errors import McpError
from agent_tui.mcp.adapter import connect
from agent_tui.mcp.config import load_servers
from agent_tui.mcp.login import QuietHandlers
from agent_tui.mcp.oauth import SignIn
from tests.helpers import QuietHandler, serve_http


class _Legacy(QuietHandler):
    issuer = "{origin}/oauth"
    with_prm = False

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def do_GET(self) -> None:
        if self.path.startswith("/.well-known/oauth-protected-resource") and self.with_prm:
            self.send_json(
                200, {"resource": f"{self.origin}/mcp", "authorization_servers": [self.origin]}
            )
        elif self.path == "/.well-known/oauth-authorization-server":
            issuer = self.issuer.format(origin=self.origin)
            self.send_json(
                200,
                {
                    "issuer": issuer,
                    "authorization_endpoint": f"{self.origin}/oauth/authorize",
                    "token_endpoint": f"{self.origin}/oauth/token",
                    "registration_endpoint": f"{self.origin}/oauth/register",
                    "response_types_supported": ["code"],
                    "code_challenge_methods_supported": ["S256"],
                },
            )
        else:
            self.send_json(404, {"error": "not_found"})

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path == "/oauth/register":
            self.send_json(201, {**json.loads(body), "client_id": "registered"})
        else:
            self.send_json(401, {"error": "invalid_token"}, "Bearer")


@pytest.fixture
def legacy_url() -> Iterator[str]:
    with serve_http(_Legacy, "/mcp") as url:
        yield url
    _Legacy.issuer, _Legacy.with_prm = "{origin}/oauth", False


async def _authorization_urls(url: str, tmp_path: Path) -> list[str]:
    shown: list[str] = []

    async def open_url(authorize: str) -> None:
        shown.append(authorize)

    async def no_callback() -> AuthorizationCodeResult:
        raise McpError("the test stops at the browser")

    sign_in = SignIn("http://127.0.0.1:1/callback", open_url, no_callback)
    config = load_servers({"servers": {"old": {"url": url}}}, tmp_path, trusted=False)["old"]
    with pytest.raises(BaseException):  # noqa: B017 - the SDK wraps the stop in groups
        async with connect(
            config, QuietHandlers(), errlog=io.StringIO(), workspace=tmp_path, sign_in=sign_in
        ):
            pass
    return shown


async def test_a_legacy_server_whose_issuer_has_a_path_on_its_own_origin_is_signed_in(
    legacy_url: str, tmp_path: Path
) -> None:
    shown = await _authorization_urls(legacy_url, tmp_path)
    assert len(shown) == 1 and "/oauth/authorize?" in shown[0]


@pytest.mark.parametrize(
    ("issuer", "with_prm"),
    [
        ("http://127.0.0.2:1/oauth", False),  # another host: a mix-up, still refused
        ("https://127.0.0.1/oauth", False),  # another scheme (and port)
        ("{origin}/oauth", True),  # a modern server (it has resource metadata): strict check
    ],
)
async def test_other_issuers_are_still_refused(
    legacy_url: str, tmp_path: Path, issuer: str, with_prm: bool
) -> None:
    _Legacy.issuer, _Legacy.with_prm = issuer, with_prm
    assert await _authorization_urls(legacy_url, tmp_path) == []
