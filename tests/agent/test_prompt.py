"""The prompt budget: priorities, whole-turn pruning, reference shrinking, follow-up rounds."""

from __future__ import annotations

import json

import pytest

from agent_tui.agent.prompt import (
    ELIDED,
    build_prompt,
    estimate_tokens,
    message_tokens,
    shrink_reference,
    split_attachments,
    split_turns,
)
from agent_tui.agent.references import Reference, number_lines
from agent_tui.conversation import (
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    user_text,
)
from agent_tui.errors import UsageError

SYSTEM = "You are a careful coding agent. " * 40


def tool_turn(n: int, output_chars: int = 4000) -> list[Message]:
    """One past turn: a request, a tool call, its (large) result, and the answer."""
    call_id = f"call_{n}"
    return [
        user_text(f"request {n}: please look at module {n}"),
        Message(
            "assistant",
            [TextBlock("Reading."), ToolUseBlock(call_id, "read_file", {"path": f"m{n}.py"})],
        ),
        Message(
            "user", [ToolResultBlock(call_id, f"# module {n}\n" + "x = 1\n" * (output_chars // 6))]
        ),
        Message("assistant", [TextBlock(f"answer {n}: module {n} sets x")]),
    ]


def file_reference(name: str, lines: int, focus: tuple[int, int] | None = None) -> Reference:
    body = number_lines([f"value_{i} = compute({i})" for i in range(1, lines + 1)], 1)
    text = f"{name} ({lines} lines)\n{body}"
    shifted = (focus[0] + 1, focus[1] + 1) if focus else None  # line 1 of the text is the header
    return Reference("file", f"#file:{name}", text, shifted)


def assert_calls_and_results_pair(messages: list[Message]) -> None:
    uses = {b.id for m in messages for b in m.content if isinstance(b, ToolUseBlock)}
    results = {b.tool_use_id for m in messages for b in m.content if isinstance(b, ToolResultBlock)}
    assert uses == results


def request_tokens(system: str, messages: list[Message], tools_chars: int = 0) -> int:
    return estimate_tokens(system) + -(-tools_chars // 4) + sum(message_tokens(m) for m in messages)


def test_estimate_tokens_is_chars_over_four_rounded_up() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("abc") == 1
    assert estimate_tokens("abcd") == 1
    assert estimate_tokens("abcde") == 2
    assert estimate_tokens("x" * 4000) == 1000


def test_everything_fits_nothing_is_pruned_and_references_come_before_the_request() -> None:
    history = tool_turn(1, 200)
    ref = file_reference("a.py", 5)

    built = build_prompt(
        SYSTEM,
        history,
        user_text("explain a.py"),
        [ref, Reference("tool", "#grep", "")],
        context_window=100_000,
        reply_budget=8_000,
    )

    assert built.dropped == () and built.shrunk == ()
    assert built.system == SYSTEM
    assert built.messages[:-1] == history
    current = built.messages[-1]
    assert current.role == "user"
    assert [b.text for b in current.content if isinstance(b, TextBlock)] == [
        f'<attachment label="#file:a.py">\n{ref.text}\n</attachment>',
        "explain a.py",
    ]
    assert built.estimated_tokens == request_tokens(SYSTEM, built.messages)


def test_300_turn_conversation_with_large_references_fits_a_small_window() -> None:
    history = [m for n in range(300) for m in tool_turn(n)]
    for n in range(0, 300, 10):  # earlier requests carried their own large attachments
        old = file_reference(f"old{n}.py", 800)
        history[4 * n] = Message(
            "user",
            [
                TextBlock(f'<attachment label="{old.label}">\n{old.text}\n</attachment>'),
                *history[4 * n].content,
            ],
        )
    current = user_text("now refactor module 299 and keep the API")
    references = [
        file_reference("huge.py", 5000, focus=(2400, 2420)),
        file_reference("other.py", 3000),
    ]
    window, reply, tools_chars = 16_000, 4_000, 6_000

    built = build_prompt(
        SYSTEM,
        history,
        current,
        references,
        context_window=window,
        reply_budget=reply,
        tools_chars=tools_chars,
    )

    assert request_tokens(SYSTEM, built.messages, tools_chars) <= window - reply
    assert built.estimated_tokens <= window - reply
    assert built.system == SYSTEM  # base instructions intact
    last_two = history[-8:]
    assert built.messages[-9:-1] == last_two  # the last two turns, whole
    assert built.messages[-1].content[-1] == TextBlock(current.text)  # the request, intact
    assert built.messages[0].role == "user" and "request 298" in built.messages[0].text
    assert_calls_and_results_pair(built.messages)
    assert built.dropped[0] == "298 older turns"
    # The big reference shrank around its focus; it was not simply cut at the top.
    attachments = [b.text for b in built.messages[-1].content if b.text.startswith("<attachment")]
    assert len(attachments) == 2
    assert "value_2410 = compute(2410)" in attachments[0]  # the focus survived the cut
    assert "lines omitted" in attachments[0]
    assert [s.split(" (")[0] for s in built.shrunk] == ["#file:huge.py", "#file:other.py"]


def test_small_references_stay_whole_while_big_ones_share_the_rest() -> None:
    small = file_reference("small.py", 20)
    big = file_reference("big.py", 4000, focus=(10, 12))

    built = build_prompt(
        SYSTEM, [], user_text("q"), [big, small], context_window=6_000, reply_budget=1_000
    )

    attachments = [b.text for b in built.messages[-1].content if b.text.startswith("<attachment")]
    assert small.text in attachments[1]
    assert built.shrunk and built.shrunk[0].startswith("#file:big.py (kept ")
    assert built.estimated_tokens <= 5_000
    assert built.estimated_tokens > 4_500  # the space left over went to the big one


def test_older_history_goes_before_references_shrink() -> None:
    history = [m for n in range(10) for m in tool_turn(n, 2000)]
    ref = file_reference("mid.py", 300)
    budget_for_all_but_old = (
        request_tokens(SYSTEM, [*history[-8:], user_text("q")]) + estimate_tokens(ref.text) + 200
    )

    built = build_prompt(
        SYSTEM,
        history,
        user_text("q"),
        [ref],
        context_window=budget_for_all_but_old + 1000,
        reply_budget=1000,
    )

    assert built.shrunk == ()
    assert built.dropped == ("8 older turns",)
    assert ref.text in built.messages[-1].content[0].text  # type: ignore[union-attr]


def test_references_shrink_around_their_focus_before_being_dropped() -> None:
    ref = file_reference("big.py", 2000, focus=(1500, 1510))
    window = 3000

    built = build_prompt(
        SYSTEM,
        [],
        user_text("why is line 1505 wrong?"),
        [ref],
        context_window=window,
        reply_budget=500,
    )

    attachment = built.messages[-1].content[0]
    assert isinstance(attachment, TextBlock)
    assert "big.py (2000 lines)" in attachment.text  # the header stays
    for n in range(1500, 1511):
        assert f"{n}\tvalue_{n} = compute({n})" in attachment.text
    assert "1\tvalue_1 = compute(1)" not in attachment.text
    assert built.shrunk and built.shrunk[0].startswith("#file:big.py (kept ")
    assert built.dropped == ()
    assert built.estimated_tokens <= window - 500


def test_a_reference_that_cannot_usefully_shrink_is_dropped_with_its_label() -> None:
    refs = [file_reference("a.py", 3000), file_reference("b.py", 3000)]
    # Room for system + request + one minimal reference, not two.
    window = request_tokens(SYSTEM, [user_text("q")]) + 500 + 300

    built = build_prompt(SYSTEM, [], user_text("q"), refs, context_window=window, reply_budget=500)

    assert len(built.dropped) == 1 and built.dropped[0] in ("#file:a.py", "#file:b.py")
    assert built.estimated_tokens <= window - 500
    assert not any(s.startswith(built.dropped[0] + " ") for s in built.shrunk)


def test_last_two_turns_go_only_after_references() -> None:
    history = [m for n in range(2) for m in tool_turn(n, 8000)]
    ref = file_reference("a.py", 50)
    window = request_tokens(SYSTEM, [user_text("q")]) + 600 + 300

    built = build_prompt(
        SYSTEM, history, user_text("q"), [ref], context_window=window, reply_budget=600
    )

    assert "#file:a.py" in built.dropped
    assert "2 recent turns" in built.dropped or "1 recent turn" in built.dropped
    assert built.messages[-1] == user_text("q")
    assert_calls_and_results_pair(built.messages)


def test_a_request_that_cannot_fit_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="model.context_window"):
        build_prompt(
            SYSTEM, [], user_text("x" * 40_000), [], context_window=5_000, reply_budget=1_000
        )


def test_follow_up_round_budgets_the_turn_as_a_whole() -> None:
    """The loop's later rounds pass (history[:-1], history[-1] = tool results): never orphan them."""
    old = [m for n in range(50) for m in tool_turn(n, 3000)]
    ref = file_reference("cfg.py", 1500, focus=(700, 710))
    request = Message(
        "user",
        [
            TextBlock(f'<attachment label="#file:cfg.py">\n{ref.text}\n</attachment>'),
            TextBlock("fix the config loader"),
        ],
    )
    rounds = [
        Message("assistant", [ToolUseBlock("c1", "grep_search", {"query": "load"})]),
        Message("user", [ToolResultBlock("c1", "cfg.py:3: def load()")]),
    ]
    conversation = [*old, request, *rounds]
    window = 8_000

    built = build_prompt(
        SYSTEM, conversation[:-1], conversation[-1], (), context_window=window, reply_budget=1_000
    )

    assert built.messages[-2:] == rounds  # this turn's calls and results, intact
    assert built.messages[-3].content[-1] == TextBlock("fix the config loader")
    assert_calls_and_results_pair(built.messages)
    assert built.estimated_tokens <= window - 1_000
    assert built.messages[0].role == "user"
    attachment = built.messages[-3].content[0]
    assert isinstance(attachment, TextBlock) and attachment.text.startswith(
        '<attachment label="#file:cfg.py">'
    )


def test_follow_up_round_elides_old_tool_outputs_of_this_turn_last() -> None:
    request = user_text("run the whole migration")
    rounds: list[Message] = []
    for n in range(6):
        rounds.append(
            Message(
                "assistant", [ToolUseBlock(f"c{n}", "run_in_terminal", {"command": f"step {n}"})]
            )
        )
        rounds.append(Message("user", [ToolResultBlock(f"c{n}", f"step {n} output\n" * 400)]))
    window = request_tokens(SYSTEM, [request, *rounds]) // 2 + 1000

    built = build_prompt(
        SYSTEM, [request, *rounds[:-1]], rounds[-1], (), context_window=window, reply_budget=1000
    )

    results = [b for m in built.messages for b in m.content if isinstance(b, ToolResultBlock)]
    assert len(results) == 6  # every call still has its result
    assert results[0].content == ELIDED
    assert results[-1].content != ELIDED  # the newest output survives
    assert any("tool outputs of this turn" in d for d in built.dropped)
    assert built.estimated_tokens <= window - 1000


def test_tool_results_lead_the_current_message() -> None:
    current = Message("user", [ToolResultBlock("c9", "done"), TextBlock("and now this")])
    ref = file_reference("a.py", 3)

    built = build_prompt(SYSTEM, [], current, [ref], context_window=50_000, reply_budget=1_000)

    kinds = [type(b).__name__ for b in built.messages[-1].content]
    assert kinds == ["ToolResultBlock", "TextBlock", "TextBlock"]


def test_split_turns_never_separates_a_call_from_its_result() -> None:
    history = [
        *tool_turn(1, 100),
        # After a cancel, the loop merges the next request into the results message.
        Message("assistant", [ToolUseBlock("c2", "read_file", {"path": "x"})]),
        Message("user", [ToolResultBlock("c2", "cancelled", True), TextBlock("try again")]),
        Message("assistant", [TextBlock("ok")]),
    ]

    turns = split_turns(history)

    assert len(turns) == 1
    for turn in turns:
        assert_calls_and_results_pair(turn)


def test_shrink_without_focus_keeps_the_top_and_marks_the_gap() -> None:
    ref = file_reference("a.py", 1000)

    small = shrink_reference(ref, 300)

    assert len(small.text) <= 300 * 4
    assert small.text.startswith("a.py (1000 lines)\n1\tvalue_1 = compute(1)")
    assert small.text.rstrip().endswith("lines omitted]")


def test_shrink_cuts_a_single_enormous_line() -> None:
    ref = Reference("file", "#file:min.js", "min.js (1 lines)\n1\t" + "a;" * 50_000)

    small = shrink_reference(ref, 250)

    assert len(small.text) <= 1000
    assert small.text.startswith("min.js (1 lines)")


def test_tools_chars_count_against_the_window() -> None:
    history = [m for n in range(20) for m in tool_turn(n, 400)]
    without = build_prompt(
        SYSTEM, history, user_text("q"), [], context_window=9_000, reply_budget=1_000
    )
    with_tools = build_prompt(
        SYSTEM,
        history,
        user_text("q"),
        [],
        context_window=9_000,
        reply_budget=1_000,
        tools_chars=len(json.dumps({"schema": "x" * 24_000})),
    )

    assert len(with_tools.messages) < len(without.messages)


def test_stored_attachments_round_trip_with_awkward_labels() -> None:
    ref = Reference("file", '#file:say "hi" & bye.txt', "say (1 lines)\n1\thi")
    built = build_prompt(
        SYSTEM, [], user_text("q"), [ref], context_window=50_000, reply_budget=1_000
    )

    request, references = split_attachments(built.messages[-1])

    assert [(r.label, r.text) for r in references] == [(ref.label, ref.text)]
    assert request == user_text("q")
