"""A call described in prose names the tool as a whole word (agent/reply_checks.py), found without
compiling a regex per tool (issue 23 item 3): the same answers as ``(?<!\\w)name(?!\\w)``."""

from __future__ import annotations

import random
import re

import pytest

from agent_tui.agent.instructions import ENVIRONMENT_HEADING
from agent_tui.agent.reply_checks import described_call, is_context_echo, is_template_echo
from agent_tui.providers.base import ToolSpec

CREATE = ToolSpec("create_file", "", {"required": ["path", "content"]})
READ = ToolSpec("read_file", "", {"required": ["filePath"]})


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'll call create_file with path a.py and content x", "create_file"),
        ("create_file: path a.py, content x", "create_file"),
        ("I'll call recreate_file with path a.py and content x", None),  # part of a longer word
        ("I'll call create_files with path a.py and content x", None),
        ("I'll call écreate_file with path a.py and content x", None),  # a letter of any script
        ("I'll call create_file2 with path a.py and content x", None),
        ("(create_file) then recreate_file with path and content", "create_file"),
        ("recreate_file, then create_file with path and content", "create_file"),  # a later one
        ("I'll call create_file with path a.py", None),  # an argument it requires is not named
        ("read_file with file_path src/x.py", "read_file"),
    ],
)
def test_a_described_call_names_the_tool_as_a_whole_word(text: str, expected: str | None) -> None:
    assert described_call(text, [CREATE, READ]) == expected


def test_the_whole_word_check_answers_as_the_regex_did() -> None:
    pieces = ["a", "_", " ", "é", "1", "٣", "-", ".", "ab", "\n", "ß", "中", "x"]
    rng = random.Random(23)
    for _ in range(20_000):
        name = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 3)))
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 8)))
        spec = ToolSpec(name, "", {"required": ["a"]})
        flat_has_arg = "a" in text.lower().replace("_", "").replace("-", "")
        regex = re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", text) is not None
        assert (described_call(text, [spec]) == name) == (regex and flat_has_arg), (text, name)


@pytest.mark.parametrize(
    ("text", "echo"),
    [
        ("<tool_response>\nok\n</tool_response>", True),
        ("  <|im_start|>assistant\n<tool_call>\n</tool_call>  ", True),
        ("Hello there.", False),  # no "<": answered without compiling the pattern
        ("<tool_response>ok</tool_response> and then the answer", False),
        ("a < b", False),
    ],
)
def test_a_reply_of_template_markup_alone_is_an_echo(text: str, echo: bool) -> None:
    assert is_template_echo(text) is echo


def test_a_reply_of_the_context_block_alone_is_an_echo() -> None:
    block = f"<context>\n{ENVIRONMENT_HEADING.strip()}\nOS: Linux\n</context>"
    assert is_context_echo(block) and is_context_echo(f"{block}\n<|im_end|>")
    assert not is_context_echo(f"{block}\nThe answer is 4.")
    assert not is_context_echo("The answer is 4.") and not is_context_echo("<b>4</b>")
