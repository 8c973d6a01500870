"""Ask the model for the summary: one request to the same provider, without tools."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agent_tui.agent.compaction.transcript import render_transcript
from agent_tui.agent.instructions import prompt_template
from agent_tui.config import ModelConfig
from agent_tui.conversation import CHARS_PER_TOKEN, Message, TextBlock, estimate_tokens
from agent_tui.errors import ProviderError
from agent_tui.providers import base as pv

MAX_SUMMARY_TOKENS = 4_096  # a summary longer than this defeats the point of compacting
TEMPLATE = "compact.md"


@dataclass(frozen=True)
class Summary:
    """The model's summary of the compacted messages, with the tokens asking for it cost."""

    text: str
    usage: pv.Usage


def summary_request(
    model: ModelConfig, window: int, messages: Sequence[Message], focus: str, scale: float = 1.0
) -> pv.ProviderRequest:
    """The summarisation request for ``messages`` that fits in ``window`` tokens.

    Args:
        model: the session's model (the same provider answers).
        window: the context window to fit in.
        messages: the part of the conversation to summarise.
        focus: what the user wants the summary to concentrate on ("" for none).
        scale: real tokens per estimated token for this model (``ContextBudget.token_scale``).
    """
    system = prompt_template(TEMPLATE)
    reply = max(min(model.reply_tokens(), MAX_SUMMARY_TOKENS, window // 4), 1)
    ask = "Write the summary of the conversation above, following your instructions."
    if focus:
        ask += f"\nFocus on: {focus}"
    # Room for the transcript: the window less the reply, the prompt and a margin for framing.
    spare = (window - reply) / max(scale, 0.1) - estimate_tokens(system) - estimate_tokens(ask)
    transcript = render_transcript(messages, int(spare - 64) * CHARS_PER_TOKEN)
    body = f"<conversation>\n{transcript}\n</conversation>\n\n{ask}"
    return pv.ProviderRequest(
        model=model.name,
        system=system,
        messages=[Message("user", [TextBlock(body)])],
        max_tokens=reply,
        temperature=model.temperature,
    )


async def request_summary(provider: pv.Provider, request: pv.ProviderRequest) -> Summary:
    """Stream the summary.

    Raises:
        ProviderError: the request failed, or the model wrote no summary.
    """
    parts: list[str] = []
    usage = pv.Usage()
    async for event in provider.stream(request):
        if isinstance(event, pv.TextDelta):
            parts.append(event.text)
        elif isinstance(event, pv.Usage):
            usage = event  # the provider reports the request's total so far
    text = "".join(parts).strip()
    if not text:
        raise ProviderError("the model wrote an empty summary")
    return Summary(text, usage)
