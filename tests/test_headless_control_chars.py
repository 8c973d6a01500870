"""``agent-tui -p`` never writes a model's or a tool's control characters raw (issue 10 §2).

A real subprocess against the fake LLM server: the model answers with escape sequences in its text,
in a path (whose error goes to stderr) and in a command (denied, reported on stderr). stdout and
stderr must show them visibly; stream-json must escape them; the model itself still gets the text
as it was (only what is shown changes); the saved session holds no raw control byte either.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakes.llm_server import FakeLLM
from tests.helpers import new_workspace, run_on_api

ATTACKS = {
    "csi": "\x1b[2K\x1b[1G",
    "osc-title": "\x1b]0;pwned\x07",
    "c1-csi": "\x9b2K",
    "bidi-override": "\u202e",
    "cr-overwrite": "\rEVIL",
}
# How each is shown instead.
SHOWN = {
    "csi": "␛[2K␛[1G",
    "osc-title": "␛]0;pwned␇",
    "c1-csi": "\\x9b2K",
    "bidi-override": "\\u202e",
    "cr-overwrite": "␍EVIL",
}
# Characters that must never reach the terminal raw (ESC, BEL, C1 CSI, RLO). A lone CR is checked
# through its visible form: run_cli reads text mode, which turns every CR into a newline.
RAW = ("\x1b", "\x07", "\x9b", "\u202e")


def run(ws: Path, fake: FakeLLM, *args: str) -> tuple[str, str, int]:
    proc = run_on_api(ws, fake, "anthropic", *args, key="sk-test")
    return proc.stdout, proc.stderr, proc.returncode


def script(attack: str) -> list[dict[str, object]]:
    read = {"id": "r1", "name": "read_file", "input": {"path": f"missing{attack}.txt"}}
    command = {"id": "t1", "name": "run_in_terminal", "input": {"command": f"echo {attack}x"}}
    return [
        {"text": f"Looking{attack}.\n", "tool_calls": [read, command]},
        {"text": f"Done: before{attack}after\n"},
    ]


def assert_nothing_raw(text: str) -> None:
    for char in RAW:
        assert char not in text, repr(text)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return new_workspace(tmp_path, home=True)


@pytest.mark.parametrize("name", ATTACKS)
def test_text_output_shows_control_characters(ws: Path, fake_llm: FakeLLM, name: str) -> None:
    attack = ATTACKS[name]
    fake_llm.set_script(script(attack))
    out, err, code = run(ws, fake_llm, "-p", "go", "--on-approval", "deny")
    assert code == 0, err
    assert_nothing_raw(out)
    assert_nothing_raw(err)
    assert f"Done: before{SHOWN[name]}after" in out
    assert f"missing{SHOWN[name]}.txt" in err  # the read_file error line, made visible
    # The model still got the tool result about the path exactly as it asked for it.
    results = json.dumps(fake_llm.requests[-1]["messages"], ensure_ascii=False)
    assert json.dumps(f"missing{attack}.txt", ensure_ascii=False)[1:-1] in results
    sessions = list((ws.parent / "state" / "sessions").rglob("*.jsonl"))
    assert sessions  # the session this run saved (JSON lines)
    for saved in sessions:
        data = saved.read_bytes()
        assert_nothing_raw(data.decode("utf-8"))
        assert b"\r" not in data


def test_text_output_marks_each_class_visibly(ws: Path, fake_llm: FakeLLM) -> None:
    fake_llm.set_script([{"text": "a" + "".join(ATTACKS.values()) + "b\n"}])
    out, err, code = run(ws, fake_llm, "-p", "go")
    assert code == 0, err
    assert out == "a␛[2K␛[1G␛]0;pwned␇\\x9b2K\\u202e␍EVILb\n"


@pytest.mark.parametrize("fmt", ["stream-json", "json"])
def test_json_output_escapes_what_a_terminal_would_act_on(
    ws: Path, fake_llm: FakeLLM, fmt: str
) -> None:
    text = "Done: " + "".join(ATTACKS.values())
    fake_llm.set_script([{"text": text}])
    out, err, code = run(ws, fake_llm, "-p", "go", "--output-format", fmt)
    assert code == 0, err
    assert_nothing_raw(out)
    result = json.loads(out.strip().splitlines()[-1])
    assert result["result"] == text  # the same value: only its JSON spelling changed
