"""Shared fixtures. Helpers append their own fixtures here with small edits."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.fakes.llm_server import FakeLLM
from tests.helpers import XDG_DIRS, is_personal


@pytest.fixture(autouse=True)
def isolated_environment(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No test sees the person's agent-tui settings, keys, base URLs, HOME or XDG dirs.

    In-process code reads ``os.environ`` (config layers, state dir, ~/.agentrc); with, say,
    ``AGENT_TUI_PROVIDER=openai`` exported, tests would talk to another provider. HOME, the XDG
    dirs and the state dir point into a fresh temp dir (the user config, ``~/.agentrc``, follows
    HOME, so a test that moves HOME brings its own); tests set their own on top.
    """
    for name in [name for name in os.environ if is_personal(name)]:
        monkeypatch.delenv(name)
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    for name, sub in XDG_DIRS.items():
        monkeypatch.setenv(name, str(home / sub))
    monkeypatch.setenv("AGENT_TUI_STATE_DIR", str(home / "agent-tui-state"))
    # In-process apps and agents run commands outside the sandbox, so their snapshots and results
    # do not depend on whether bwrap works on the machine; tests/sandbox/ turns it back on, and
    # processes started through helpers.clean_env (which drops AGENT_TUI_*) have it as a user does.
    monkeypatch.setenv("AGENT_TUI_SANDBOX", "off")
    # Language servers found on PATH differ between machines (tests/lsp/ configures its own).
    monkeypatch.setenv("AGENT_TUI_LSP", "off")
    # The window probe gives up after 2 s (then the config's window applies); on a loaded machine
    # an in-process fake server can take that long, and tests that read the window would flake.
    from agent_tui.providers import context_probe

    monkeypatch.setattr(context_probe, "PROBE_TIMEOUT_S", 30.0)
    # The state files' notices are kept in the process until a front end shows them: one left by
    # an earlier test in this worker (a damaged file on purpose) would show in this test's app.
    from agent_tui.state_files import take_notices

    take_notices()


@pytest.fixture
def fake_llm() -> Iterator[FakeLLM]:
    """A fake LLM server on 127.0.0.1 (both APIs); script it with ``fake_llm.set_script(turns)``.

    ``.url`` is the Anthropic-style base URL (no ``/v1``), ``.openai_url`` the OpenAI-style one,
    ``.requests`` the JSON bodies received.
    """
    with FakeLLM() as server:
        yield server


@pytest.fixture
def unsandboxed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Processes this test starts run their commands outside the sandbox, as without bwrap.

    For tests of what still matters there: the approval policy's reading of command lines
    (options that write, paths outside, /dev/tcp) and the subreaper's handling of detached
    processes (it reads their host pids, which a PID namespace hides).
    """
    from tests import helpers

    monkeypatch.setitem(helpers.CHILD_DEFAULTS, "AGENT_TUI_SANDBOX", "off")
