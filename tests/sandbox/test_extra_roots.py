"""Which folders may become extra roots (sandbox/extra_roots.py), and `/add-dir` reaching all
three users of the one list: the tools, the approval engine and the sandbox's writable set."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.build import build_agent
from agent_tui.commands.roots_cmds import add_extra_root
from agent_tui.config import load_config
from agent_tui.errors import ToolError, UsageError
from agent_tui.sandbox.extra_roots import check_extra_root
from agent_tui.tools.base import Prepared, ToolContext
from tests.approvals.conftest import manifest


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / "src" / "lib").mkdir(parents=True)
    (home / "ws").mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("AGENT_TUI_STATE_DIR", str(home / "state"))
    (home / "state").mkdir()
    return home


@pytest.mark.parametrize(
    ("given", "says"),
    [
        ("~", "home folder"),
        ("/", "root of the file system"),
        ("~/.ssh", "credentials (~/.ssh)"),
        ("~/state", "agent-tui's own state"),
        ("link-home", "home folder"),  # a link is resolved first
        ("~/src/lib/nope", "not a folder"),
        ("~/ws/sub", "inside the workspace"),
        ("", "Give a folder"),
    ],
)
def test_refused(home: Path, given: str, says: str) -> None:
    (home / "ws" / "sub").mkdir(exist_ok=True)
    (home / "ws" / "link-home").symlink_to(home)
    with pytest.raises(UsageError) as refused:
        check_extra_root(given, home / "ws")
    assert says in str(refused.value)


def test_a_folder_beside_the_workspace_is_taken_resolved(home: Path) -> None:
    (home / "ws" / "lib-link").symlink_to(home / "src" / "lib")
    assert check_extra_root("lib-link", home / "ws") == (home / "src" / "lib").resolve()
    with pytest.raises(UsageError, match="extra root already"):
        check_extra_root("lib-link", home / "ws", [(home / "src").resolve()])


def test_add_dir_reaches_the_tools_the_engine_and_the_sandbox(home: Path) -> None:
    ws, lib = home / "ws", (home / "src" / "lib").resolve()
    (lib / "a.txt").write_text("x")
    agent = build_agent(load_config(ws, env={}, user_file=home / "no-rc"))
    deps = agent.deps
    context = ToolContext(ws, deps.session, deps.config)
    with pytest.raises(ToolError, match="outside the workspace"):
        context.resolve(str(lib / "a.txt"))
    add_extra_root(deps, str(lib))
    assert context.resolve(str(lib / "a.txt")) == lib / "a.txt"
    verdict = deps.approvals.decide(
        manifest("read_file"), {}, Prepared("", "", paths=(lib / "a.txt",))
    )
    assert (verdict.action, verdict.step) == ("allow", "read_only")
    assert deps.sandbox is not None and lib in deps.sandbox.policy.writable
    assert lib / ".git/config" in deps.sandbox.policy.protected()  # read-only inside it too
