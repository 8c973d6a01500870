"""Fixtures for the MCP tests: real servers (server-everything, mcp-server-time, a small SDK server).

``scripts/install-test-servers.sh`` installs server-everything into ``tests/.mcp-servers``; a test
that needs it is skipped, saying so, only when that has not been run (CI runs it first).
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from agent_tui.mcp.config import load_servers
from agent_tui.mcp.manager import McpManager
from agent_tui.mcp.types import McpHooks
from agent_tui.tools.registry import ToolRegistry
from tests.helpers import clean_env, missing

if TYPE_CHECKING:
    from agent_tui.mcp.oauth import TokenStore

ROOT = Path(__file__).resolve().parents[2]
EVERYTHING_JS = (
    ROOT / "tests/.mcp-servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
)
DYNAMIC_SERVER = Path(__file__).parent / "servers" / "dynamic_server.py"
ENV_SERVER = Path(__file__).parent / "servers" / "env_server.py"


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("AGENT_TUI_STATE_DIR", str(tmp_path / "state"))
    return home


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


async def registered_store(url: str) -> TokenStore:
    """The token store of the server at ``url``, holding a registered public client."""
    # Imported here: the MCP SDK behind them is slow to import and most MCP tests never use it.
    from mcp.shared.auth import OAuthClientInformationFull
    from pydantic import AnyUrl

    from agent_tui.mcp.oauth import TokenStore

    store = TokenStore(url)
    await store.set_client_info(
        OAuthClientInformationFull(
            client_id="agent-tui-test",
            redirect_uris=[AnyUrl("http://127.0.0.1/callback")],
            token_endpoint_auth_method="none",
        )
    )
    return store


def everything_entry(js: Path) -> str:
    """The ``~/.agentrc`` lines that name server-everything (stdio, ``js``) as ``everything``."""
    return f'[mcp.servers.everything]\ncommand = "node"\nargs = ["{js}", "stdio"]\n'


def everything_home(home: Path, js: Path, extra: str = "") -> Path:
    """Make ``home`` with a ``~/.agentrc`` naming server-everything; ``extra`` ends its entry."""
    home.mkdir(exist_ok=True)
    (home / ".agentrc").write_text(everything_entry(js) + extra, encoding="utf-8")
    return home


@pytest.fixture
def everything_js() -> Path:
    if shutil.which("node") is None:
        missing("node is not installed (server-everything needs it)")
    if not EVERYTHING_JS.is_file():
        missing("server-everything is not installed: run scripts/install-test-servers.sh")
    return EVERYTHING_JS


@pytest.fixture
def time_server() -> dict[str, Any]:
    try:
        import mcp_server_time  # noqa: F401
    except ImportError:
        missing("mcp-server-time is not installed: install the dev extra")
    return {"command": sys.executable, "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"]}


MakeManager = Callable[..., Awaitable[tuple[McpManager, ToolRegistry]]]


@pytest.fixture
async def make_manager(workspace: Path) -> AsyncIterator[MakeManager]:
    """Build a manager over raw ``[mcp.servers]`` entries, start them, wait until they settle.

    ``inputs`` are ``[mcp.inputs]`` entries; ``input_values`` stands for the user's
    ``[mcp.input_values]``.
    """
    made: list[McpManager] = []

    async def make(
        servers: dict[str, dict[str, Any]],
        hooks: McpHooks | None = None,
        timeout: float = 30,
        *,
        inputs: dict[str, dict[str, Any]] | None = None,
        input_values: dict[str, str] | None = None,
    ) -> tuple[McpManager, ToolRegistry]:
        registry = ToolRegistry()
        manager = McpManager(
            load_servers({"servers": servers, "inputs": inputs or {}}, workspace, trusted=False),
            tools=registry,
            workspace=workspace,
            hooks=hooks,
            connect_timeout_s=timeout,
            input_values=lambda: input_values or {},
        )
        made.append(manager)
        manager.start_all()
        await manager.wait_for(
            lambda: all(
                s.status in ("running", "failed", "disabled") for s in manager.servers.values()
            )
        )
        return manager, registry

    yield make
    for manager in made:
        await manager.aclose()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class HttpServer:
    """An MCP server over HTTP in a subprocess on a free port; started once its ready line appears.

    Args:
        argv: the command; ``{port}`` is replaced by the port (also passed as ``PORT``).
        ready_text: the line fragment (stdout or stderr) that says it is listening.
    """

    def __init__(self, argv: list[str], ready_text: str) -> None:
        self.argv, self.ready_text = argv, ready_text
        self.port = free_port()
        self.proc: subprocess.Popen[str] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [arg.replace("{port}", str(self.port)) for arg in self.argv],
            env=clean_env({"PORT": str(self.port)}),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        assert self.proc.stdout is not None
        seen = []
        for line in self.proc.stdout:  # blocks until the server prints, or exits (EOF)
            seen.append(line)
            if self.ready_text in line:
                break
        else:
            raise RuntimeError(f"{self.argv} did not start: {''.join(seen)}")
        # Keep draining its output so the server never blocks on a full pipe.
        threading.Thread(target=self.proc.stdout.read, daemon=True).start()

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def everything_http(everything_js: Path) -> Iterator[HttpServer]:
    server = HttpServer(["node", str(everything_js), "streamableHttp"], "listening on port")
    server.start()
    yield server
    server.kill()


@pytest.fixture
def everything_sse(everything_js: Path) -> Iterator[HttpServer]:
    server = HttpServer(["node", str(everything_js), "sse"], "running on port")
    server.start()
    yield server
    server.kill()


@pytest.fixture
def dynamic_http() -> Iterator[HttpServer]:
    server = HttpServer(
        [sys.executable, str(DYNAMIC_SERVER), "--http", "{port}"], "Uvicorn running on"
    )
    server.start()
    yield server
    server.kill()
