"""When the early screen is the app's first screen, and when it is not (early_screen/decide.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.early_screen.decide import colour_system, decide, workspace_from_flags

TERMINAL = {"TERM": "xterm-256color", "COLORTERM": "truecolor"}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "home").mkdir()
    (tmp_path / "ws").mkdir()
    monkeypatch.chdir(tmp_path / "ws")
    return tmp_path / "home"


def env(home: Path, **more: str) -> dict[str, str]:
    return {**TERMINAL, "HOME": str(home), **more}


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--model", "gpt-4.1", "--provider=openai", "--yolo", "--trust"],
        ["--mode", "plan", "--sandbox", "off", "--add-dir", "/tmp", "--allow-tool", "x"],
        ["--base-url", "http://127.0.0.1:1/v1", "--max-cost", "1", "--web-search", "off"],
    ],
)
def test_flags_that_keep_the_empty_chat_first(home: Path, argv: list[str]) -> None:
    assert decide(argv, env(home), ttys=True) == (Path.cwd().resolve(), "truecolor")


@pytest.mark.parametrize(
    "argv",
    [
        ["-p", "hi"],
        ["--prompt=hi"],
        ["-c"],
        ["--continue"],
        ["--cont"],  # argparse takes abbreviations: not guessed here
        ["--resume"],
        ["--resume", "abc"],
        ["--fork"],
        ["--image", "x.png"],
        ["--help"],
        ["--version"],
        ["--list-approvals"],
        ["--reset-tool-confirmations"],
        ["hello"],
        ["mcp", "list"],
        ["acp"],
        ["export", "id"],
        ["sandbox"],
        ["--model"],  # a value missing: argparse says so on the normal screen
        ["-Cother"],
        ["-C", "missing-folder"],
    ],
)
def test_anything_else_first_gets_no_early_screen(home: Path, argv: list[str]) -> None:
    assert decide(argv, env(home), ttys=True) is None


def test_the_workspace_flag_names_the_folder_drawn(home: Path, tmp_path: Path) -> None:
    (tmp_path / "other").mkdir()
    assert workspace_from_flags(["-C", "../other"], Path.cwd()) == Path.cwd() / "../other"
    chosen = decide(["--workspace", str(tmp_path / "other")], env(home), ttys=True)
    assert chosen == ((tmp_path / "other").resolve(), "truecolor")


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"TERM": "xterm-256color", "COLORTERM": "truecolor"}, "truecolor"),
        ({"TERM": "xterm-256color", "COLORTERM": "24bit"}, "truecolor"),
        ({"TERM": "tmux-256color"}, "256"),
        ({"TERM": "xterm"}, None),  # 8/16 colours: Rich draws it otherwise
        ({"TERM": "dumb", "COLORTERM": "truecolor"}, None),
        ({}, None),
        ({"TERM": "xterm-256color", "NO_COLOR": "1"}, None),
    ],
)
def test_colours_as_rich_would_choose(environ: dict[str, str], expected: str | None) -> None:
    assert colour_system(environ) == expected


def test_not_without_terminals_or_when_turned_off(home: Path) -> None:
    assert decide([], env(home), ttys=False) is None
    assert decide([], env(home, AGENT_TUI_EARLY_SCREEN="0"), ttys=True) is None
    assert decide([], env(home, AGENT_TUI_EARLY_SCREEN="1"), ttys=True) is not None


@pytest.mark.parametrize(
    "text",
    [
        '[ui]\ntheme = "light"\n',
        "[ui]\nvim = true\n",
        '[ui.keys]\nsubmit = "ctrl+s"\n',
        "[ui\ntheme = 'dark'\n",  # broken: the app says what is wrong, on the normal screen
        "ui = 3\n",
    ],
)
@pytest.mark.parametrize("where", ["user", "workspace"])
def test_ui_settings_that_change_the_first_screen_rule_it_out(
    home: Path, text: str, where: str
) -> None:
    path = home / ".agentrc" if where == "user" else Path.cwd() / ".agentrc"
    path.write_text(text, encoding="utf-8")
    assert decide([], env(home), ttys=True) is None


def test_other_settings_keep_it(home: Path) -> None:
    (home / ".agentrc").write_text(
        '[ui]\ntheme = "dark"\nstatus_line = "echo hi"\nnotify = "bell"\n[model]\nname = "x"\n',
        encoding="utf-8",
    )
    (Path.cwd() / ".agentrc").write_text("[tools]\nauto_approve = true\n", encoding="utf-8")
    assert decide([], env(home), ttys=True) is not None


def test_the_user_file_named_by_the_environment_is_read(home: Path, tmp_path: Path) -> None:
    named = tmp_path / "rc.toml"
    named.write_text("[ui]\nvim = true\n", encoding="utf-8")
    assert decide([], env(home, AGENT_TUI_USER_CONFIG=str(named)), ttys=True) is None


def test_an_unreadable_file_rules_it_out(home: Path) -> None:
    (home / ".agentrc").mkdir()  # reading it fails with IsADirectoryError
    assert decide([], env(home), ttys=True) is None
