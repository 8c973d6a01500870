"""The language servers of a session in-process (``lsp/manager.py``, ``lsp/report.py``): what an
edit added, the cap, hostile messages, the PATH defaults, and stopping a server's whole group."""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from pathlib import Path

import pytest
from lsprotocol import types

from agent_tui.lsp.config import LspSettings, ServerSpec, lsp_settings
from agent_tui.lsp.manager import LspManager
from agent_tui.lsp.report import MAX_MESSAGE, Problem, added, problems_from, render
from tests.lsp.test_lsp_e2e import _marked, _server


def _problem(line: int, message: str, severity: str = "error") -> Problem:
    return Problem("m.py", line, 1, severity, message, "basedpyright")


def test_a_problem_an_edit_moved_to_another_line_is_not_new() -> None:
    before = [_problem(1, "undefined x"), _problem(5, "undefined y")]
    after = [_problem(3, "undefined x"), _problem(7, "undefined y"), _problem(8, "undefined y")]

    assert added(before, after) == [_problem(8, "undefined y")]


def test_a_report_is_capped_and_lists_errors_first() -> None:
    problems = [_problem(n, f"unused {n}", "warning") for n in range(1, 30)]
    problems.append(_problem(40, "the one error"))

    lines = render(problems).splitlines()

    assert len(lines) == 21
    assert lines[0] == "m.py:40:1 error the one error (basedpyright)"
    assert lines[-1] == "… and 10 more"


def test_a_hostile_message_stays_one_visible_capped_line() -> None:
    message = "ok\x1b[2J\rforged: line 1 error\u202e" + "x" * 1000
    diagnostic = types.Diagnostic(
        types.Range(types.Position(0, 0), types.Position(0, 1)),
        message,
        severity=types.DiagnosticSeverity.Error,
        source="evil\nsource",
    )
    hint = types.Diagnostic(diagnostic.range, "a hint", severity=types.DiagnosticSeverity.Hint)

    (problem,) = problems_from("m.py", [diagnostic, hint])

    text = problem.line_text()
    assert "\x1b" not in text and "\r" not in text and "\u202e" not in text
    assert "\n" not in text and len(problem.message) == MAX_MESSAGE


def test_defaults_take_the_first_python_server_on_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for program in ("pyright-langserver", "ruff", "typescript-language-server"):
        (tmp_path / program).write_text("#!/bin/sh\n")
        (tmp_path / program).chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("AGENT_TUI_LSP")

    names = [s.name for s in lsp_settings({}).servers]
    configured = lsp_settings(
        {"lsp": {"servers": {"mine": {"command": ["x"], "patterns": ["*.py"]}}}}
    )

    assert names == ["pyright", "typescript"]
    assert [s.name for s in configured.servers] == ["mine", "typescript"]
    assert lsp_settings({"lsp": {"defaults": False}}).servers == ()
    monkeypatch.setenv("AGENT_TUI_LSP", "off")
    assert lsp_settings({}).servers == ()


async def test_stopping_a_server_stops_the_processes_it_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = f"LSP_TEST_{uuid.uuid4().hex}"
    monkeypatch.setenv(marker, "1")
    launcher = f"sleep 300 & exec {' '.join(_server('basedpyright'))}"
    spec = ServerSpec("py", ("sh", "-c", launcher), ("*.py",))
    manager = LspManager(LspSettings((spec,), wait_s=20), tmp_path)
    path = tmp_path / "m.py"
    path.write_text("b = 1\n")
    before = manager.before_edit([path])
    path.write_text('b: int = ""\n')

    report, count = await manager.after_edit([path], before)
    started = _marked(marker)
    await manager.aclose()

    assert "m.py:1:10 error" in report and count == 1
    assert len(started) >= 2  # the launcher and its sleep
    deadline = time.monotonic() + 10
    while _marked(marker) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    left = _marked(marker)
    for pid in left:
        os.kill(pid, 9)
    assert left == []


def test_a_workspace_sets_a_server_only_once_trusted(tmp_path: Path) -> None:
    from agent_tui.config import load_config

    (tmp_path / ".agentrc").write_text(
        '[lsp]\nwait_s = 5\ndefaults = false\n[lsp.servers.evil]\ncommand = ["sh", "-c", "id"]\n'
        'patterns = ["*.py"]\n'
    )
    user = tmp_path / "user.agentrc"
    user.write_text("")

    untrusted = load_config(tmp_path, env={}, trusted=False, user_file=user)
    trusted = load_config(tmp_path, env={}, trusted=True, user_file=user)

    assert lsp_settings(untrusted.raw) == LspSettings((), wait_s=5)
    assert "lsp.servers" in untrusted.ignored_untrusted
    assert [s.command for s in lsp_settings(trusted.raw).servers] == [("sh", "-c", "id")]


async def test_a_path_with_a_space_and_an_at_sign_gets_its_diagnostics(tmp_path: Path) -> None:
    """Its URI has %-escapes (a server may spell them its own way: matched unescaped), and the
    report names it as the workspace does."""
    workspace = tmp_path / "my project@2"
    workspace.mkdir()
    spec = ServerSpec("ruff", tuple(_server("ruff")), ("*.py",))
    manager = LspManager(LspSettings((spec,), wait_s=20), workspace)
    path = workspace / "a b.py"
    path.write_text("import os\n")
    try:
        report, count = await manager.after_edit([path], {path: None})  # a new file
    finally:
        await manager.aclose()

    assert "a b.py:1:8 warning `os` imported but unused" in report and count == 1


async def test_a_server_that_exits_is_skipped_with_one_notice(tmp_path: Path) -> None:
    spec = ServerSpec("ruff", tuple(_server("ruff")), ("*.py",))
    manager = LspManager(LspSettings((spec,), wait_s=20), tmp_path)
    path = tmp_path / "m.py"
    path.write_text("import os\n")
    try:
        first, _ = await manager.after_edit([path], {path: None})
        server = manager.servers["ruff"]
        assert server.pid is not None
        os.killpg(server.pid, 9)
        deadline = time.monotonic() + 10
        while server.alive and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        path.write_text("import os\nimport sys\n")
        second = await manager.after_edit([path], manager.before_edit([path]))
        third = await manager.after_edit([path], manager.before_edit([path]))
    finally:
        await manager.aclose()

    assert "`os` imported but unused" in first
    assert second == third == ("", 0)
    assert manager.take_notices() == [
        "Language server ruff skipped for this session: it exited. "
        "Edits get no diagnostics from it."
    ]
    assert manager.state(spec) == "skipped: it exited"


async def test_trusting_the_folder_brings_its_servers_and_the_tool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_tui.build import apply_trust, build_agent
    from agent_tui.config import load_config

    (tmp_path / ".agentrc").write_text(
        '[lsp.servers.mine]\ncommand = ["mine-langserver"]\npatterns = ["*.py"]\n'
    )
    user = tmp_path / "user.agentrc"
    user.write_text('[model]\nprovider = "anthropic"\nbase_url = "http://127.0.0.1:9"\n')
    monkeypatch.setenv("AGENT_TUI_USER_CONFIG", str(user))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    agent = build_agent(load_config(tmp_path, trusted=False))
    try:
        assert agent.deps.lsp is None and "diagnostics" not in agent.deps.tools
        await apply_trust(agent, True)
        assert agent.deps.lsp is not None
        assert [s.name for s in agent.deps.lsp.settings.servers] == ["mine"]
        assert "diagnostics" in agent.deps.tools
        await apply_trust(agent, False)
        assert agent.deps.lsp is None and "diagnostics" not in agent.deps.tools
    finally:
        await agent.aclose()
