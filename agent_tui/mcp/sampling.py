"""The model behind a server's sampling requests: the session's provider, text only, no tools."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.conversation import Message, TextBlock
from agent_tui.providers.base import ProviderRequest, TextDelta

if TYPE_CHECKING:
    from agent_tui.mcp.types import CompleteFn
    from agent_tui.providers.base import Provider


def complete_with(provider: Provider, model: str, *, max_tokens_cap: int = 4096) -> CompleteFn:
    """A sampling ``complete`` function over the session's provider (text only, no tools).

    Args:
        provider: the agent's provider.
        model: the model name to ask for.
        max_tokens_cap: an upper bound on what a server may request per sampling call.
    """

    async def complete(messages: list[dict[str, str]], system: str, max_tokens: int) -> str:
        request = ProviderRequest(
            model=model,
            system=system,
            messages=[
                Message(
                    "assistant" if m["role"] == "assistant" else "user", [TextBlock(m["content"])]
                )
                for m in messages
            ],
            max_tokens=max(1, min(max_tokens, max_tokens_cap)),
        )
        chunks = [
            event.text async for event in provider.stream(request) if isinstance(event, TextDelta)
        ]
        return "".join(chunks)

    return complete
