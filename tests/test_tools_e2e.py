"""A scripted model fixes a bug end to end through `agent-tui -p` (issue 3): search, read, patch,
run the tests in the terminal and see them pass."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.fakes.llm_server import FakeLLM
from tests.helpers import last_json, run_on_fake

CALC = "def add(a, b):\n    return a - b\n"
TEST = (
    "import unittest\nfrom calc import add\n\n\n"
    "class T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n\n\n"
    "unittest.main()\n"
)
PATCH = (
    "*** Begin Patch\n*** Update File: calc.py\n@@ def add(a, b):\n-    return a - b\n"
    "+    return a + b\n*** End Patch\n"
)


def test_search_read_patch_and_run_the_tests(tmp_path: Path, fake_llm: FakeLLM) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "calc.py").write_text(CALC)
    (ws / "test_calc.py").write_text(TEST)
    run_tests = f"{sys.executable} test_calc.py"
    fake_llm.set_script(
        [
            {"tool_calls": [{"id": "s", "name": "grep_search", "input": {"query": "def add"}}]},
            {"tool_calls": [{"id": "r", "name": "read_file", "input": {"path": "calc.py"}}]},
            {"tool_calls": [{"id": "p", "name": "apply_patch", "input": {"input": PATCH}}]},
            {
                "tool_calls": [
                    {"id": "t", "name": "run_in_terminal", "input": {"command": run_tests}}
                ]
            },
            {"text": "Fixed: add() subtracted; the test passes now."},
        ]
    )
    proc = run_on_fake(
        ws,
        fake_llm,
        "-p",
        "fix add",
        "--output-format",
        "json",
        "--allow-tool",
        "apply_patch",
        "--allow-tool",
        "run_in_terminal",
        home=tmp_path,
        state=tmp_path / "state",
    )
    assert proc.returncode == 0, proc.stderr
    assert (ws / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    result = last_json(proc)
    assert [c["name"] for c in result["tool_calls"]] == [
        "grep_search",
        "read_file",
        "apply_patch",
        "run_in_terminal",
    ]
    assert not any(c["is_error"] for c in result["tool_calls"])
    sent = [json.dumps(r["messages"][-1]) for r in fake_llm.requests]
    assert "calc.py:1" in sent[1]  # the search found the definition
    assert "return a - b" in sent[2]  # the model read the buggy line
    assert "OK" in sent[4] and "Exit code: 0" in sent[4]  # and saw the tests pass
