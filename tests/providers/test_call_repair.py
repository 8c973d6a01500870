"""Near-JSON tool-call arguments (providers/call_repair.py): every spelling of a value with one
reading is read as that value, and says it was repaired; anything else is refused."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tui.providers.call_repair import loads_lenient
from tests.providers.near_json import render

_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=30)
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | _TEXT
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=12,
)
_OBJECTS = st.dictionaries(_TEXT, _VALUES, min_size=1, max_size=4)


def _style(data: st.DataObject) -> Any:
    return lambda: data.draw(st.booleans())


@settings(max_examples=300, deadline=None)
@given(value=_OBJECTS, data=st.data())
def test_any_mix_of_json_and_python_spellings_reads_as_the_value(
    value: dict[str, Any], data: st.DataObject
) -> None:
    text = render(value, _style(data))
    read = loads_lenient(text)
    assert read.value == value
    assert bool(read.repair) == (text != json.dumps(value, ensure_ascii=False))


@settings(max_examples=200, deadline=None)
@given(value=_OBJECTS, data=st.data())
def test_raw_line_breaks_inside_strings_are_read(
    value: dict[str, Any], data: st.DataObject
) -> None:
    text = render(value, _style(data), raw_newlines=True)
    read = loads_lenient(text)
    assert read.value == value
    assert bool(read.repair) == ("\n" in text)


@settings(max_examples=200, deadline=None)
@given(
    value=_OBJECTS,
    data=st.data(),
    opening=st.sampled_from(["", "```\n", "```json\n", "  ```JSON \n"]),
    closing=st.sampled_from(["\n```", "```", "\n```\n", " \n```  "]),
)
def test_a_stray_fence_at_either_end_is_removed(
    value: dict[str, Any], data: st.DataObject, opening: str, closing: str
) -> None:
    read = loads_lenient(opening + render(value, _style(data)) + closing)
    assert read.value == value
    assert "fence" in read.repair


@pytest.mark.parametrize(
    "text",
    [
        '{"a": (1, 2)}',  # a tuple: a list or not?
        '{"a": {1, 2}}',  # a set
        "{\"a\": b'x'}",  # bytes
        "{'a': 1e999}",  # not a finite number (strict JSON reads it as Python does: not ours)
        '{"a": os.system("touch pwned")}',  # a call: never evaluated
        '{"a": __import__("os")}',
        '{"a": x}',  # any other name
        '{1: "a"}',  # a key that is not a string
        "{'a': '\\ud800'}",  # half a surrogate pair
        "{'a': 'unterminated}",
        '{"a": 1} {"b": 2}',  # two values
        "[" * 150 + "'a'" + "]" * 150,  # deeper than any call's arguments
    ],
)
def test_what_has_no_single_reading_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        loads_lenient(text)


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=80) | st.from_regex(r"\{['\"a-z: ,TrueFalsNn\[\]0-9]*\}"))
def test_whatever_is_read_is_plain_json_data(text: str) -> None:
    try:
        read = loads_lenient(text)
    except ValueError:
        return
    assert json.loads(json.dumps(read.value, allow_nan=False)) == read.value


def test_strict_json_is_not_marked_repaired() -> None:
    assert loads_lenient('{"path": "a.py", "flag": true}').repair == ""
