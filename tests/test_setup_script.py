"""scripts/setup.sh dev names a missing test prerequisite up front (issue 13, item 2).

Before, a machine without npm got through the whole Python install and then stopped with
``npm: command not found`` (rc 127) from install-test-servers.sh. The script is copied into a
temp folder and run with a PATH holding only the commands it may use, so nothing is installed
anywhere and no apt-get is within reach.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# What setup.sh runs before it gets to the prerequisites, plus what a variant leaves in.
BASE_COMMANDS = ("bash", "dirname", "id", "sed", "cat")


def run_setup(tmp_path: Path, commands: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run a copy of setup.sh dev with PATH holding only ``commands`` (name -> target)."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "setup.sh", tmp_path / "scripts" / "setup.sh")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in BASE_COMMANDS:
        found = shutil.which(name)
        assert found, name
        (bin_dir / name).symlink_to(found)
    (bin_dir / "python3").symlink_to(sys.executable)
    for name, target in commands.items():
        (bin_dir / name).symlink_to(target)
    return subprocess.run(
        ["bash", str(tmp_path / "scripts" / "setup.sh"), "dev"],
        cwd=tmp_path,
        env={"PATH": str(bin_dir), "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
    )


def fake(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / f"fake-{name}"
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return str(path)


def real(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed here")
    return found


@pytest.mark.parametrize(
    ("variant", "wanted"),
    [
        ("no-node-no-npm", ["node >= 18 with npm"]),
        ("npm-without-node", ["node >= 18 with npm"]),
        ("node-too-old", ["node >= 18 with npm"]),
        ("no-git-no-node", ["git", "node >= 18 with npm"]),
    ],
)
def test_setup_dev_without_a_test_prerequisite_stops_first_naming_it(
    tmp_path: Path, variant: str, wanted: list[str]
) -> None:
    commands = {} if variant.startswith("no-git") else {"git": real("git")}
    if variant == "npm-without-node":
        commands["npm"] = fake(tmp_path, "npm", "exit 0")
    if variant == "node-too-old":
        commands["npm"] = fake(tmp_path, "npm", "exit 0")
        commands["node"] = fake(tmp_path, "node", "exit 1")  # fails the >= 18 check, like v16

    done = run_setup(tmp_path, commands)

    assert done.returncode == 2, done.stderr
    lines = [line for line in done.stderr.splitlines() if "note:" not in line]
    assert len(lines) == 1, done.stderr
    assert all(name in lines[0] for name in wanted) and "apt-get install" in lines[0]
    assert "command not found" not in done.stderr
    assert not (tmp_path / ".venv").exists()  # stopped before creating anything
