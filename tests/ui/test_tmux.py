"""The real-terminal check (scripts/tmux_check.sh): the app in tmux against the fake LLM server."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import missing

ROOT = Path(__file__).resolve().parents[2]


def run_tmux_script(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``scripts/SCRIPT ARGS`` with bash, from a bare environment (tmux must be installed)."""
    if shutil.which("tmux") is None:
        missing("tmux is not installed")
    return subprocess.run(
        ["bash", str(ROOT / "scripts" / script), *args],
        cwd=ROOT,
        env={
            "PATH": "/usr/bin:/bin:/usr/local/bin",
            "PYTHON": sys.executable,
            "TERM": "xterm-256color",
        },
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def test_tmux_prompt_approve_and_answer() -> None:
    proc = run_tmux_script("tmux_check.sh")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "tmux check: OK" in proc.stdout


@pytest.mark.parametrize("moment", ["stream", "dialog", "tool"])
def test_tmux_quit_mid_turn_exits_0_without_a_traceback(moment: str) -> None:
    """Ctrl+C twice while text streams, a dialog is open or a command runs (issue 11 §5)."""
    proc = run_tmux_script("tmux_quit_check.sh", moment)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "tmux quit check: OK" in proc.stdout


def test_tmux_at_path_mention_completes_and_attaches() -> None:
    """``@ldr`` + Tab completes to the file; sent, the file is attached (issue 17 §4)."""
    proc = run_tmux_script("tmux_mention_check.sh")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "tmux mention check: OK" in proc.stdout


@pytest.mark.parametrize("size", [("120", "40"), ("80", "24")])
def test_tmux_modes_plan_offer_and_type_ahead(size: tuple[str, str]) -> None:
    """Shift+Tab through the modes, a plan refused then carried out, a queued message (issue 17
    §1, §2), in a real terminal at both sizes."""
    proc = run_tmux_script("tmux_modes_check.sh", *size)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "tmux modes check: OK" in proc.stdout


def test_tmux_typing_across_the_dialog_opening_grants_nothing() -> None:
    """A message typed a key every 0.2 s while the approval dialog opens: no approvals.json, the
    command did not run, the message is whole in the prompt, then n denies (issue 22 §1)."""
    proc = run_tmux_script("tmux_dialog_check.sh")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "tmux dialog check: OK" in proc.stdout


@pytest.mark.parametrize("size", [("120", "40"), ("80", "24")])
def test_tmux_steering_keys_arrive_as_sent_by_xterm_tmux_and_kitty(size: tuple[str, str]) -> None:
    """ESC CR (Alt+Enter in xterm, tmux, VS Code), CSI 27;3;13~ (modifyOtherKeys) and Ctrl+S
    steer a running turn; the model gets each after the tool results (issue 23 §8)."""
    proc = run_tmux_script("tmux_keys_check.sh", *size)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "tmux keys check: OK" in proc.stdout


def test_tmux_ctrl_r_and_backslash_enter_arrive_as_a_terminal_sends_them() -> None:
    """At 80x24: Ctrl+R (0x12) searches earlier prompts, CR takes the match without sending,
    Esc cancels; a backslash then CR adds a newline, and the model gets both lines without the
    backslash; with [ui] vim, ESC b x in one write is Esc, b, x (issue 27 item 5)."""
    proc = run_tmux_script("tmux_prompt_keys_check.sh", "80", "24")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "tmux prompt keys check: OK" in proc.stdout


@pytest.mark.parametrize("size", [("120", "40"), ("80", "24")])
def test_tmux_text_typed_fast_or_pasted_arrives_whole(size: tuple[str, str]) -> None:
    """Over the plan offer, typed in one write and as a bracketed paste; in the approval's edit
    box right after e (issue 23 §9)."""
    proc = run_tmux_script("tmux_typing_check.sh", *size)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "tmux typing check: OK" in proc.stdout


@pytest.mark.parametrize("size", [("120", "40"), ("80", "24")])
def test_tmux_clear_starts_a_session_and_quitting_names_it(size: tuple[str, str]) -> None:
    """/clear starts a second session file, quitting prints `agent-tui --resume ID`, the cleared
    session resumes by its id (issue 23 §6); a prompt sent after paging up is answered in view
    (§7)."""
    proc = run_tmux_script("tmux_session_check.sh", *size)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "tmux session check: OK" in proc.stdout


@pytest.mark.parametrize("how", ["kill", "quit"])
def test_tmux_resume_after_the_app_ended_mid_command_shows_the_call_interrupted(how: str) -> None:
    """The app killed (or quit with Ctrl+C twice) while an approved command runs; ``--continue``
    shows that call as interrupted, not as running for ever (issue 23 item 5)."""
    proc = run_tmux_script("tmux_resume_check.sh", how)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "tmux resume check: OK" in proc.stdout


def test_tmux_status_line_and_terminal_output_at_80x24() -> None:
    """``[ui] status_line`` shows a real script's line (its retitle sequence as text, the pane's
    title untouched) and follows Shift+Tab; ``/terminals`` + Enter shows a background command's
    output, following the end (issue 27 §4, §7)."""
    proc = run_tmux_script("tmux_statusline_check.sh", "80", "24")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "tmux statusline check: OK" in proc.stdout


@pytest.mark.parametrize("size", [("100", "30"), ("80", "24")])
def test_tmux_rename_export_fork_and_resume_by_name(size: tuple[str, str]) -> None:
    """/rename, /export and /fork in a real terminal, then ``--resume PREFIX`` of a name holding
    an escape sequence reopens the original, the name shown escaped (issue 27 item 1)."""
    proc = run_tmux_script("tmux_names_check.sh", *size)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "tmux names check: OK" in proc.stdout


@pytest.mark.parametrize("terminal", [("120", "40", "truecolor"), ("80", "24", "256")])
def test_tmux_early_screen_takes_keys_looks_like_the_app_and_gives_the_terminal_back(
    terminal: tuple[str, str, str],
) -> None:
    """With the app's Textual import held: the early screen shows, a message typed on it reaches
    the model and a draft stays in the prompt; its footer and prompt line are the app's, byte for
    byte; the terminal's mode is restored after a quit, after Ctrl+C twice on the early screen
    (no session written), and after a configuration error, which prints readably (issue 23 §2)."""
    proc = run_tmux_script("tmux_early_screen_check.sh", *terminal)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "tmux early screen check: OK" in proc.stdout
