"""Ctrl+G edits the prompt in $VISUAL/$EDITOR; Esc twice on an empty prompt recalls the last one."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.ui.app_helpers import running_app
from tests.ui.conftest import MakeAgent
from tests.ui.helpers import send, wait_idle


def _editor(tmp_path: Path, body: str) -> str:
    script = tmp_path / "editor.py"
    script.write_text(f"import sys\npath = sys.argv[-1]\ntext = open(path).read()\n{body}\n")
    return f"{sys.executable} {script}"


async def test_ctrl_g_edits_the_prompt_in_the_editor(
    make_agent: MakeAgent, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = "open(path, 'w').write(text.upper() + ' (edited)\\n')"
    monkeypatch.setenv("VISUAL", _editor(tmp_path, body))
    monkeypatch.setenv("EDITOR", "false")  # VISUAL wins
    h = make_agent([])
    async with running_app(h.agent, size=(100, 30)) as (app, pilot):
        await pilot.press(*"fix it")
        await pilot.press("ctrl+g")
        await pilot.pause()
        assert app.prompt_input.text == "FIX IT (edited)"


async def test_a_failing_editor_leaves_the_prompt_alone(
    make_agent: MakeAgent, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", _editor(tmp_path, "open(path, 'w').write('junk'); sys.exit(1)"))
    h = make_agent([])
    async with running_app(h.agent, size=(100, 30)) as (app, pilot):
        await pilot.press(*"keep me")
        await pilot.press("ctrl+g")
        await pilot.pause()
        assert app.prompt_input.text == "keep me"


async def test_escape_twice_on_an_empty_prompt_brings_back_the_previous_one(
    make_agent: MakeAgent,
) -> None:
    h = make_agent([{"text": "ok"}])
    async with running_app(h.agent, size=(100, 30)) as (app, pilot):
        await send(pilot, "the first prompt")
        await wait_idle(pilot)
        await pilot.press("escape")
        assert app.prompt_input.text == ""  # the first Esc only offers
        await pilot.press("escape")
        assert app.prompt_input.text == "the first prompt"
        app.prompt_input.load_text("")
        await pilot.press("escape", "x", "backspace", "escape")  # not two in a row
        assert app.prompt_input.text == ""
