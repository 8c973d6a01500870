"""The sandbox tests run the real bwrap (scripts/setup.sh dev installs it with apt-get as root)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agent_tui.sandbox.bwrap import availability


@pytest.fixture(autouse=True)
def sandbox_as_configured(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests see the sandbox as a user's config makes it (tests/conftest.py turns it off)."""
    monkeypatch.delenv("AGENT_TUI_SANDBOX", raising=False)


@pytest.fixture
def bwrap() -> None:
    """Skip, naming why, where bwrap cannot run (CI installs it and must not skip)."""
    found = availability()
    if not found.ok:
        pytest.skip(f"the sandbox cannot run here: {found.reason}; {found.fix}")
    if not sys.platform.startswith("linux"):
        pytest.skip("bwrap is Linux-only")


KEY = "-----BEGIN OPENSSH PRIVATE KEY----- sandbox-test-key"
SECRETS = (KEY, "AKIASECRET", "netrc-secret", "user-config-secret")


def home_and_repo(tmp_path: Path) -> tuple[Path, Path]:
    """A HOME holding a fake key, AWS credentials, a .netrc, a user config and a .bashrc (the
    strings in SECRETS would show a leak), and a workspace that is a git repository."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text(KEY)
    (home / ".aws").mkdir()
    (home / ".aws" / "credentials").write_text("aws_secret_access_key = AKIASECRET")
    (home / ".netrc").write_text("machine x login me password netrc-secret")
    (home / ".agentrc").write_text("# user-config-secret\n")
    (home / ".bashrc").write_text("# mine\n")
    ws = tmp_path / "ws"
    ws.mkdir()
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    return home, ws
