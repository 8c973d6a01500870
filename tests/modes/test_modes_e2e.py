"""Modes through `agent-tui -p` against the fake LLM server (issue 17 item 2).

Plan mode's promise is literal: whatever the model calls (edit tools, commands, a sub-agent that
writes, calls written as text) and whatever else allows it (`--yolo`, allow-all rules, grants),
nothing changes on disk; the model is told why each call was refused, and the plan is printed.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agent_tui.approvals.grants import GrantStore
from agent_tui.approvals.types import Scope
from agent_tui.modes.notes import PLAN_OFF, PLAN_ON
from tests.fakes.llm_server import FakeLLM
from tests.helpers import run_on_fake, tool_results

ALLOW_ALL = (
    '[tools.edits.auto_approve]\n"**" = true\n\n[tools.terminal.auto_approve]\n"touch" = true\n'
)
WRITER = "---\nname: writer\ndescription: Writes files\ntools: Write\n---\nYou write files.\n"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    (path / "src").mkdir(parents=True)
    (path / "src" / "app.py").write_text("print('hi')\n")
    (path / ".agent" / "agents").mkdir(parents=True)
    (path / ".agent" / "agents" / "writer.md").write_text(WRITER)
    (tmp_path / "home").mkdir()
    return path


def run(ws: Path, fake: FakeLLM, *args: str) -> subprocess.CompletedProcess[str]:
    return run_on_fake(
        ws, fake, *args, "--model", "test-model", "--output-format", "json",
        home=ws.parent / "home", state=ws.parent / "state", timeout=60,
    )  # fmt: skip


def calls(*items: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {
        "tool_calls": [
            {"id": f"call_{n}", "name": name, "input": input}
            for n, (name, input) in enumerate(items)
        ]
    }


def user_texts(message: dict[str, Any]) -> list[str]:
    content = message["content"]
    if isinstance(content, str):
        return [content]
    return [b["text"] for b in content if b.get("type") == "text"]


def tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


WRITES = (
    ("create_file", {"path": "src/new.py", "content": "x = 1\n"}),
    ("replace_string_in_file", {"path": "src/app.py", "old_string": "hi", "new_string": "bye"}),
    (
        "apply_patch",
        {"input": "*** Begin Patch\n*** Add File: src/p.py\n+p\n*** End Patch\n"},
    ),
    ("run_in_terminal", {"command": "touch src/touched", "explanation": "x"}),
)


@pytest.mark.parametrize("extra", [[], ["--yolo"], ["--allow-tool", "create_file"]])
def test_plan_mode_changes_nothing_whatever_allows_the_call(
    ws: Path, fake_llm: FakeLLM, extra: list[str]
) -> None:
    (ws.parent / "home" / ".agentrc").write_text(ALLOW_ALL)
    store = GrantStore(ws.resolve(), ws.parent / "state")
    for tool in ("create_file", "replace_string_in_file", "apply_patch", "run_in_terminal"):
        store.remember(Scope.ALWAYS, tool, None)
    before = tree(ws)
    read = ("read_file", {"path": "src/app.py"})
    fake_llm.set_script([calls(read, *WRITES), {"text": "PLAN: 1. rename the greeting"}])

    proc = run(ws, fake_llm, "-p", "rename the greeting", "--mode", "plan", *extra)

    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["result"] == "PLAN: 1. rename the greeting"
    assert tree(ws) == before  # nothing written, patched or touched
    got = tool_results(fake_llm.requests[1])
    assert "print('hi')" in got["call_0"]  # read-only tools still run
    for n in range(1, len(WRITES) + 1):
        assert "plan mode, only read-only tools run" in got[f"call_{n}"], got[f"call_{n}"]
        assert "Finish the plan with read-only tools" in got[f"call_{n}"]
    first_user = fake_llm.requests[0]["messages"][0]
    assert PLAN_ON in user_texts(first_user)  # the model was told, in the message it answered


def test_plan_mode_holds_for_a_sub_agent_and_for_calls_written_as_text(
    ws: Path, fake_llm: FakeLLM
) -> None:
    before = tree(ws)
    text_call = json.dumps({"name": "create_file", "arguments": {"path": "t.py", "content": "t"}})
    fake_llm.set_script(
        [
            calls(("run_agent", {"agent": "writer", "task": "write src/sub.py"})),
            calls(("create_file", {"path": "src/sub.py", "content": "sub\n"})),
            {"text": "the child could not write"},
            {"text": f"<tool_call>{text_call}</tool_call>"},
            {"text": "PLAN: done"},
        ]
    )

    proc = run(ws, fake_llm, "-p", "plan it", "--mode", "plan", "--yolo")

    assert proc.returncode == 0, proc.stderr
    assert tree(ws) == before
    child_results = tool_results(fake_llm.requests[2])
    assert "plan mode, only read-only tools run" in child_results["call_0"]


def test_the_plan_note_is_sent_once_and_leaving_plan_mode_is_said_once(
    ws: Path, fake_llm: FakeLLM
) -> None:
    fake_llm.set_script([{"text": "PLAN A"}, {"text": "PLAN B"}, {"text": "done"}, {"text": "ok"}])

    assert run(ws, fake_llm, "-p", "plan", "--mode", "plan").returncode == 0
    assert run(ws, fake_llm, "-p", "more", "--mode", "plan", "--continue").returncode == 0
    assert run(ws, fake_llm, "-p", "do it", "--continue").returncode == 0
    assert run(ws, fake_llm, "-p", "thanks", "--continue").returncode == 0

    first, second, third, fourth = fake_llm.requests
    assert PLAN_ON in user_texts(first["messages"][-1])
    assert PLAN_ON not in user_texts(second["messages"][-1])  # already told in this session
    assert user_texts(third["messages"][-1]) == ["do it", PLAN_OFF.format(mode="ask")]
    assert user_texts(fourth["messages"][-1]) == ["thanks"]
    # The earlier messages are sent as they were: the history is not rewritten.
    assert PLAN_ON in user_texts(fourth["messages"][0])


def test_note_text_in_an_attached_file_does_not_count_as_the_app_telling_the_model(
    ws: Path, fake_llm: FakeLLM
) -> None:
    """Only the app's own note block counts: a workspace file carrying the words of "plan mode is
    off" does not make the app believe the model was told so."""
    (ws / "notes.txt").write_text(PLAN_OFF.format(mode="ask"))
    fake_llm.set_script([{"text": "PLAN"}, {"text": "done"}])
    assert run(ws, fake_llm, "-p", "plan #file:notes.txt", "--mode", "plan").returncode == 0
    assert run(ws, fake_llm, "-p", "do it", "--continue").returncode == 0
    first, second = fake_llm.requests
    assert PLAN_ON in user_texts(first["messages"][-1])
    attached = [t for t in user_texts(first["messages"][-1]) if "Plan mode is off" in t]
    assert len(attached) == 1 and "notes.txt" in attached[0]  # the file did reach the model
    assert user_texts(second["messages"][-1]) == ["do it", PLAN_OFF.format(mode="ask")]


@pytest.mark.usefixtures("unsandboxed")  # commands ask
def test_accept_edits_writes_inside_the_workspace_and_still_asks_for_the_rest(
    ws: Path, fake_llm: FakeLLM
) -> None:
    outside = ws.parent / "outside.txt"
    fake_llm.set_script(
        [
            calls(
                ("create_file", {"path": "src/new.py", "content": "x = 1\n"}),
                (
                    "replace_string_in_file",
                    {"path": "src/app.py", "old_string": "hi", "new_string": "bye"},
                ),
                ("create_file", {"path": ".mcp.json", "content": "{}"}),
                ("create_file", {"path": str(outside), "content": "x"}),
                ("create_file", {"path": ".git/hooks/pre-commit", "content": "x"}),
                ("run_in_terminal", {"command": "touch src/touched", "explanation": "x"}),
            ),
            {"text": "done"},
        ]
    )

    proc = run(ws, fake_llm, "-p", "go", "--mode", "accept-edits", "--on-approval", "deny")

    assert proc.returncode == 0, proc.stderr
    assert (ws / "src/new.py").read_text() == "x = 1\n"
    assert (ws / "src/app.py").read_text() == "print('bye')\n"
    assert not (ws / ".mcp.json").exists()  # protected: asked, and -p denies
    assert not outside.exists()
    assert not (ws / ".git").exists()
    assert not (ws / "src/touched").exists()  # commands still ask
    got = tool_results(fake_llm.requests[1])
    assert all("declined" in got[f"call_{n}"] for n in (2, 4, 5)), got
    assert "only paths inside it can be used" in got["call_3"]  # the tool itself refuses


def test_plan_mode_asks_before_an_mcp_tool_only_its_server_calls_read_only(
    ws: Path, fake_llm: FakeLLM
) -> None:
    """A real MCP server: `shout` says readOnlyHint, `add_tool` does not. In plan mode neither
    runs unasked (headless: denied); in ask mode the hinted one runs as before."""
    import sys

    from tests.mcp.conftest import DYNAMIC_SERVER

    (ws.parent / "home" / ".agentrc").write_text(
        f'[mcp.servers.dyn]\ncommand = "{sys.executable}"\nargs = ["{DYNAMIC_SERVER}"]\n'
    )
    shout = ("mcp_dyn_shout", {"text": "quiet"})
    add = ("mcp_dyn_add_tool", {"name": "sneaky"})
    fake_llm.set_script([calls(shout, add), {"text": "PLAN"}, calls(shout), {"text": "ok"}])

    assert (
        run(ws, fake_llm, "-p", "plan", "--mode", "plan", "--on-approval", "deny").returncode == 0
    )
    got = tool_results(fake_llm.requests[1])
    assert "declined" in got["call_0"] and "QUIET" not in got["call_0"]
    assert "plan mode, only read-only tools run" in got["call_1"]

    assert run(ws, fake_llm, "-p", "shout", "--on-approval", "deny").returncode == 0
    assert "QUIET" in tool_results(fake_llm.requests[3])["call_0"]
