"""Signing in to an OAuth-protected MCP server from the command line, and what -p does without it.

The protected server and its authorization server are the conformance suite's (see
test_conformance.py: run in a loopback-only network namespace); the 401-only server is a few
lines of ``http.server`` on 127.0.0.1.
"""

from __future__ import annotations

import json
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import QuietHandler, clean_env, run_cli, serve_http
from tests.mcp.conftest import HttpServer
from tests.mcp.test_conformance import ROOT, require_suite, run_scenario


def _requests(checks: list[dict[str, object]]) -> list[tuple[str, int]]:
    """(MCP method, status) of each response the suite's MCP server sent."""
    out = []
    for check in checks:
        details = check.get("details")
        if check.get("id") == "outgoing-response" and isinstance(details, dict):
            out.append((str(details.get("mcpMethod")), int(details.get("statusCode", 0))))
    return out


def test_login_stores_tokens_that_a_background_start_uses_then_logout_forgets(
    tmp_path: Path,
) -> None:
    require_suite()
    work = tmp_path / "work"
    work.mkdir()
    state = tmp_path / "state"
    env = clean_env(
        {
            "AGENT_TUI_STATE_DIR": str(state),
            "AGENT_TUI_USER_CONFIG": str(tmp_path / "agentrc.toml"),
            "LOGIN_E2E_DIR": str(work),
            "PYTHONPATH": str(ROOT),
        }
    )
    code, checks, output = run_scenario(
        "auth/metadata-default",
        tmp_path,
        client=f"{sys.executable} -m tests.mcp.conformance_login",
        env=env,
    )
    login = (work / "login.out").read_text()
    assert "Opening the browser to sign in to conf" in login  # the URL is printed too
    assert "/authorize?" in login and "code_challenge_method=S256" in login
    assert "conf: signed in (1 tool)" in login, login
    bad = [c for c in checks if c.get("status") in ("FAILURE", "WARNING")]
    assert not bad and code == 0, output[-3000:]
    # The token is in the state dir, private (no keyring in the test environment).
    stored = list((state / "mcp-oauth").glob("*.json"))
    assert len(stored) == 1
    assert stat.S_IMODE(stored[0].stat().st_mode) == 0o600
    assert json.loads(stored[0].read_text())["tokens"]["access_token"].startswith("test-token")
    # agent-tui -p, started without a browser, called the tool with that token.
    assert ("tools/call", 200) in _requests(checks), (work / "run.out").read_text()
    assert "needs sign-in" not in (work / "run.out").read_text()

    logout = run_cli(work, "mcp", "logout", "conf", env=env)
    assert logout.returncode == 0 and "conf: signed out" in logout.stdout
    assert not list((state / "mcp-oauth").glob("*.json"))


def test_slash_mcp_login_signs_in_and_the_server_restarts(tmp_path: Path) -> None:
    require_suite()
    work = tmp_path / "work"
    work.mkdir()
    env = clean_env(
        {
            "AGENT_TUI_STATE_DIR": str(tmp_path / "state"),
            "LOGIN_E2E_DIR": str(work),
            "PYTHONPATH": str(ROOT),
            "BROWSER": f"{sys.executable} -m tests.mcp.fake_browser %s",
        }
    )
    code, checks, output = run_scenario(
        "auth/metadata-var1",
        tmp_path,
        client=f"{sys.executable} -m tests.mcp.conformance_slash",
        env=env,
    )
    seen = json.loads((work / "slash.json").read_text())
    assert seen["before"] == [
        "failed",
        "needs sign-in: /mcp login conf (or `agent-tui mcp login conf`)",
    ]
    assert "needs sign-in: /mcp login conf" in seen["list"]
    assert "Opened the browser to sign in to **conf**" in seen["login"]
    assert "/authorize?" in seen["login"]  # the URL, for when no browser opens
    assert seen["call"] == ["test"], seen
    assert code == 0, output[-3000:]


class _Protected(QuietHandler):
    """Every request: 401 with the challenge an OAuth-protected MCP server sends."""

    def do_POST(self) -> None:
        self.send_response(401)
        host = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.send_header(
            "WWW-Authenticate",
            f'Bearer resource_metadata="{host}/.well-known/oauth-protected-resource/mcp"',
        )
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_POST


@pytest.fixture
def protected_url() -> Iterator[str]:
    with serve_http(_Protected, "/mcp") as url:
        yield url


def test_headless_says_which_server_needs_sign_in_and_goes_on_without_it(
    tmp_path: Path, protected_url: str
) -> None:
    # Before: "MCPError: Server returned an error response" (the 401 hidden), nothing to do.
    config = tmp_path / "agentrc.toml"
    config.write_text(f'[mcp.servers.web]\nurl = "{protected_url}"\n')
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"text": "answered without it"}]))
    env = {
        "HOME": str(tmp_path),
        "AGENT_TUI_STATE_DIR": str(tmp_path / "state"),
        "AGENT_TUI_USER_CONFIG": str(config),
    }
    done = run_cli(tmp_path, "-p", "hello", "--script", str(script), env=env)
    assert done.returncode == 0, done.stderr
    assert "answered without it" in done.stdout
    assert "MCP server web failed: needs sign-in: /mcp login web" in done.stderr
    assert "agent-tui mcp login web" in done.stderr
    assert not (tmp_path / "state" / "mcp-oauth").exists()  # nothing registered in the background


def test_login_to_a_server_without_oauth_says_so_and_stores_nothing(
    tmp_path: Path, everything_http: HttpServer
) -> None:
    config = tmp_path / "agentrc.toml"
    url = f"http://127.0.0.1:{everything_http.port}/mcp"
    config.write_text(f'[mcp.servers.web]\nurl = "{url}"\n')
    env = {"AGENT_TUI_STATE_DIR": str(tmp_path / "state"), "AGENT_TUI_USER_CONFIG": str(config)}
    done = run_cli(tmp_path, "mcp", "login", "web", env=env)
    assert done.returncode == 0, done.stderr
    assert "web: connected (" in done.stdout and "it did not ask for a sign-in" in done.stdout
    assert not (tmp_path / "state" / "mcp-oauth").exists()


def test_login_to_an_unknown_server_is_a_usage_error(tmp_path: Path) -> None:
    config = tmp_path / "agentrc.toml"
    config.write_text('[mcp.servers.web]\nurl = "http://127.0.0.1:9/mcp"\n')
    env = {"AGENT_TUI_STATE_DIR": str(tmp_path / "state"), "AGENT_TUI_USER_CONFIG": str(config)}
    done = run_cli(tmp_path, "mcp", "login", "nope", env=env)
    assert done.returncode == 2
    assert "no MCP server named 'nope' (web)" in done.stderr
