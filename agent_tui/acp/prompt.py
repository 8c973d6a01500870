"""An ACP prompt (content blocks) as the ``UserInput`` the core takes.

Text is kept as written; a resource link to a file inside the workspace becomes a ``#file:``
reference (so the core reads it with the same checks as a typed one); an embedded resource (the
editor's selection or file) is added as context with its URI; images go with the prompt. What
cannot be used is said in the text, never silently dropped.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlparse

from agent_tui.conversation import ImageBlock
from agent_tui.front import UserInput
from agent_tui.front.types import quote_path
from agent_tui.images import ImageError, image_from_base64
from agent_tui.text_safety import one_line

if TYPE_CHECKING:
    from acp.helpers import ContentBlock


def to_user_input(blocks: list[ContentBlock], workspace: Path) -> UserInput:
    """The prompt's blocks, in order, as one input (text parts joined by blank lines)."""
    from acp.schema import (
        EmbeddedResourceContentBlock,
        ImageContentBlock,
        ResourceContentBlock,
        TextContentBlock,
    )

    parts: list[str] = []
    images: list[ImageBlock] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            parts.append(block.text)
        elif isinstance(block, ResourceContentBlock):
            parts.append(_link(block.uri, block.name, workspace))
        elif isinstance(block, EmbeddedResourceContentBlock):
            parts.append(_embedded(block, images))
        elif isinstance(block, ImageContentBlock):
            parts.append(_image(block.data, block.mime_type, block.uri or "", images))
        else:  # audio: not offered in initialize, so a client should not send it
            parts.append(f"[{block.type} content left out: not supported]")
    return UserInput("\n\n".join(p for p in parts if p), tuple(images))


def file_path(uri: str) -> Path | None:
    """The local path of a ``file://`` URI (None for any other scheme)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file" or parsed.netloc not in ("", "localhost"):
        return None
    return Path(unquote(parsed.path))


def _link(uri: str, name: str, workspace: Path) -> str:
    path = file_path(uri)
    if path is not None:
        try:
            relative = path.resolve().relative_to(workspace)
        except ValueError:
            relative = None
        if relative is not None:
            return f"#file:{quote_path(relative.as_posix())}"
    # Outside the workspace, or not a file: the model sees the link, the core reads nothing.
    return f"[link: {one_line(name)} {one_line(uri)}]"


def _embedded(block: object, images: list[ImageBlock]) -> str:
    from acp.schema import BlobResourceContents, EmbeddedResourceContentBlock, TextResourceContents

    assert isinstance(block, EmbeddedResourceContentBlock)
    resource = block.resource
    if isinstance(resource, TextResourceContents):
        # The editor sent this text itself (a selection, an unsaved buffer): it is context, as
        # piped stdin is under -p, marked with where it came from.
        return f'<context uri="{one_line(resource.uri)}">\n{resource.text.rstrip()}\n</context>'
    assert isinstance(resource, BlobResourceContents)
    mime = resource.mime_type or ""
    if mime.startswith("image/"):
        return _image(resource.blob, mime, resource.uri, images)
    return f"[resource {one_line(resource.uri)} ({one_line(mime) or 'binary'}) left out]"


def _image(data: str, mime: str, uri: str, images: list[ImageBlock]) -> str:
    name = Path(urlparse(uri).path).name if uri else ""
    try:
        images.append(image_from_base64(data, mime, name))
    except ImageError as exc:
        return f"[image left out: {exc}]"
    return ""
