"""The parser of tool calls written as text (providers/text_tool_calls.py), on its own."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tui.providers.text_tool_calls import (
    TextCallGate,
    could_be_call,
    parse_text_calls,
    text_calls_enabled,
)
from tests.providers.near_json import render

OFFERED = {"read_file", "list_dir", "run_in_terminal"}


def test_fenced_bare_and_tagged_forms_parse() -> None:
    call = '{"name": "read_file", "arguments": {"path": "a.py"}}'
    for text in (
        f"```json\n{call}\n```",
        f"```\n{call}\n```\n",
        f"  {call}  ",
        f"<tool_call>\n{call}\n</tool_call>",
        f"<tool_call>\n{call}\n",  # Qwen left out the closing tag of its last call
        '{"name": "read_file", "parameters": {"path": "a.py"}}',
        '{"type": "function", "function": {"name": "read_file", "arguments": "{\\"path\\": \\"a.py\\"}"}}',
    ):
        found = parse_text_calls(text, OFFERED)
        assert found is not None and not found.problem, text
        assert [(c.name, json.loads(c.arguments)) for c in found.calls] == [
            ("read_file", {"path": "a.py"})
        ]


def test_a_fence_inside_the_arguments_does_not_end_the_block() -> None:
    content = "# Title\n\n```sh\nmake\n```\n"
    call = json.dumps({"name": "read_file", "arguments": {"path": "x", "content": content}})
    found = parse_text_calls(f"```json\n{call}\n```", OFFERED)
    assert found is not None and not found.problem
    assert json.loads(found.calls[0].arguments)["content"] == content


def test_several_calls_in_one_reply() -> None:
    text = '{"name": "list_dir", "arguments": {}}\n\n```json\n{"name": "read_file", "arguments": {"path": "b"}}\n```'
    found = parse_text_calls(text, OFFERED)
    assert found is not None
    assert [c.name for c in found.calls] == ["list_dir", "read_file"]


def test_an_unknown_tool_in_any_part_stops_every_call() -> None:
    text = '{"name": "read_file", "arguments": {}}\n{"name": "rm_rf", "arguments": {}}'
    found = parse_text_calls(text, OFFERED)
    assert found is not None and found.calls == () and "rm_rf" in found.problem


def test_json_answers_that_are_not_calls_stay_answers() -> None:
    for text in (
        '{"name": "Ada", "age": 36}',
        '```json\n{"name": "read_file"}\n```',
        '```json\n{"name": "read_file", "arguments": {}, "extra": 1}\n```',
        "[1, 2, 3]",
        "```json\n[1, 2]\n```",
        "",
        "   ",
    ):
        assert parse_text_calls(text, OFFERED) is None, text


def test_enabled_except_for_the_hosted_apis() -> None:
    assert text_calls_enabled("auto", "http://127.0.0.1:8080/v1")
    assert not text_calls_enabled("auto", "https://api.openai.com/v1")
    assert not text_calls_enabled("auto", "https://api.anthropic.com")
    assert text_calls_enabled("auto", "https://api.openai.com.evil.example/v1")
    assert not text_calls_enabled("off", "http://127.0.0.1:8080/v1")


def test_the_gate_lets_prose_through_at_once_and_holds_a_call() -> None:
    gate = TextCallGate(True)
    assert gate.feed("Hel") == "Hel"
    assert gate.feed("lo") == "lo"
    held = TextCallGate(True)
    assert held.feed("```") == "" and held.feed("js") == "" and held.feed("on\n{") == ""
    assert held.holding
    code = TextCallGate(True)
    assert code.feed("```") == "" and code.feed("python\n") == "```python\n"
    assert TextCallGate(False).feed("{") == "{"


# Prose: letters, digits, punctuation and spaces, but no opening brace, fence or tag start.
_PROSE = st.text(
    alphabet=st.characters(blacklist_characters="{<`", blacklist_categories=("Cs",)),
    min_size=1,
    max_size=200,
).filter(lambda s: s.strip())


@settings(max_examples=300, deadline=None)
@given(prose=_PROSE, anything=st.text(max_size=200))
def test_random_prose_never_parses_as_a_call(prose: str, anything: str) -> None:
    call = '{"name": "read_file", "arguments": {"path": "a.py"}}'
    assert parse_text_calls(prose, OFFERED) is None
    assert not could_be_call(prose)
    # Prose before or after a perfectly good call makes the whole reply an answer.
    assert parse_text_calls(prose + "\n" + call, OFFERED) is None
    assert parse_text_calls(call + "\n" + prose, OFFERED) is None
    found = parse_text_calls(anything, OFFERED)
    assert found is None or found.problem or {c.name for c in found.calls} <= OFFERED


_ARGUMENTS = st.dictionaries(
    st.sampled_from(["path", "content", "flag", "count"]),
    st.none() | st.booleans() | st.integers(-99, 99) | st.text(max_size=20),
    max_size=3,
)
# How a small model wraps a call it wrote with a Python accent: the forms the parser knows, with a
# stray closing fence, an unclosed fence, or its chat template's tokens around it.
_WRAPS = st.sampled_from(
    [
        "{}",
        "{}\n```",
        "```json\n{}\n```\n```",
        "```json\n{}",
        "<tool_call>\n{}\n</tool_call>",
        "<|im_start|>assistant\n<tool_call>\n{}\n</tool_call><|im_end|>",
        "```json\n{}\n```<|im_end|>",
    ]
)


@settings(max_examples=300, deadline=None)
@given(arguments=_ARGUMENTS, wrap=_WRAPS, data=st.data())
def test_near_valid_calls_are_repaired_and_say_so(
    arguments: dict[str, object], wrap: str, data: st.DataObject
) -> None:
    style = lambda: data.draw(st.booleans())  # noqa: E731
    call = "{" + f'"name": "read_file", "arguments": {render(arguments, style)}' + "}"
    text = wrap.replace("{}", call)
    found = parse_text_calls(text, OFFERED)
    assert found is not None and not found.problem, text
    [made] = found.calls
    assert (made.name, json.loads(made.arguments)) == ("read_file", arguments)
    exact = call == json.dumps({"name": "read_file", "arguments": arguments}, ensure_ascii=False)
    assert bool(made.repaired) == (not exact or wrap not in ("{}", "<tool_call>\n{}\n</tool_call>"))


def test_the_issue_spelling_a_single_quoted_json_string() -> None:
    text = (
        '```json\n{"name": "read_file", "arguments": {"path": "config.json", '
        '"content": \'{"debug": true}\'}}\n```\n```'
    )
    found = parse_text_calls(text, OFFERED)
    assert found is not None and not found.problem
    assert json.loads(found.calls[0].arguments) == {
        "path": "config.json",
        "content": '{"debug": true}',
    }
    assert "Python literal" in found.calls[0].repaired and "fence" in found.calls[0].repaired


def test_a_lone_fence_or_template_token_is_not_a_call() -> None:
    for text in ("```", "<|im_end|>", "```\n<|im_end|>"):
        assert parse_text_calls(text, OFFERED) is None, text
    # A single-quoted call followed by prose: an attempt that cannot be read, never run.
    found = parse_text_calls("{'name': 'read_file', 'arguments': {}}\nDone!", OFFERED)
    assert found is not None and found.calls == () and found.problem
