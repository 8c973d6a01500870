"""What of a conversation's images a request carries (providers/image_limits.py, issue 14.2)."""

from __future__ import annotations

from agent_tui.conversation import ImageBlock, Message, TextBlock, ToolResultBlock, ToolUseBlock
from agent_tui.providers.base import ProviderRequest
from agent_tui.providers.image_limits import MAX_IMAGES_PER_REQUEST, fit_images


def image(n: int) -> ImageBlock:
    return ImageBlock("image/png", "iVBORw0KGgo=", f"{n}.png")


def request_with(count: int) -> ProviderRequest:
    half = count // 2
    messages = [
        Message("user", [TextBlock("look"), *(image(n) for n in range(half))]),
        Message("assistant", [ToolUseBlock("c1", "read_file", {"path": "x"})]),
        Message("user", [ToolResultBlock("c1", "shots", images=tuple(image(n) for n in range(half, count)))]),
    ]  # fmt: skip
    return ProviderRequest(model="m", system="", messages=messages)


def carried(request: ProviderRequest) -> list[str]:
    names = []
    for message in request.messages:
        for block in message.content:
            if isinstance(block, ImageBlock):
                names.append(block.name)
            elif isinstance(block, ToolResultBlock):
                names += [i.name for i in block.images]
    return names


def test_at_most_the_latest_images_are_sent_the_rest_as_placeholders() -> None:
    request = request_with(MAX_IMAGES_PER_REQUEST + 4)
    fitted = fit_images(request, vision=True)
    assert carried(fitted) == [f"{n}.png" for n in range(4, MAX_IMAGES_PER_REQUEST + 4)]
    first_text = [b.text for b in fitted.messages[0].content if isinstance(b, TextBlock)]
    assert first_text == ["look", *(f"[image: {n}.png, image/png, 8 bytes]" for n in range(4))]
    assert carried(request) == [f"{n}.png" for n in range(MAX_IMAGES_PER_REQUEST + 4)]  # unchanged
    assert fit_images(request_with(4), vision=True) == request_with(4)


def test_without_vision_no_image_is_sent() -> None:
    fitted = fit_images(request_with(4), vision=False)
    assert carried(fitted) == []
    result = fitted.messages[2].content[0]
    assert isinstance(result, ToolResultBlock)
    assert (
        result.content
        == "shots\n[image: 2.png, image/png, 8 bytes]\n[image: 3.png, image/png, 8 bytes]"
    )
