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

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from agent_tui.agent.references import Reference
from agent_tui.conversation import (
    CHARS_PER_TOKEN,
    ELIDED,
    Block,
    ImageBlock,
    Message,
    TextBlock,
    ToolResultBlock,
    count_block_tokens,
    estimate_tokens,
)
from agent_tui.errors import UsageError
from agent_tui.identity_cache import IdentityCache
from agent_tui.plural import plural

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


def _block_tokens(block: Block) -> int:
    # Blocks are frozen and most are old by the time a request is built: count each once.
    return _BLOCK_TOKENS.get(block, count_block_tokens)


def block_tokens(block: Block) -> int:
    """The estimate of one block, with its framing (``/context`` adds them up by kind)."""
    return _block_tokens(block)


def message_tokens(message: Message) -> int:
    """The estimate of one message: its blocks and framing (counted once, on the message)."""
    return message.tokens


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
    return message.starts_turn


def split_turns(history: Sequence[Message]) -> list[list[Message]]:
    """Group messages into turns, each starting at a user request (see ``starts_turn``).

    Messages before the first request (a history that begins mid-turn) form a turn of their own.
    """
    turns: list[list[Message]] = []
    for message in history:
        if message.starts_turn or not turns:
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
    """Blank tool outputs of this turn's rounds, oldest first, until ``excess`` tokens are freed.

    Returns:
        The rounds (a message with nothing elided is kept as it is: no copy per round of a long
        turn) and the tokens freed.
    """
    out = list(rounds)
    freed = 0
    for index, message in enumerate(rounds):
        if freed >= excess:
            break  # the rest are not looked at
        if not message.holds_output:
            continue
        blocks: list[Block] = []
        for block in message.content:
            if freed < excess and isinstance(block, ToolResultBlock) and block.content != ELIDED:
                saved = _block_tokens(block) - _block_tokens(replace(block, content=ELIDED))
                if saved > 0:
                    block = replace(block, content=ELIDED)
                    freed += saved
            blocks.append(block)
        if any(new is not old for new, old in zip(blocks, message.content, strict=True)):
            out[index] = Message(message.role, blocks)
    return out, freed


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
        history, current, references, rounds = _split_request([*history, current])
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
    fixed = estimate_tokens(system) + -(-tools_chars // CHARS_PER_TOKEN) + message_tokens(current)
    fit = _Fit.of(limit, fixed, history, references, rounds)
    fit.prune()
    if fit.over():
        raise _too_long(int(fit.total() * token_scale), context_window, reply_budget)
    return fit.built(system, current)


def _too_long(needed: int, context_window: int, reply_budget: int) -> UsageError:
    """The error when even the system prompt and the current request leave no room."""
    return UsageError(
        f"the request needs about {needed:,} tokens but the model's window leaves "
        f"{context_window - reply_budget:,} "
        f"({context_window:,} minus {reply_budget:,} for the reply) even with the history and "
        "attachments removed; shorten the request or the instructions files, or set "
        "model.context_window"
    )


@dataclass
class _Fit:
    """A request's parts and their estimates while the lower priorities give way to fit it."""

    limit: int
    fixed: int  # the system prompt, the tools and the current request: never pruned
    turns: list[list[Message]]
    turn_tokens: list[int]  # 0: the turn is dropped
    refs: list[Reference]
    ref_tokens: list[int]  # 0: the reference is dropped
    rounds: list[Message]
    rounds_tokens: int
    dropped: list[str] = field(default_factory=list)
    shrunk: list[str] = field(default_factory=list)

    @classmethod
    def of(
        cls,
        limit: int,
        fixed: int,
        history: list[Message],
        references: Sequence[Reference],
        rounds: Sequence[Message],
    ) -> _Fit:
        turns = split_turns(history)
        refs = [r for r in references if r.text]
        round_list = list(rounds)
        return cls(
            limit,
            fixed,
            turns,
            [sum(m.tokens for m in turn) for turn in turns],
            refs,
            [_reference_tokens(r) for r in refs],
            round_list,
            sum(m.tokens for m in round_list),
        )

    def total(self) -> int:
        return self.fixed + self.rounds_tokens + sum(self.turn_tokens) + sum(self.ref_tokens)

    def over(self) -> bool:
        return self.total() > self.limit

    def prune(self) -> None:
        """Give way, the lowest priority first (the order in the module doc)."""
        n_drop = self.drop_older_turns()
        self.fit_references()
        self.drop_recent_turns(n_drop)
        self.elide_rounds()

    def drop_older_turns(self) -> int:
        """1. Older turns, oldest first (whole turns only); returns how many went."""
        n_drop = 0
        while self.over() and len(self.turns) - n_drop > RECENT_TURNS:
            self.turn_tokens[n_drop] = 0
            n_drop += 1
        if n_drop:
            self.dropped.append(f"{n_drop} older turn{'s' * (n_drop != 1)}")
        return n_drop

    def fit_references(self) -> None:
        """2. References: shrink around their focus to a common cap (so the small ones stay
        whole and the big ones share what is left), dropping the largest when even the cap is
        too small."""
        alive, cap = self._reference_cap()
        if alive and self.over():
            for index in alive:
                self._shrink_reference(index, cap)
        for index in sorted(range(len(self.refs)), key=lambda i: -self.ref_tokens[i]):
            if not self.over():
                break
            label = self.refs[index].label
            self.dropped.append(label)
            self.shrunk[:] = [s for s in self.shrunk if not s.startswith(label + " (")]
            self.ref_tokens[index] = 0
        self.refs = [r for r, t in zip(self.refs, self.ref_tokens, strict=True) if t]

    def _reference_cap(self) -> tuple[list[int], int]:
        """The references still in and the cap they share (the largest dropped until a cap of
        at least MIN_REFERENCE_TOKENS fits)."""
        alive = list(range(len(self.refs)))
        cap = 0
        while alive and self.over():
            others = self.total() - sum(self.ref_tokens[i] for i in alive)
            cap = _common_cap([self.ref_tokens[i] for i in alive], self.limit - others)
            if cap >= MIN_REFERENCE_TOKENS:
                break
            largest = max(alive, key=lambda i: self.ref_tokens[i])
            alive.remove(largest)
            self.dropped.append(self.refs[largest].label)
            self.ref_tokens[largest] = 0
        return alive, cap

    def _shrink_reference(self, index: int, cap: int) -> None:
        original = self.refs[index]
        overhead = self.ref_tokens[index] - estimate_tokens(original.text)
        target = cap - overhead
        for _ in range(3):  # the gap markers can make a shrink land a little over its target
            if self.ref_tokens[index] <= cap or target <= MIN_REFERENCE_TOKENS // 2:
                break
            # Always cut from the original, so the focus stays the centre of what is kept.
            self.refs[index] = shrink_reference(original, target)
            self.ref_tokens[index] = _reference_tokens(self.refs[index])
            target -= self.ref_tokens[index] - cap
        if self.refs[index].text != original.text:
            total_lines = original.text.count("\n") + 1
            kept = sum(1 for ln in self.refs[index].text.split("\n") if not ln.startswith("[… "))
            self.shrunk.append(f"{original.label} (kept {kept} of {plural(total_lines, 'line')})")

    def drop_recent_turns(self, start: int) -> None:
        """3. The last two turns (from ``start``, after the older ones), oldest first."""
        recent_dropped = 0
        for index in range(start, len(self.turns)):
            if not self.over():
                break
            self.turn_tokens[index] = 0
            recent_dropped += 1
        if recent_dropped:
            self.dropped.append(f"{recent_dropped} recent turn{'s' * (recent_dropped != 1)}")

    def elide_rounds(self) -> None:
        """4. Tool outputs of this turn's earlier rounds."""
        if self.over() and self.rounds:
            self.rounds, freed = _elide_rounds(self.rounds, self.total() - self.limit)
            self.rounds_tokens -= freed
        # Every output this request leaves out is said, also those an earlier request already
        # left out (the conversation then holds the placeholder: agent/pruned_outputs.py).
        elided = _placeholders(self.rounds)
        if elided:
            self.dropped.append(f"{elided} tool output{'s' * (elided != 1)} of this turn")

    def built(self, system: str, current: Message) -> BuiltPrompt:
        kept = [m for turn, t in zip(self.turns, self.turn_tokens, strict=True) if t for m in turn]
        earlier = _placeholders(kept)
        if earlier:
            self.dropped.append(f"{earlier} tool output{'s' * (earlier != 1)} of earlier turns")
        messages = [*kept, _current_message(current, self.refs), *self.rounds]
        return BuiltPrompt(system, messages, tuple(self.dropped), tuple(self.shrunk), self.total())


def _placeholders(messages: Sequence[Message]) -> int:
    """How many tool outputs in ``messages`` are the placeholder, not the output."""
    return sum(m.placeholders for m in messages)


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
    history, request, references, rounds = _split_request(messages)
    return _build(
        system,
        history,
        request,
        references,
        context_window=context_window,
        reply_budget=reply_budget,
        tools_chars=tools_chars,
        rounds=rounds,
        token_scale=token_scale,
    )


def _split_request(
    messages: list[Message],
) -> tuple[list[Message], Message, list[Reference], list[Message]]:
    """The history, the last user request (its attachments as references again) and the rounds
    after it."""
    start = next((i for i in range(len(messages) - 1, -1, -1) if messages[i].starts_turn), None)
    if start is None:  # no request at all (only tool traffic): budget it as plain history
        start = len(messages) - 1
    request, references = split_attachments(messages[start])
    return messages[:start], request, references, messages[start + 1 :]
