"""The OAuth token store and silent refresh, over real HTTP on 127.0.0.1.

The server here is a few lines of ``http.server``: a token endpoint that trades refresh token
``R1`` for access token ``A2``, and a resource that accepts only ``Bearer A2``.
"""

from __future__ import annotations

import json
import stat
import sys
import time
import types
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs

import httpx2
import pytest
from mcp.shared.auth import OAuthToken

from agent_tui.mcp.config import ServerConfig
from agent_tui.mcp.oauth import SignInRequired, TokenStore, http_auth
from tests.helpers import QuietHandler, serve_http
from tests.mcp.conftest import registered_store


class _Server(QuietHandler):
    refreshes: list[dict[str, list[str]]] = []

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        form = parse_qs(self.rfile.read(length).decode())
        if self.path == "/token" and form.get("refresh_token") == ["R1"]:
            self.refreshes.append(form)
            self.send_json(200, {"access_token": "A2", "token_type": "Bearer", "expires_in": 3600})
        elif self.headers.get("Authorization") == "Bearer A2":
            self.send_json(200, {"ok": True})
        else:
            self.send_json(401, {"error": "invalid_token"}, 'Bearer error="invalid_token"')


@pytest.fixture
def server_url() -> Iterator[str]:
    _Server.refreshes = []
    with serve_http(_Server, "/mcp") as url:
        yield url


async def _seed(url: str, expires_in: int) -> TokenStore:
    store = await registered_store(url)
    await store.set_tokens(OAuthToken(access_token="A1", refresh_token="R1", expires_in=expires_in))
    return store


async def test_an_expired_token_from_an_earlier_run_is_refreshed_silently(
    server_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: the SDK loaded stored tokens without their expiry, sent the dead A1, got 401 and
    # asked for a browser sign-in instead of refreshing.
    store = await _seed(server_url, expires_in=60)
    real_time = time.time
    monkeypatch.setattr(time, "time", lambda: real_time() + 120)  # a later run: A1 expired
    config = ServerConfig(name="web", type="http", url=server_url)
    auth = await http_auth(config)  # no sign-in possible: a background start
    async with httpx2.AsyncClient(auth=auth) as client:
        response = await client.post(server_url, json={})
    assert response.status_code == 200
    assert [f["grant_type"] for f in _Server.refreshes] == [["refresh_token"]]
    stored = await store.get_tokens()
    assert stored is not None and stored.access_token == "A2"


async def test_without_tokens_a_401_means_sign_in_not_a_hidden_error(
    server_url: str,
) -> None:
    await _seed(server_url.replace("/mcp", "/other"), expires_in=3600)  # another URL's tokens
    config = ServerConfig(name="web", type="http", url=server_url)
    async with httpx2.AsyncClient(auth=await http_auth(config)) as client:
        with pytest.raises(SignInRequired, match="needs sign-in: /mcp login web"):
            await client.post(server_url, json={})


async def test_tokens_are_kept_per_url_in_a_private_file_and_a_damaged_one_is_set_aside(
    server_url: str, tmp_path: Path
) -> None:
    store = await _seed(server_url, expires_in=3600)
    other = TokenStore(server_url + "/v2")
    assert store.path != other.path and await other.get_tokens() is None
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(store.path.parent.stat().st_mode) == 0o700
    record = json.loads(store.path.read_text())
    assert record["url"] == server_url and record["tokens"]["refresh_token"] == "R1"

    for damage in ("{not json", "[]", json.dumps({**record, "url": "http://elsewhere/"})):
        store.path.write_text(damage)
        assert await store.get_tokens() is None
        assert not store.path.exists()  # moved aside, not overwritten
    assert len(list(store.path.parent.glob("*.corrupt-*"))) >= 1
    assert store.clear() is False


class _FailKeyring:
    """keyring's own "no backend" class (keyring.backends.fail.Keyring)."""

    priority = 0


class _MemoryKeyring:
    """A keyring backend with a real priority, as an installed system keyring has."""

    priority = 1

    def __init__(self) -> None:
        self.items: dict[tuple[str, str], str] = {}


def _install_keyring(monkeypatch: pytest.MonkeyPatch, backend: object) -> None:
    """The ``keyring`` package's API over ``backend`` (the package is not a dependency)."""
    module = types.ModuleType("keyring")
    backends = types.ModuleType("keyring.backends")
    fail = types.ModuleType("keyring.backends.fail")
    fail.Keyring = _FailKeyring  # type: ignore[attr-defined]
    items = getattr(backend, "items", {})
    module.get_keyring = lambda: backend  # type: ignore[attr-defined]
    module.get_password = lambda s, u: items.get((s, u))  # type: ignore[attr-defined]
    module.set_password = lambda s, u, p: items.__setitem__((s, u), p)  # type: ignore[attr-defined]
    module.delete_password = lambda s, u: items.pop((s, u))  # type: ignore[attr-defined]
    for name, mod in (("keyring", module), ("keyring.backends", backends)):
        monkeypatch.setitem(sys.modules, name, mod)
    monkeypatch.setitem(sys.modules, "keyring.backends.fail", fail)
    backends.fail = fail  # type: ignore[attr-defined]


async def test_tokens_go_to_the_system_keyring_when_one_works(
    server_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend = _MemoryKeyring()
    _install_keyring(monkeypatch, backend)
    store = await _seed(server_url, expires_in=3600)
    assert store.where == "the system keyring"
    assert not store.path.exists()  # nothing on disk
    assert json.loads(backend.items[("agent-tui-mcp-oauth", server_url)])["tokens"]["access_token"]
    assert store.clear() is True and backend.items == {}


async def test_a_keyring_without_a_backend_falls_back_to_the_private_file(
    server_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _install_keyring(monkeypatch, _FailKeyring())
    store = await _seed(server_url, expires_in=3600)
    assert store.where == str(store.path) and store.path.exists()
