"""A language server whose config says `sandbox = true` runs inside the sandbox (real ruff server,
through `agent-tui -p`): its diagnostics still come back, and it cannot write outside the
workspace; with the sandbox off it is skipped with a notice, never run outside."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from tests.fakes.llm_server import FakeLLM
from tests.helpers import missing, new_workspace, run_on_fake, tool_results


def _rc(home: Path, sandbox: bool) -> Path:
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent))
    if ruff is None:
        missing("ruff is not installed")
    marker = home / "written-by-the-server"
    # The server first tries to write in HOME (outside the workspace), then starts as usual.
    launcher = f"echo x > {marker}; exec {ruff} server"
    home.mkdir(parents=True, exist_ok=True)
    (home / ".agentrc").write_text(
        "[lsp]\ndefaults = false\nwait_s = 20\n[lsp.servers.ruff]\n"
        f'command = {json.dumps(["sh", "-c", launcher])}\npatterns = ["*.py"]\n'
        f"sandbox = {'true' if sandbox else 'false'}\n"
    )
    return marker


def _run(tmp_path: Path, fake: FakeLLM, sandbox: str) -> tuple[str, str]:
    ws = new_workspace(tmp_path)
    fake.set_script(
        [
            {
                "tool_calls": [
                    {
                        "id": "c1",
                        "name": "create_file",
                        "input": {"path": "n.py", "content": "import os\n"},
                    }
                ]
            },
            {"text": "done"},
        ]
    )
    proc = run_on_fake(
        ws,
        fake,
        "-p",
        "go",
        "--yolo",
        "--output-format",
        "json",
        home=tmp_path / "home",
        state=tmp_path / "state",
        env={"AGENT_TUI_SANDBOX": sandbox},
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    notices = json.loads(proc.stdout.strip().splitlines()[-1])["notices"]
    return tool_results(fake.requests[1])["c1"], " ".join(notices)


@pytest.mark.usefixtures("bwrap")
def test_a_sandboxed_server_answers_but_cannot_write_home(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    marker = _rc(tmp_path / "home", sandbox=True)

    result, _ = _run(tmp_path, fake_llm, "workspace-write")

    assert "n.py:1:8 warning `os` imported but unused" in result, result
    assert not marker.exists()


def test_unsandboxed_the_same_server_writes_home(tmp_path: Path, fake_llm: FakeLLM) -> None:
    """The control: the launcher does write when the sandbox is not asked for."""
    marker = _rc(tmp_path / "home", sandbox=False)

    result, _ = _run(tmp_path, fake_llm, "off")

    assert "`os` imported but unused" in result
    assert marker.exists()


def test_a_server_that_asks_for_the_sandbox_is_skipped_when_it_is_off(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    marker = _rc(tmp_path / "home", sandbox=True)

    result, notices = _run(tmp_path, fake_llm, "off")

    assert "Language server ruff skipped" in notices and "sandbox = true" in notices
    assert "imported but unused" not in result
    assert not marker.exists()
