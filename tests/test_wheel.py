"""The wheel carries tools/ and prompts/ and runs from a fresh venv, not only from a checkout."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out)],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    (path,) = out.glob("agent_tui-*.whl")
    return path


def test_wheel_contains_manifests_and_prompts(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert "agent_tui/_data/tools/read_file.json" in names
    assert "agent_tui/_data/prompts/system.md" in names
    assert not [n for n in names if n.startswith("tests/")]


def test_installed_wheel_runs_a_scripted_turn_outside_the_checkout(
    wheel: Path, tmp_path: Path
) -> None:
    uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    if uv is None:
        pytest.skip("uv is installed by scripts/setup.sh; run the suite through scripts/test.sh")
    venv = tmp_path / "venv"
    subprocess.run([uv, "venv", "-q", "--python", sys.executable, str(venv)], check=True)
    subprocess.run(
        [uv, "pip", "install", "-q", "--python", str(venv / "bin" / "python"), str(wheel)],
        check=True,
        capture_output=True,
    )
    work = tmp_path / "work"
    work.mkdir()
    (work / "hello.txt").write_text("wheel-ok\n")
    script = work / "script.json"
    script.write_text(
        json.dumps(
            [
                {"tool_calls": [{"id": "c1", "name": "read_file", "input": {"path": "hello.txt"}}]},
                {"text": "done"},
            ]
        )
    )
    env = {**os.environ, "AGENT_TUI_STATE_DIR": str(tmp_path / "state"), "HOME": str(tmp_path)}
    run = subprocess.run(
        [
            str(venv / "bin" / "agent-tui"),
            "-p",
            "read it",
            "--script",
            str(script),
            "--output-format",
            "json",
        ],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["result"] == "done"
    assert result["tool_calls"] == [{"id": "c1", "name": "read_file", "is_error": False}]


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def test_locks_pin_every_declared_dependency() -> None:
    """scripts/setup.sh installs from the locks: a dependency added to pyproject.toml but not
    locked would be missing on a fresh machine (refresh: see scripts/setup.sh)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for lock, required in (
        ("app.lock", project["dependencies"]),
        ("dev.lock", project["dependencies"] + project["optional-dependencies"]["dev"]),
    ):
        text = (ROOT / "requirements" / lock).read_text().lower()
        pinned = {line.split("==")[0] for line in text.splitlines() if "==" in line}
        assert {_name(r) for r in required} - pinned == set(), lock
