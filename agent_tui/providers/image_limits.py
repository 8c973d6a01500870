"""What of a conversation's images a request carries: all of them, the latest few, or none.

A model without vision (``[model] vision = false``) gets each image's text placeholder; one with
vision gets at most :data:`MAX_IMAGES_PER_REQUEST` (the latest: older ones become placeholders),
which keeps every API under its per-request limit (Anthropic allows 100, OpenAI 500, some
compatible servers far fewer) and the prompt from growing with each screenshot.
"""

from __future__ import annotations

from dataclasses import replace

from agent_tui.conversation import Block, ImageBlock, Message, TextBlock, ToolResultBlock
from agent_tui.providers.base import ProviderRequest

MAX_IMAGES_PER_REQUEST = 20


def fit_images(request: ProviderRequest, *, vision: bool) -> ProviderRequest:
    """``request`` with the images it may carry; the others replaced by their placeholders."""
    total = sum(m.image_count for m in request.messages)
    keep = min(total, MAX_IMAGES_PER_REQUEST) if vision else 0
    if keep == total:
        return request
    drop = total - keep  # the oldest ones
    messages = []
    for message in request.messages:
        blocks: list[Block] = []
        for block in message.content:
            if isinstance(block, ImageBlock) and drop > 0:
                drop -= 1
                blocks.append(TextBlock(block.placeholder))
            elif isinstance(block, ToolResultBlock) and block.images and drop > 0:
                gone = block.images[:drop]
                drop -= len(gone)
                text = "\n".join([block.content, *(i.placeholder for i in gone)])
                blocks.append(replace(block, content=text, images=block.images[len(gone) :]))
            else:
                blocks.append(block)
        messages.append(Message(message.role, blocks))
    return replace(request, messages=messages)
