"""RoundAssembler: provider events in, the assistant message that goes back to the API out."""

from __future__ import annotations

from agent_tui.agent.assemble import RoundAssembler
from agent_tui.conversation import TextBlock, ThinkingBlock
from agent_tui.providers.base import ProviderEvent, TextDelta, ThinkingDelta


def assemble(*events: ProviderEvent) -> RoundAssembler:
    assembler = RoundAssembler()
    for event in events:
        assembler.feed(event)
    return assembler


def test_each_signed_thinking_block_stays_apart_in_order() -> None:
    # Anthropic signs each block (the signature comes last); merging two would fail verification.
    assembler = assemble(
        ThinkingDelta("First "),
        ThinkingDelta("thought."),
        ThinkingDelta("", "sig-a"),
        ThinkingDelta("", redacted="Enc=="),
        ThinkingDelta("Second thought."),
        ThinkingDelta("", "sig-b"),
        TextDelta("Answer."),
    )
    assert assembler.message().content == [
        ThinkingBlock("First thought.", "sig-a"),
        ThinkingBlock("", redacted="Enc=="),
        ThinkingBlock("Second thought.", "sig-b"),
        TextBlock("Answer."),
    ]


def test_unsigned_reasoning_is_one_block() -> None:
    # OpenAI-compatible servers stream reasoning without signatures: one block, never split.
    assembler = assemble(ThinkingDelta("a"), ThinkingDelta("b"), ThinkingDelta("c"))
    assert assembler.message().content == [ThinkingBlock("abc")]


def test_a_cut_thought_is_kept_unsigned() -> None:
    assembler = assemble(ThinkingDelta("whole"), ThinkingDelta("", "sig-a"), ThinkingDelta("half"))
    assert assembler.message(None).content == [
        ThinkingBlock("whole", "sig-a"),
        ThinkingBlock("half"),  # unsigned: the Anthropic wire format leaves it out
    ]
