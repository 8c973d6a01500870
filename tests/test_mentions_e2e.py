"""``@path`` mentions through `agent-tui -p` against the fake LLM server (issue 17, item 4)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakes.llm_server import FakeLLM
from tests.helpers import new_workspace
from tests.test_headless_e2e import APIS, run


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return new_workspace(tmp_path, {"main.py": 'print("the-file-text-42")\n'})


@pytest.mark.parametrize("api", APIS)
def test_at_path_mention_attaches_the_file(ws: Path, fake_llm: FakeLLM, api: str) -> None:
    fake_llm.set_script([{"text": "It prints."}])
    proc = run(ws, fake_llm, api, "-p", "explain @main.py")
    assert proc.returncode == 0, proc.stderr
    body = json.dumps(fake_llm.requests[0])
    assert "the-file-text-42" in body and "explain @main.py" in body


@pytest.mark.parametrize("words", ["@src/app.py explain it", "@Makefile what does it build?"])
def test_at_path_as_first_word_was_unknown_participant(
    ws: Path, fake_llm: FakeLLM, words: str
) -> None:
    (ws / "src").mkdir()
    (ws / "src" / "app.py").write_text("APP_MARKER_7 = 1\n")
    (ws / "Makefile").write_text("all:\n\techo MAKE_MARKER_8\n")
    fake_llm.set_script([{"text": "ok"}])
    proc = run(ws, fake_llm, "anthropic", "-p", words)
    assert proc.returncode == 0, proc.stderr
    body = json.dumps(fake_llm.requests[0])
    assert ("APP_MARKER_7" in body) != ("MAKE_MARKER_8" in body)


def test_a_participant_of_the_same_name_wins_and_says_so(ws: Path, fake_llm: FakeLLM) -> None:
    (ws / "workspace").write_text("FILE_NAMED_WORKSPACE_9\n")
    fake_llm.set_script([{"text": "ok"}])
    proc = run(ws, fake_llm, "anthropic", "-p", "@workspace where is main?")
    assert proc.returncode == 0, proc.stderr
    assert "FILE_NAMED_WORKSPACE_9" not in json.dumps(fake_llm.requests[0])
    assert "#file:workspace" in proc.stderr  # the notice says how to attach the file instead


@pytest.mark.parametrize(
    "mention", ["@../secret.txt", "@{outside}/secret.txt", "@link/secret.txt", "@leak.txt"]
)
def test_mentions_outside_the_workspace_are_refused(
    ws: Path, fake_llm: FakeLLM, mention: str
) -> None:
    outside = ws.parent / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("OUTSIDE_SECRET_5\n")
    (ws.parent / "secret.txt").write_text("OUTSIDE_SECRET_5\n")
    (ws / "link").symlink_to(outside)
    (ws / "leak.txt").symlink_to(outside / "secret.txt")
    fake_llm.set_script([{"text": "ok"}])
    prompt = f"look at {mention.format(outside=outside)} please"
    proc = run(ws, fake_llm, "anthropic", "-p", prompt)
    assert proc.returncode == 2, proc.stderr
    assert "outside the workspace" in proc.stderr
    assert fake_llm.requests == []


@pytest.mark.parametrize(
    "prompt",
    [
        "ask @alice about @types/node, mail bob@x.org",
        "decode @" + "QUFB" * 200,  # longer than a file name may be: text, not a crash
        "see @" + "x" * 300 + " mid-sentence",
        "use @property and @dataclass(frozen=True) here",
    ],
)
def test_mentions_that_name_no_file_stay_text(ws: Path, fake_llm: FakeLLM, prompt: str) -> None:
    fake_llm.set_script([{"text": "ok"}])
    proc = run(ws, fake_llm, "anthropic", "-p", prompt)
    assert proc.returncode == 0, proc.stderr
    assert prompt in json.dumps(fake_llm.requests[0])


def test_a_first_word_naming_nothing_is_still_an_unknown_participant(
    ws: Path, fake_llm: FakeLLM
) -> None:
    for word in ("@nobody", "@" + "x" * 300):  # too long for a file name: no crash either
        proc = run(ws, fake_llm, "anthropic", "-p", f"{word} hello")
        assert proc.returncode == 2 and "unknown participant" in proc.stderr, proc.stderr
    assert fake_llm.requests == []
