"""A pasted image path attaches the image: what counts as one, and the chips that show them.

Terminals paste a dragged file as its path: plain, quoted ('/a b.png'), with escaped spaces
(/a\\ b.png) or as a ``file://`` URL. Only a paste that is exactly one existing PNG, JPEG, GIF or
WebP file (by its content, not its name) attaches; anything else is pasted as text.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlsplit

from rich.text import Text
from textual.widgets import Static

from agent_tui.conversation import ImageBlock
from agent_tui.images import is_image_file


def pasted_image_path(text: str, workspace: Path) -> Path | None:
    """The image file a paste names, or None when the paste is anything else."""
    candidate = text.strip()
    if not candidate or "\n" in candidate or len(candidate) > 4096:
        return None
    if len(candidate) >= 2 and candidate[0] == candidate[-1] and candidate[0] in "'\"":
        candidate = candidate[1:-1]
    elif candidate.startswith("file://"):
        candidate = unquote(urlsplit(candidate).path)
    else:
        candidate = candidate.replace("\\ ", " ")
    try:
        path = Path(candidate).expanduser()
        path = path if path.is_absolute() else workspace / path
        return path if path.is_file() and is_image_file(path) else None
    except (OSError, ValueError):  # a name too long, a NUL byte
        return None


class ImageChips(Static):
    """The images attached to the next message, one chip each (hidden when there are none)."""

    DEFAULT_CSS = """
    ImageChips { height: auto; padding: 0 1; display: none; }
    ImageChips.-shown { display: block; }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__("", markup=False, **kwargs)  # type: ignore[arg-type]
        self.images: list[ImageBlock] = []

    def add_image(self, image: ImageBlock) -> None:
        self.images.append(image)
        self._draw()

    def remove_last(self) -> None:
        if self.images:
            self.images.pop()
            self._draw()

    def take(self) -> tuple[ImageBlock, ...]:
        """The attached images, for the message being sent; the chips go."""
        taken, self.images = tuple(self.images), []
        self._draw()
        return taken

    def _draw(self) -> None:
        line = Text()
        for image in self.images:
            kind = image.media_type.removeprefix("image/").upper()
            size = len(image.data) * 3 // 4 // 1024
            # The name is the user's file name: shown as text, never as markup or escapes.
            name = "".join(ch if ch.isprintable() else "?" for ch in image.name)
            line.append(f" 🖼 {name} ({kind}, {size} KB) ", style="reverse")
            line.append(" ")
        if self.images:
            line.append(
                "attached to your next message · Backspace in an empty prompt removes one",
                style="dim",
            )
        self.update(line)
        self.set_class(bool(self.images), "-shown")
