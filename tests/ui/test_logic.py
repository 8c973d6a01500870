"""The app's pure parts: completion, picker persistence, edit validation, diff colouring."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from agent_tui.agent.references import find_tokens, parse_file_arg
from agent_tui.commands.registry import CommandRegistry, CommandResult, SlashCommand
from agent_tui.front import tool_prefs
from agent_tui.front.tools import Completions
from agent_tui.participants.registry import Participant, ParticipantRegistry
from agent_tui.tools.registry import ToolRegistry
from agent_tui.ui.completion import Completer, fuzzy_filter, list_files
from agent_tui.ui.local_commands import split_command
from agent_tui.ui.screens.approval import validate_edit
from agent_tui.ui.widgets.tool_card import coloured_diff, looks_like_diff
from tests.ui.conftest import LOOK, NOTE_SCHEMA, WRITE_NOTE, LookTool, WriteNoteTool


async def _noop(ctx: object, args: str) -> CommandResult:
    return CommandResult()


def _agent() -> SimpleNamespace:
    commands = CommandRegistry()
    commands.register(SlashCommand("help", "List commands", _noop))
    commands.register(SlashCommand("clear", "Clear", _noop))
    commands.register(SlashCommand("explain", "Explain code", _noop, participant="workspace"))
    participants = ParticipantRegistry()
    participants.register(Participant("workspace", "Ask about the workspace"))
    participants.register(Participant("terminal", "Ask about the terminal"))
    tools = ToolRegistry()
    tools.register(WRITE_NOTE, WriteNoteTool)
    tools.register(LOOK, LookTool)
    return SimpleNamespace(
        deps=SimpleNamespace(commands=commands, participants=participants, tools=tools)
    )


def test_slash_completion_only_at_the_start() -> None:
    completer = Completer(Completions(_agent()))
    start, offers = completer.complete("/he")
    assert start == 0 and [o.insert for o in offers] == ["/help "]
    assert offers[0].description == "List commands"
    assert completer.complete("say /he")[1] == []  # not a command in mid-sentence


def test_participant_command_completion() -> None:
    completer = Completer(Completions(_agent()))
    start, offers = completer.complete("@workspace /ex")
    assert start == len("@workspace ")
    assert [o.label for o in offers] == ["/explain"]


def test_participant_completion() -> None:
    _, offers = Completer(Completions(_agent())).complete("@t")
    assert [o.label for o in offers] == ["@terminal"]


def test_reference_completion_specials_tools_and_files() -> None:
    completer = Completer(
        Completions(_agent()), files=["src/app.py", "src/apple/pie.py", "README.md"]
    )
    _, offers = completer.complete("look at #ch")
    assert [o.label for o in offers] == ["#changes"]
    _, offers = completer.complete("#write")
    assert "#writeNote" in [o.label for o in offers]
    start, offers = completer.complete("see #file:apppy")
    assert start == 4
    assert offers[0].insert == "#file:src/app.py "


def test_file_completion_quotes_a_path_with_spaces_and_only_that_path() -> None:
    completer = Completer(Completions(_agent()), files=["docs/my notes.txt", "docs/notes.md"])

    _, offers = completer.complete("see #file:notes")

    inserts = {o.insert for o in offers}
    assert inserts == {'#file:"docs/my notes.txt" ', "#file:docs/notes.md "}
    assert '#file:"docs/my notes.txt"' in [o.label for o in offers]
    _, offers = completer.complete("#mynotes")  # a bare `#word` also offers files
    assert offers[0].insert == '#file:"docs/my notes.txt" '


def test_file_completion_inserts_what_the_reference_parser_reads_back() -> None:
    paths = ["my notes.txt", 'say "hi".txt', "v2:3", "notes!", "plain.txt"]

    _, offers = Completer(Completions(_agent()), files=paths).complete("#file:")

    read_back = []
    for offer in offers:
        (token,) = find_tokens(f"look at {offer.insert}now")
        read_back.append(parse_file_arg(token.arg))
    assert sorted(read_back) == sorted((path, None, None) for path in paths)
    assert "#file:plain.txt " in [o.insert for o in offers]


@pytest.mark.parametrize("typed", ['see #file:"my no', "see #file:'my no"])
def test_file_completion_inside_an_open_quote_replaces_from_the_hash(typed: str) -> None:
    completer = Completer(Completions(_agent()), files=["docs/my notes.txt", "nothing.py"])

    start, offers = completer.complete(typed)

    assert start == len("see ")
    assert offers[0].insert == '#file:"docs/my notes.txt" '


def test_a_closed_quoted_file_is_not_completed_again() -> None:
    completer = Completer(Completions(_agent()), files=["my notes.txt"])

    assert completer.complete('#file:"my notes.txt" ')[1] == []
    assert completer.complete('#file:"my notes.txt" and no')[1] == []
    assert completer.complete('issue#file:"my no')[1] == []  # not a reference mid-word


def test_disabled_tools_are_not_offered_as_references() -> None:
    agent = _agent()
    agent.deps.tools.disabled.add("write_note")
    _, offers = Completer(Completions(agent)).complete("#wr")
    assert "#writeNote" not in [o.label for o in offers]


def test_fuzzy_prefers_basename_and_rejects_non_subsequence() -> None:
    files = ["docs/app/intro.md", "src/app.py", "zzz.txt"]
    assert fuzzy_filter("app", files)[0] == "src/app.py"
    assert fuzzy_filter("qq", files) == []


def test_list_files_caps_and_skips_git(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("x")
    for i in range(5):
        (tmp_path / f"f{i}.txt").write_text("x")
    files = list_files(tmp_path)
    assert ".git/config" not in files and "f0.txt" in files
    assert len(list_files(tmp_path, cap=2)) == 2


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("/help", ("help", "")),
        ("/reset-confirmations  session ", ("reset-confirmations", "session")),
        ("hello /help", None),
        ("/", None),
        ("/ x", None),
    ],
)
def test_split_command(text: str, expected: tuple[str, str] | None) -> None:
    assert split_command(text) == expected


def test_validate_edit_rejects_bad_json_non_objects_and_schema_breaks() -> None:
    assert validate_edit("{", NOTE_SCHEMA)[0] is None
    assert "JSON object" in validate_edit("[1]", NOTE_SCHEMA)[1]
    value, problem = validate_edit('{"path": 3, "content": "x"}', NOTE_SCHEMA)
    assert value is None and "path" in problem
    value, problem = validate_edit('{"path": "a", "content": "x"}', NOTE_SCHEMA)
    assert value == {"path": "a", "content": "x"} and problem == ""


def test_tool_prefs_round_trip_per_workspace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_TUI_STATE_DIR", str(tmp_path / "state"))
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    assert tool_prefs.load_disabled(a) == set()
    tool_prefs.save_disabled(a, {"run_in_terminal", "fetch_webpage"})
    assert tool_prefs.load_disabled(a) == {"run_in_terminal", "fetch_webpage"}
    assert tool_prefs.load_disabled(b) == set()
    saved = json.loads((tmp_path / "state" / "tool_picker.json").read_text())
    assert str(a.resolve()) in saved  # keyed by real path, never stored in the workspace
    assert not any(a.iterdir())


def test_tool_prefs_survive_a_corrupt_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_TUI_STATE_DIR", str(tmp_path))
    (tmp_path / "tool_picker.json").write_text("{not json")
    assert tool_prefs.load_disabled(tmp_path) == set()
    tool_prefs.save_disabled(tmp_path, {"x"})
    assert tool_prefs.load_disabled(tmp_path) == {"x"}


def test_coloured_diff_styles_lines_and_strips_fences() -> None:
    text = coloured_diff("```diff\n--- a\n+++ b\n@@ -1 +1 @@\n-old\n+new\n same\n```")
    assert text.plain == "--- a\n+++ b\n@@ -1 +1 @@\n-old\n+new\n same"
    styles = {text.plain[s.start : s.end]: str(s.style) for s in text.spans}
    assert styles["-old\n"] == "red" and styles["+new\n"] == "green"
    assert looks_like_diff("```diff\n@@ -1 +1 @@\n```")
    assert not looks_like_diff("plain output\n+ not a diff header")
