"""Images the model can see: PNG, JPEG, GIF and WebP files and base64 data, checked and sized.

The type is read from the file's first bytes, never its name (a ``.png`` that is a shell script
is not an image). Limits: :data:`MAX_IMAGE_BYTES` per image (Anthropic refuses more than 5 MB),
and ``providers/image_limits.MAX_IMAGES_PER_REQUEST`` per request.
"""

from __future__ import annotations

import base64
import binascii
from pathlib import Path

from agent_tui.conversation import ImageBlock
from agent_tui.safe_read import FileTooLarge, read_bytes, read_head

MAX_IMAGE_BYTES = 5 * 1024 * 1024
MEDIA_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")


class ImageError(ValueError):
    """The file or data is not an image we can send (type, size), said in a sentence."""


def sniff_image(head: bytes) -> str | None:
    """The media type of an image from its first bytes (12 suffice), or None."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def is_image_file(path: Path) -> bool:
    """Whether ``path`` is a regular file that starts like a PNG, JPEG, GIF or WebP image."""
    try:
        return sniff_image(read_head(path, 12)) is not None
    except OSError:  # a FIFO or device too: never opened for a blocking read
        return False


def _size_error(what: str, size: int) -> ImageError:
    return ImageError(
        f"{what} is {size / 1024 / 1024:.1f} MB; images are limited to "
        f"{MAX_IMAGE_BYTES // 1024 // 1024} MB"
    )


def load_image(path: Path, name: str = "") -> ImageBlock:
    """Read an image file.

    Args:
        path: the file.
        name: how to call it in messages and placeholders (default: the file name).

    Raises:
        ImageError: not a PNG/JPEG/GIF/WebP, too large, not a regular file (a FIFO, a device),
            or unreadable.
    """
    shown = name or path.name
    try:
        data = read_bytes(path, MAX_IMAGE_BYTES)
    except FileTooLarge as exc:
        raise _size_error(shown, exc.size) from None
    except OSError as exc:
        raise ImageError(f"cannot read {shown}: {exc.strerror or exc}") from None
    media_type = sniff_image(data[:12])
    if media_type is None:
        raise ImageError(f"{shown} is not a PNG, JPEG, GIF or WebP image")
    return ImageBlock(media_type, base64.b64encode(data).decode("ascii"), shown)


def image_from_base64(data: str, declared: str, name: str = "") -> ImageBlock:
    """An image from base64 ``data`` (an MCP tool's image content), its type checked by content.

    Raises:
        ImageError: not valid base64, not one of the four types, or too large.
    """
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise ImageError(f"the {declared or 'image'} data is not valid base64") from None
    if len(raw) > MAX_IMAGE_BYTES:
        raise _size_error(name or f"the {declared or 'image'}", len(raw))
    media_type = sniff_image(raw[:12])
    if media_type is None:
        raise ImageError(f"the {declared or 'data'} is not a PNG, JPEG, GIF or WebP image")
    # Re-encoded: the data sent is exactly the bytes checked (no whitespace or padding quirks).
    return ImageBlock(media_type, base64.b64encode(raw).decode("ascii"), name)
