"""The SSE parser: WHATWG framing rules, and the same events whatever way the text is split."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from agent_tui.providers.sse import SSEEvent, SSEParser

FIXTURES = Path(__file__).parent.parent / "fixtures" / "streams"


def parse(*pieces: str) -> list[SSEEvent]:
    parser = SSEParser()
    return [event for piece in pieces for event in parser.feed(piece)]


def test_event_and_data_fields() -> None:
    assert parse('event: ping\ndata: {"type": "ping"}\n\n') == [
        SSEEvent("ping", '{"type": "ping"}')
    ]


def test_data_lines_join_with_newlines_and_one_leading_space_is_stripped() -> None:
    assert parse("data: a\ndata:  b\ndata:c\n\n") == [SSEEvent(None, "a\n b\nc")]


def test_comments_and_unknown_fields_are_skipped() -> None:
    assert parse(": keep-alive\nfoo: bar\ndata: x\n\n") == [SSEEvent(None, "x")]


def test_event_without_data_is_not_dispatched_and_does_not_leak_its_name() -> None:
    assert parse("event: lonely\n\ndata: x\n\n") == [SSEEvent(None, "x")]


def test_crlf_and_cr_line_endings() -> None:
    assert parse("event: a\r\ndata: 1\r\n\r\nevent: b\rdata: 2\r\r") == [
        SSEEvent("a", "1"),
        SSEEvent("b", "2"),
    ]


def test_crlf_split_across_chunks_is_one_line_end() -> None:
    # A CR at the end of one chunk and the LF at the start of the next must not make a blank line.
    assert parse("data: 1\r", "\ndata: 2\r\n\r\n") == [SSEEvent(None, "1\n2")]


def test_id_and_retry_are_kept() -> None:
    assert parse("id: 7\nretry: 1500\ndata: x\n\n") == [SSEEvent(None, "x", id="7", retry=1500)]


def test_partial_event_at_end_of_stream_is_not_dispatched() -> None:
    assert parse("data: complete\n\ndata: never finished\n") == [SSEEvent(None, "complete")]


def test_form_feed_and_unicode_separators_are_not_line_breaks() -> None:
    assert parse("data: a\x0cb\u2028c\n\n") == [SSEEvent(None, "a\x0cb\u2028c")]


@given(st.lists(st.integers(min_value=0, max_value=4000), max_size=30))
def test_any_split_of_a_recorded_stream_gives_the_same_events(cuts: list[int]) -> None:
    text = (FIXTURES / "anthropic_thinking_parallel_tools.sse").read_text()
    text = text.replace("\n", "\r\n")  # the hardest line ending to split
    whole = parse(text)
    bounds = sorted({min(c, len(text)) for c in cuts})
    pieces = [text[a:b] for a, b in zip([0, *bounds], [*bounds, len(text)], strict=True)]
    assert parse(*pieces) == whole
    assert len(whole) == 21  # every event in the file
