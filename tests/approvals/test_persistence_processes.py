"""Grants across real processes: persistence per folder, concurrent grants, reset per scope."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.helpers import clean_env

REPO = Path(__file__).resolve().parents[2]

DECIDE = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from agent_tui.approvals.policy import ApprovalEngine
    from agent_tui.approvals.types import Decision, Scope
    from agent_tui.config import load_config
    from agent_tui.tools.base import Manifest, Prepared

    ws = Path(sys.argv[1])
    config = load_config(ws, env={}, trusted=True, user_file=ws / "no-user-rc")
    engine = ApprovalEngine(config, ws)
    tool = Manifest("run_in_terminal", "", "", "", "run", {}, "execute")
    call = {"command": "make build"}
    if sys.argv[2] == "grant":
        pattern = engine.suggest_pattern(tool, call)
        engine.record(tool, call, Decision(allow=True, scope=Scope(sys.argv[3]), pattern=pattern))
    print(engine.decide(tool, call, Prepared("", "")).action)
    """
)

RACE = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from agent_tui.approvals.grants import GrantStore
    from agent_tui.approvals.types import Scope

    store = GrantStore(Path(sys.argv[1]))
    print("ready", flush=True)
    sys.stdin.readline()  # the barrier: the parent says go to both at once
    for i in range(int(sys.argv[3])):
        store.add(Scope.ALWAYS if i % 2 else Scope.WORKSPACE, "run_in_terminal", f"{sys.argv[2]}-{i}")
    print("done", flush=True)
    """
)

CLI = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from agent_tui.approvals import cli_cmds
    from agent_tui.approvals.grants import GrantStore
    from agent_tui.approvals.types import Scope

    action, ws = sys.argv[1], Path(sys.argv[2])
    if action == "add":
        GrantStore(ws).add(Scope(sys.argv[3]), "run_in_terminal", sys.argv[4])
    elif action == "reset":
        sys.exit(cli_cmds.reset_command(sys.argv[3], ws))
    elif action == "list":
        sys.exit(cli_cmds.list_command(ws))
    """
)


@pytest.fixture
def env(state: Path) -> dict[str, str]:
    return clean_env({"AGENT_TUI_STATE_DIR": str(state), "PYTHONPATH": str(REPO)})


def _run(env: dict[str, str], code: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout


@pytest.fixture
def two_folders(tmp_path: Path) -> tuple[Path, Path]:
    a, b = tmp_path / "proj-a", tmp_path / "proj-b"
    a.mkdir()
    b.mkdir()
    return a, b


def test_workspace_grant_is_honoured_in_the_next_process_and_not_elsewhere(
    env: dict[str, str], two_folders: tuple[Path, Path]
) -> None:
    a, b = two_folders
    assert _run(env, DECIDE, str(a), "decide").strip() == "ask"
    assert _run(env, DECIDE, str(a), "grant", "workspace").strip() == "allow"
    assert _run(env, DECIDE, str(a), "decide").strip() == "allow"
    assert _run(env, DECIDE, str(b), "decide").strip() == "ask"


def test_session_grant_dies_with_its_process(
    env: dict[str, str], two_folders: tuple[Path, Path]
) -> None:
    a, _ = two_folders
    assert _run(env, DECIDE, str(a), "grant", "session").strip() == "allow"
    assert _run(env, DECIDE, str(a), "decide").strip() == "ask"


def test_always_grant_applies_in_every_folder(
    env: dict[str, str], two_folders: tuple[Path, Path]
) -> None:
    a, b = two_folders
    _run(env, DECIDE, str(a), "grant", "always")
    assert _run(env, DECIDE, str(b), "decide").strip() == "allow"


def test_two_processes_granting_at_once_keep_every_grant(
    env: dict[str, str], two_folders: tuple[Path, Path], state: Path
) -> None:
    from agent_tui.approvals.grants import GrantStore

    a, _ = two_folders
    count = 40
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", RACE, str(a), name, str(count)],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for name in ("first", "second")
    ]
    for proc in procs:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    for proc in procs:
        out, _ = proc.communicate(timeout=120)
        assert proc.returncode == 0 and out.strip() == "done"
    patterns = {g.pattern for g in GrantStore(a, state).grants()}
    expected = {f"{name}-{i}" for name in ("first", "second") for i in range(count)}
    assert patterns == expected
    assert not list(state.glob(".approvals.json.*.tmp"))  # no temp files left behind


def test_reset_in_another_process_clears_exactly_the_scope_asked(
    env: dict[str, str], two_folders: tuple[Path, Path]
) -> None:
    a, b = two_folders
    _run(env, CLI, "add", str(a), "workspace", "ws-a")
    _run(env, CLI, "add", str(b), "workspace", "ws-b")
    _run(env, CLI, "add", str(a), "always", "everywhere")
    out = _run(env, CLI, "reset", str(a), "workspace")
    assert "Cleared 1 workspace approval" in out and "ws-a" in out
    listed_a, listed_b = _run(env, CLI, "list", str(a)), _run(env, CLI, "list", str(b))
    assert "ws-a" not in listed_a and "everywhere" in listed_a
    assert "ws-b" in listed_b and "everywhere" in listed_b
    out = _run(env, CLI, "reset", str(a), "always")
    assert "Cleared 1 always approval" in out
    assert "ws-b" in _run(env, CLI, "list", str(b))
    assert "everywhere" not in _run(env, CLI, "list", str(b))
