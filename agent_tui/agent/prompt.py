"""Build each request within the model's context window, by priority.

Priority, highest first: the system prompt (base instructions), the current request (and the rounds
of this turn so far), the last two turns, the attached references, older history. While the estimate
exceeds ``context_window - reply_budget`` the lowest priority gives way first:

1. older turns are dropped, oldest first, always whole: a ``tool_use`` never loses its
   ``tool_result`` (the APIs reject a request that splits them);
2. references shrink around their ``focus_lines`` (largest first), then are dropped;
3. the last two turns are dropped, oldest first;
4. tool outputs of this turn's earlier rounds are elided (the call and its result id stay).

If the system prompt and the current request alone do not fit, ``UsageError`` says so.

Token estimate: ``ceil(chars / 4)`` plus a few tokens per message and block. English text and code
run at 3.5-4.5 characters per token on current tokenizers; a tokenizer would cost an import and a
model-specific vocabulary for a figure we only need to be roughly right, so the reply budget is the
safety margin. Numbers, JSON and non-English text run denser (1.9 characters per token was seen on
llama.cpp), so ``token_scale`` (real tokens per estimated token, learnt from the server's reported
usage by ``agent/budget.py``) corrects the estimate for each model.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from agent_tui.agent.references import Reference
from agent_tui.conversation import (
    ELIDED,
    Block,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from agent_tui.errors import UsageError
from agent_tui.identity_cache import IdentityCache
from agent_tui.plural import plural

CHARS_PER_TOKEN = 4
MESSAGE_OVERHEAD = 4  # role and framing tokens per message
BLOCK_OVERHEAD = 3
MIN_REFERENCE_TOKENS = 200  # below this a shrunk reference is not worth its space: drop it
RECENT_TURNS = 2
_BLOCK_TOKENS: IdentityCache[Block, int] = IdentityCache()


@dataclass(frozen=True)
class BuiltPrompt:
    """A request that fits.

    Args:
        system: the system prompt (unchanged).
        messages: kept history + the current user message (references attached) + this turn's
            rounds so far.
        dropped: what was pruned, for the transcript note ("3 older turns", "#file:big.py").
        shrunk: references that were cut down ("#file:big.py (kept 120 of 4000 lines)").
        estimated_tokens: the estimate for system + messages + tools.
    """

    system: str
    messages: list[Message]
    dropped: tuple[str, ...]
    shrunk: tuple[str, ...]
    estimated_tokens: int = 0


def estimate_tokens(text: str) -> int:
    """Estimate the tokens of ``text``: one per 4 characters, rounded up (see the module doc)."""
    return -(-len(text) // CHARS_PER_TOKEN)


# An image costs about (width * height) / 750 tokens on Anthropic and up to ~1,500 on OpenAI at
# "auto" detail; its base64 length says nothing about that, so each counts as a large one.
IMAGE_TOKENS = 1600


def _block_tokens(block: Block) -> int:
    # Blocks are frozen and most are old by the time a request is built: count each once.
    return _BLOCK_TOKENS.get(block, _count_block_tokens)


def _count_block_tokens(block: Block) -> int:
    if isinstance(block, ImageBlock):
        return IMAGE_TOKENS + BLOCK_OVERHEAD
    if isinstance(block, ToolResultBlock) and block.images:
        return _count_block_tokens(replace(block, images=())) + IMAGE_TOKENS * len(block.images)
    if isinstance(block, ThinkingBlock):
        body = block.text + block.redacted
    elif isinstance(block, TextBlock):
        body = block.text
    elif isinstance(block, ToolUseBlock):
        body = block.name + json.dumps(block.input, ensure_ascii=False)
    else:
        body = block.content
    return estimate_tokens(body) + BLOCK_OVERHEAD


def message_tokens(message: Message) -> int:
    return MESSAGE_OVERHEAD + sum(_block_tokens(b) for b in message.content)


def _reference_tokens(reference: Reference) -> int:
    return _block_tokens(TextBlock(render_reference(reference)))


def render_reference(reference: Reference) -> str:
    """How a reference reaches the model: a labelled block before the request."""
    label = reference.label.replace("&", "&amp;").replace('"', "&quot;")
    return f'<attachment label="{label}">\n{reference.text}\n</attachment>'


def starts_turn(message: Message) -> bool:
    """A user request: a user message with no tool results.

    A user message that carries tool results (even with text merged in after a cancel) continues the
    turn of the calls it answers, so a turn boundary never separates a call from its result.
    """
    return message.role == "user" and not any(
        isinstance(b, ToolResultBlock) for b in message.content
    )


def split_turns(history: Sequence[Message]) -> list[list[Message]]:
    """Group messages into turns, each starting at a user request (see ``starts_turn``).

    Messages before the first request (a history that begins mid-turn) form a turn of their own.
    """
    turns: list[list[Message]] = []
    for message in history:
        if starts_turn(message) or not turns:
            turns.append([])
        turns[-1].append(message)
    return turns


def shrink_reference(reference: Reference, max_tokens: int) -> Reference:
    """Cut a reference to about ``max_tokens``, keeping its first line and the lines around focus.

    Lines are taken outward from ``focus_lines`` (or from the top when there is none), and each gap
    is marked, so a numbered file excerpt stays readable.
    """
    budget = max_tokens * CHARS_PER_TOKEN
    lines = reference.text.split("\n")
    if len(reference.text) <= budget:
        return reference
    first, last = reference.focus_lines or (2, 2)
    first = min(max(first, 1), len(lines))
    last = min(max(last, first), len(lines))
    keep = {0}  # the header line (path, command)
    used = len(lines[0]) + 1
    # Grow forward through the focus first, then alternate outward.
    order: list[int] = list(range(first - 1, last))
    before, after = first - 2, last
    while before >= 1 or after < len(lines):
        if after < len(lines):
            order.append(after)
            after += 1
        if before >= 1:
            order.append(before)
            before -= 1
    for index in order:
        if index in keep:
            continue
        cost = len(lines[index]) + 1
        if used + cost + 60 > budget:  # 60: room for the gap markers
            break
        keep.add(index)
        used += cost
    kept_lines = sorted(keep)
    out: list[str] = []
    previous = -1
    for index in kept_lines:
        if index > previous + 1:
            out.append(f"[… {plural(index - previous - 1, 'line')} omitted]")
        out.append(lines[index])
        previous = index
    if previous < len(lines) - 1:
        out.append(f"[… {plural(len(lines) - 1 - previous, 'line')} omitted]")
    text = "\n".join(out)
    if len(text) > budget:  # one enormous line (minified file): cut characters
        text = text[: max(budget - 40, 0)] + "\n[… cut to fit the context window]"
    return replace(reference, text=text, focus_lines=None)


_ATTACHMENT = re.compile(r'^<attachment label="([^"]*)">\n(.*)\n</attachment>$', re.DOTALL)


def _common_cap(sizes: list[int], available: int) -> int:
    """The largest cap C with ``sum(min(size, C)) <= available`` (water-filling)."""
    remaining = available
    ordered = sorted(sizes)
    for position, size in enumerate(ordered):
        left = len(ordered) - position
        if size * left > remaining:
            return remaining // left
        remaining -= size
    return ordered[-1] if ordered else 0


def request_message(
    text: str,
    references: Sequence[Reference],
    images: Sequence[ImageBlock] = (),
    notes: Sequence[str] = (),
) -> Message:
    """A user request as the conversation stores it: its attachments, then its text, the app's
    ``notes`` to the model (a mode change) and images (``--image`` files, and ``#file:``
    references to images)."""
    attached = [r.image for r in references if r.image is not None]
    content: list[Block] = [TextBlock(text), *map(TextBlock, notes), *attached, *images]
    return _current_message(Message("user", content), references)


def _current_message(current: Message, references: Sequence[Reference]) -> Message:
    # Tool results must lead a user message (the Anthropic API rejects them after text).
    results = [b for b in current.content if isinstance(b, ToolResultBlock)]
    rest = [b for b in current.content if not isinstance(b, ToolResultBlock)]
    attached = [TextBlock(render_reference(r)) for r in references if r.text]
    return Message(current.role, [*results, *attached, *rest])


def split_attachments(message: Message) -> tuple[Message, list[Reference]]:
    """Take the rendered attachments back out of a stored request, as references to re-budget."""
    references = []
    blocks: list[Block] = []
    for block in message.content:
        match = _ATTACHMENT.match(block.text) if isinstance(block, TextBlock) else None
        if match:
            label = match.group(1).replace("&quot;", '"').replace("&amp;", "&")
            references.append(Reference("attachment", label, match.group(2)))
        else:
            blocks.append(block)
    return Message(message.role, blocks), references


def _elide_rounds(rounds: list[Message], excess: int) -> tuple[list[Message], int]:
    """Blank tool outputs of this turn's rounds, oldest first, until ``excess`` tokens are freed."""
    out = []
    elided = 0
    for message in rounds:
        blocks: list[Block] = []
        for block in message.content:
            if excess > 0 and isinstance(block, ToolResultBlock) and block.content != ELIDED:
                saved = _block_tokens(block) - _block_tokens(replace(block, content=ELIDED))
                if saved > 0:
                    block = replace(block, content=ELIDED)
                    excess -= saved
                    elided += 1
            blocks.append(block)
        # A message with nothing elided is kept as it is (no copy per round of a long turn).
        changed = any(new is not old for new, old in zip(blocks, message.content, strict=True))
        out.append(Message(message.role, blocks) if changed else message)
    return out, elided


def build_prompt(
    system: str,
    history: list[Message],
    current: Message,
    references: Sequence[Reference],
    *,
    context_window: int,
    reply_budget: int,
    tools_chars: int = 0,
    rounds: Sequence[Message] = (),
    token_scale: float = 1.0,
) -> BuiltPrompt:
    """Assemble system + history + current request (+ references) within the window.

    Args:
        system: the system prompt; never pruned.
        history: earlier messages of the conversation (before the current request).
        current: the current user request; never pruned.
        references: attachments for the current request (rendered before its text).
        context_window: the model's context window in tokens.
        reply_budget: tokens reserved for the reply (``max_tokens``).
        tools_chars: the length of the tool schemas sent with the request (JSON characters).
        rounds: this turn's messages after the request (assistant tool calls and their results);
            kept, but their tool outputs are elided as a last resort.
        token_scale: real tokens per estimated token for this model (1.0: trust chars / 4).

    Returns:
        The prompt, with what was dropped or shrunk.

    Raises:
        UsageError: the system prompt and the current request alone exceed the budget.
    """
    if not references and not rounds and current.content and not starts_turn(current):
        # A follow-up round (``current`` holds tool results): budget the turn as a whole.
        return build_followup_prompt(
            system,
            [*history, current],
            context_window=context_window,
            reply_budget=reply_budget,
            tools_chars=tools_chars,
            token_scale=token_scale,
        )
    return _build(
        system,
        history,
        current,
        references,
        context_window=context_window,
        reply_budget=reply_budget,
        tools_chars=tools_chars,
        rounds=rounds,
        token_scale=token_scale,
    )


def _build(
    system: str,
    history: list[Message],
    current: Message,
    references: Sequence[Reference],
    *,
    context_window: int,
    reply_budget: int,
    tools_chars: int,
    rounds: Sequence[Message],
    token_scale: float = 1.0,
) -> BuiltPrompt:
    # Estimates stay in chars/4 units; the limit is converted into them.
    limit = int((context_window - reply_budget) / max(token_scale, 0.1))
    fixed = estimate_tokens(system) + -(-tools_chars // CHARS_PER_TOKEN)
    fixed += message_tokens(current)
    round_list = list(rounds)
    rounds_tokens = sum(message_tokens(m) for m in round_list)
    turns = split_turns(history)
    turn_tokens = [sum(message_tokens(m) for m in turn) for turn in turns]
    refs = [r for r in references if r.text]
    ref_tokens = [_reference_tokens(r) for r in refs]
    dropped: list[str] = []
    shrunk: list[str] = []

    def total() -> int:
        return fixed + rounds_tokens + sum(turn_tokens) + sum(ref_tokens)

    # 1. Older turns, oldest first (whole turns only).
    n_drop = 0
    while total() > limit and len(turns) - n_drop > RECENT_TURNS:
        turn_tokens[n_drop] = 0
        n_drop += 1
    if n_drop:
        dropped.append(f"{n_drop} older turn{'s' * (n_drop != 1)}")

    # 2. References: shrink around their focus to a common cap (so the small ones stay whole and
    #    the big ones share what is left), dropping the largest when even the cap is too small.
    alive = list(range(len(refs)))
    cap = 0
    while alive and total() > limit:
        others = total() - sum(ref_tokens[i] for i in alive)
        cap = _common_cap([ref_tokens[i] for i in alive], limit - others)
        if cap >= MIN_REFERENCE_TOKENS:
            break
        largest = max(alive, key=lambda i: ref_tokens[i])
        alive.remove(largest)
        dropped.append(refs[largest].label)
        ref_tokens[largest] = 0
    if alive and total() > limit:
        for index in alive:
            original = refs[index]
            overhead = ref_tokens[index] - estimate_tokens(original.text)
            target = cap - overhead
            for _ in range(3):  # the gap markers can make a shrink land a little over its target
                if ref_tokens[index] <= cap or target <= MIN_REFERENCE_TOKENS // 2:
                    break
                # Always cut from the original, so the focus stays the centre of what is kept.
                refs[index] = shrink_reference(original, target)
                ref_tokens[index] = _reference_tokens(refs[index])
                target -= ref_tokens[index] - cap
            if refs[index].text != original.text:
                total_lines = original.text.count("\n") + 1
                kept = sum(1 for ln in refs[index].text.split("\n") if not ln.startswith("[… "))
                shrunk.append(f"{original.label} (kept {kept} of {plural(total_lines, 'line')})")
    for index in sorted(range(len(refs)), key=lambda i: -ref_tokens[i]):
        if total() <= limit:
            break
        dropped.append(refs[index].label)
        shrunk[:] = [s for s in shrunk if not s.startswith(refs[index].label + " (")]
        ref_tokens[index] = 0
    refs = [r for r, t in zip(refs, ref_tokens, strict=True) if t]

    # 3. The last two turns, oldest first.
    recent_dropped = 0
    for index in range(n_drop, len(turns)):
        if total() <= limit:
            break
        turn_tokens[index] = 0
        recent_dropped += 1
    if recent_dropped:
        dropped.append(f"{recent_dropped} recent turn{'s' * (recent_dropped != 1)}")

    # 4. Tool outputs of this turn's earlier rounds.
    if total() > limit and round_list:
        round_list, _ = _elide_rounds(round_list, total() - limit)
        rounds_tokens = sum(message_tokens(m) for m in round_list)
    # Every output this request leaves out is said, also those an earlier request already left
    # out (the conversation then holds the placeholder: agent/pruned_outputs.py).
    elided = _placeholders(round_list)
    if elided:
        dropped.append(f"{elided} tool output{'s' * (elided != 1)} of this turn")

    if total() > limit:
        needed = int(total() * token_scale)
        raise UsageError(
            f"the request needs about {needed:,} tokens but the model's window leaves "
            f"{context_window - reply_budget:,} "
            f"({context_window:,} minus {reply_budget:,} for the reply) even with the history and "
            "attachments removed; shorten the request or the instructions files, or set "
            "model.context_window"
        )
    kept_history = [m for turn, t in zip(turns, turn_tokens, strict=True) if t for m in turn]
    earlier = _placeholders(kept_history)
    if earlier:
        dropped.append(f"{earlier} tool output{'s' * (earlier != 1)} of earlier turns")
    messages = [*kept_history, _current_message(current, refs), *round_list]
    return BuiltPrompt(system, messages, tuple(dropped), tuple(shrunk), total())


def _placeholders(messages: Sequence[Message]) -> int:
    """How many tool outputs in ``messages`` are the placeholder, not the output."""
    return sum(
        1
        for message in messages
        for block in message.content
        if isinstance(block, ToolResultBlock) and block.content == ELIDED
    )


def build_followup_prompt(
    system: str,
    messages: list[Message],
    *,
    context_window: int,
    reply_budget: int,
    tools_chars: int = 0,
    token_scale: float = 1.0,
) -> BuiltPrompt:
    """Budget a request from the whole conversation so far (``messages``).

    The last user request is the current message (its stored attachments become references again,
    so they can still shrink), what follows it are this turn's rounds, and what precedes it is
    history.
    """
    start = next((i for i in range(len(messages) - 1, -1, -1) if starts_turn(messages[i])), None)
    if start is None:  # no request at all (only tool traffic): budget it as plain history
        start = len(messages) - 1
    request, references = split_attachments(messages[start])
    return _build(
        system,
        messages[:start],
        request,
        references,
        context_window=context_window,
        reply_budget=reply_budget,
        tools_chars=tools_chars,
        rounds=messages[start + 1 :],
        token_scale=token_scale,
    )
