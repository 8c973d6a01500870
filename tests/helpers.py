"""Small helpers shared by tests."""

from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import pytest

from agent_tui.tools.base import BaseTool, ToolContext, ToolResult
from agent_tui.tools.registry import builtin_registry
from tests.fakes.llm_server import FakeLLM

T = TypeVar("T")

# What a developer's shell may carry that would steer a process a test starts: agent-tui's own
# settings (AGENT_TUI_PROVIDER=openai once sent MCP end-to-end tests to the wrong provider), API
# keys, endpoints and SDK settings, proxies (loopback requests would go through them) and the XDG
# dirs (a real ~/.config or state dir).
PERSONAL_PREFIXES = ("AGENT_TUI_", "OPENAI_", "ANTHROPIC_", "AZURE_OPENAI_", "XDG_")
PERSONAL_SUFFIXES = ("_API_KEY", "_BASE_URL")
PROXIES = ("http_proxy", "https_proxy", "all_proxy", "no_proxy")
XDG_DIRS = {
    "XDG_CONFIG_HOME": ".config",
    "XDG_DATA_HOME": ".local/share",
    "XDG_STATE_HOME": ".local/state",
    "XDG_CACHE_HOME": ".cache",
}


def is_personal(name: str) -> bool:
    """Whether the environment variable ``name`` belongs to the person running the tests."""
    upper = name.upper()
    return (
        upper.startswith(PERSONAL_PREFIXES)
        or upper.endswith(PERSONAL_SUFFIXES)
        or name.lower() in PROXIES
    )


@cache
def _spare_home() -> Path:
    """A temp HOME for processes whose test gave none (removed when the test run ends)."""
    home = tempfile.mkdtemp(prefix="agent-tui-test-home-")
    atexit.register(shutil.rmtree, home, ignore_errors=True)
    return Path(home)


def clean_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """An environment for a process a test starts: this one without the person's settings.

    Drops every ``AGENT_TUI_*``, ``*_API_KEY``, ``*_BASE_URL``, ``OPENAI_*``/``ANTHROPIC_*``,
    proxy and ``XDG_*`` variable; HOME is ``extra["HOME"]`` (or a temp dir) and the XDG dirs are
    inside it. ``extra`` is applied last, so a test sets exactly what it means to.
    """
    env = {name: value for name, value in os.environ.items() if not is_personal(name)}
    home = Path(extra["HOME"]) if extra and "HOME" in extra else _spare_home()
    env["HOME"] = str(home)
    env.update({name: str(home / sub) for name, sub in XDG_DIRS.items()})
    env.update(CHILD_DEFAULTS)
    env.update(extra or {})
    return env


# What every process a test starts gets unless the test sets it (the ``unsandboxed`` fixture in
# tests/conftest.py puts AGENT_TUI_SANDBOX=off here for tests of the approvals and the process
# handling of commands outside the sandbox).
# Language servers found on PATH (ruff, pyright...) differ between machines: a test that wants
# one configures it (tests/lsp/).
CHILD_DEFAULTS: dict[str, str] = {"AGENT_TUI_LSP": "off"}


def missing(reason: str) -> NoReturn:
    """A test's real dependency is absent: skip on a developer's machine, fail in CI.

    CI installs everything through scripts/setup.sh, so there a gap means the set-up is broken
    and must not pass silently as a skip.
    """
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI installs it through scripts/setup.sh dev)")
    pytest.skip(reason)


def builtin_tool(name: str, cls: type[T]) -> T:
    """The built-in tool ``name`` as the registry builds it (manifest included)."""
    built: Any = builtin_registry().get(name)
    assert isinstance(built, cls)
    return built


def new_workspace(
    tmp_path: Path, files: Mapping[str, str] | None = None, *, home: bool = False
) -> Path:
    """A new workspace folder, ``tmp_path/ws``, holding ``files`` (relative path: text).

    With ``home``, ``tmp_path/home`` is made too (the HOME the test's processes get).
    """
    workspace = tmp_path / "ws"
    workspace.mkdir()
    for name, text in (files or {}).items():
        (workspace / name).parent.mkdir(parents=True, exist_ok=True)
        (workspace / name).write_text(text)
    if home:
        (tmp_path / "home").mkdir()
    return workspace


async def run_tool(tool: BaseTool, ctx: ToolContext, **args: Any) -> ToolResult:
    """Run ``tool`` on ``args`` as the agent does: ``prepare`` (which may refuse), then ``invoke``."""
    tool.prepare(args, ctx)
    return await tool.invoke(args, ctx)


def run_cli(
    cwd: Path,
    *args: str,
    env: dict[str, str] | None = None,
    stdin: str | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m agent_tui ARGS`` in ``cwd`` as a real process.

    The environment is ``clean_env(env)``: none of the person's settings, keys or base URLs;
    ``env`` should set HOME and AGENT_TUI_STATE_DIR to temp dirs. Stdin is closed unless ``stdin``
    text is piped in.
    """
    return subprocess.run(
        [sys.executable, "-m", "agent_tui", *args],
        cwd=cwd,
        env=clean_env(env),
        capture_output=True,
        text=True,
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        timeout=timeout,
    )


def run_on_fake(
    ws: Path,
    fake: FakeLLM,
    *args: str,
    home: Path,
    state: Path,
    env: Mapping[str, str] | None = None,
    stdin: str | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """``agent-tui ARGS`` in ``ws`` (through ``run_cli``) on the fake server's Anthropic API.

    HOME is ``home``, the state dir ``state`` and the API key a dummy; ``env`` is applied last.
    """
    full_env = {"HOME": str(home), "AGENT_TUI_STATE_DIR": str(state), "ANTHROPIC_API_KEY": "k"}
    full_env.update(env or {})
    flags = ("--provider", "anthropic", "--base-url", fake.url)
    return run_cli(ws, *args, *flags, env=full_env, stdin=stdin, timeout=timeout)


def run_on_api(
    ws: Path,
    fake: FakeLLM,
    api: str,
    *args: str,
    key: str | None,
    model: str = "test-model",
    rc: str | None = None,
    env: Mapping[str, str] | None = None,
    stdin: str | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    """``agent-tui --provider API --base-url URL --model MODEL ARGS`` in ``ws`` (``run_cli``).

    URL is the fake server's for ``api`` ("anthropic" | "openai"); HOME and the state dir are
    ``home`` and ``state`` beside ``ws``.

    Args:
        key: the value of the API's key variable (``ANTHROPIC_API_KEY``/``OPENAI_API_KEY``), or
            None to leave it unset.
        rc: when given, written as the user's ``~/.agentrc`` (named by AGENT_TUI_USER_CONFIG).
        env: applied last.
    """
    home = ws.parent / "home"
    full_env = {"AGENT_TUI_STATE_DIR": str(ws.parent / "state"), "HOME": str(home)}
    if rc is not None:
        home.mkdir(exist_ok=True)
        (home / ".agentrc").write_text(rc)
        full_env["AGENT_TUI_USER_CONFIG"] = str(home / ".agentrc")
    if key is not None:
        full_env["ANTHROPIC_API_KEY" if api == "anthropic" else "OPENAI_API_KEY"] = key
    full_env.update(env or {})
    url = fake.url if api == "anthropic" else fake.openai_url
    flags = ("--provider", api, "--base-url", url, "--model", model)
    return run_cli(ws, *flags, *args, env=full_env, stdin=stdin, timeout=timeout)


def last_json(proc: subprocess.CompletedProcess[str]) -> Any:
    """The JSON object on the last line of a process's stdout (``--output-format json``)."""
    return json.loads(proc.stdout.strip().splitlines()[-1])


class QuietHandler(BaseHTTPRequestHandler):
    """A request handler for the loopback servers tests start: JSON replies, no request log."""

    def send_json(self, status: int, body: object, challenge: str = "") -> None:
        """Reply ``status`` with ``body`` as JSON; ``challenge``, when given, as WWW-Authenticate."""
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if challenge:
            self.send_header("WWW-Authenticate", challenge)
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean


@contextmanager
def serve_http(handler: type[BaseHTTPRequestHandler], path: str = "") -> Iterator[str]:
    """Serve ``handler`` on 127.0.0.1 (a free port) from a thread; yields the URL of ``path``."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{path}"
    finally:
        server.shutdown()
        server.server_close()


def tool_results(request: Mapping[str, Any]) -> dict[str, str]:
    """tool_use_id -> the result text an Anthropic-style request carries (text parts joined)."""
    found = {}
    for message in request["messages"]:
        content = message.get("content")
        for block in content if isinstance(content, list) else ():
            if block.get("type") == "tool_result":
                text = block["content"]
                if isinstance(text, list):
                    text = "".join(part.get("text", "") for part in text)
                found[block["tool_use_id"]] = text
    return found
