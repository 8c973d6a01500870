"""`agent-tui --help` names what argparse cannot see (issue 22 §6, §12): the `mcp` and `sandbox`
subcommands (dispatched before parsing) and what the default transport really is."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import run_cli


def test_help_names_the_subcommands_and_the_real_default_transport(tmp_path: Path) -> None:
    proc = run_cli(tmp_path, "--help", env={"HOME": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    text = " ".join(proc.stdout.split())  # argparse wraps to the terminal width
    assert "agent-tui mcp {list,tools,call,login,logout,add,add-json,remove,get}" in text
    assert "agent-tui sandbox [--mode M] -- CMD" in text
    assert "agent-tui's own HTTP/1.1 client" in text
    assert "HTTP via httpx (default)" not in text


def test_mcp_help_lists_every_subcommand(tmp_path: Path) -> None:
    proc = run_cli(tmp_path, "mcp", "-h", env={"HOME": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    for command in ("list", "tools NAME", "add NAME --url URL", "add-json NAME", "remove NAME"):
        assert f"  {command}" in proc.stdout
    assert "get NAME" in proc.stdout and "secrets masked" in proc.stdout
