"""read_file: numbered lines of a text file, paged, without loading big files into memory."""

from __future__ import annotations

import asyncio
import io
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from agent_tui.errors import ToolError
from agent_tui.images import ImageError, load_image, sniff_image
from agent_tui.tools.base import BaseTool, Prepared, ToolContext, ToolResult
from agent_tui.tools.file_access import FileAccess
from agent_tui.tools.fs_args import optional_int, require_str
from agent_tui.tools.fs_util import SNIFF_BYTES, check_file, human_size, sniff_binary
from agent_tui.tools.result_files import saved_result
from agent_tui.tools.workspace_paths import OutsideWorkspace

PAGE_LINES = 1000  # most lines returned by one call
PAGE_CHARS = 40_000  # most characters returned by one call (~10k tokens)
MAX_LINE_CHARS = 2000  # longer lines are cut
# Bytes of one line held in memory; the rest of a longer line is skipped, not loaded.
LINE_READ_LIMIT = 64 * 1024
COUNT_LIMIT = 8 * 1024 * 1024  # count the remaining lines exactly only if this few bytes remain
CHUNK = 1024 * 1024


@dataclass(frozen=True)
class ReadRequest:
    """A checked read_file call: the path, its shown name and the lines asked for."""

    path: Path
    shown: str
    start: int
    end: int | None
    saved: bool = False  # a big tool result the app saved (tools/result_files.py)


def _parse(input: Any, ctx: ToolContext) -> ReadRequest:
    path_arg = require_str(input, "path")
    start = optional_int(input, "start_line") or 1
    end = optional_int(input, "end_line")
    if end is not None and end < start:
        raise ToolError(
            f"end_line ({end}) is before start_line ({start}); give 1-based start_line ≤ end_line."
        )
    try:
        path = ctx.resolve(path_arg)
    except OutsideWorkspace:
        # The one kind of file outside the workspace it reads: a result the app itself saved.
        saved = saved_result(ctx.workspace, path_arg)
        if saved is None:
            raise
        return ReadRequest(saved, str(saved), start, end, saved=True)
    return ReadRequest(path, ctx.relative(path), start, end)


class ReadFileTool(BaseTool):
    """Read a text file's lines, numbered, a page at a time."""

    name = "read_file"

    def prepare(self, input: dict[str, Any], ctx: ToolContext) -> Prepared:
        req = _parse(input, ctx)
        if req.end is not None:
            span = f", lines {req.start}–{req.end}"
        elif req.start > 1:
            span = f", from line {req.start}"
        else:
            span = ""
        return Prepared(
            invocation_message=f"Reading {req.shown}{span}",
            past_tense_message=f"Read {req.shown}{span}",
            # A saved result is the app's own file: no workspace path to approve or watch.
            paths=() if req.saved else (req.path,),
        )

    async def invoke(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        req = _parse(input, ctx)
        # Off the event loop: a far start_line in a big file means scanning many megabytes.
        files = ctx.session.files
        if files.editor and not req.saved:
            result = await _read_through(files, req)
        else:
            result = await asyncio.to_thread(read_page, req)
        ctx.session.remember(req.path)
        return result


def _skip_lines(handle: IO[bytes], count: int) -> int:
    """Move past ``count`` lines by scanning chunks; return how many lines were really skipped."""
    skipped = 0
    while skipped < count:
        offset = handle.tell()
        chunk = handle.read(CHUNK)
        if not chunk:
            return skipped
        found = chunk.count(b"\n")
        if skipped + found < count:
            skipped += found
            if len(chunk) < CHUNK and not chunk.endswith(b"\n"):
                return skipped + 1  # a last line without a newline
            continue
        index = -1
        for _ in range(count - skipped):
            index = chunk.index(b"\n", index + 1)
        handle.seek(offset + index + 1)
        return count
    return skipped


def _read_line(handle: IO[bytes]) -> tuple[bytes, int] | None:
    """One line (at most LINE_READ_LIMIT bytes of it) and its full length in bytes; None at EOF."""
    raw = handle.readline(LINE_READ_LIMIT)
    if not raw:
        return None
    length = len(raw)
    tail = raw
    while not tail.endswith(b"\n"):
        tail = handle.readline(CHUNK)
        if not tail:
            break
        length += len(tail)
    return raw, length


def _format_line(number: int, raw: bytes, length: int) -> str:
    text = raw.rstrip(b"\r\n").decode("utf-8", errors="replace")
    if number == 1:
        text = text.removeprefix("\ufeff")
    if len(text) > MAX_LINE_CHARS or length > len(raw):
        text = f"{text[:MAX_LINE_CHARS]}… [line cut; it is {human_size(length)} long]"
    return f"{number:>6}\t{text}"


def _read_image(req: ReadRequest) -> ToolResult:
    """A PNG, JPEG, GIF or WebP file goes to the model as an image (a placeholder without vision)."""
    try:
        image = load_image(req.path, req.shown)
    except ImageError as exc:
        raise ToolError(f"{exc}.") from None
    size = human_size(len(image.data) * 3 // 4)
    kind = image.media_type.removeprefix("image/").upper()
    return ToolResult(f"{req.shown} is an image ({kind}, {size}); it is attached.", images=(image,))


def read_page(req: ReadRequest) -> ToolResult:
    """Read one page of ``req`` (blocking; run it in a thread).

    Raises:
        ToolError: the file is missing, a directory, binary, unreadable, or start_line is past its end.
    """
    st = check_file(req.path, req.shown)
    try:
        handle = req.path.open("rb")
    except PermissionError:
        raise ToolError(f"Permission denied reading {req.shown}.") from None
    except OSError as exc:
        raise ToolError(f"Cannot read {req.shown}: {exc.strerror or exc}.") from None
    with handle:
        head = handle.read(SNIFF_BYTES)
        if sniff_image(head) is not None:
            return _read_image(req)
        kind = sniff_binary(head, req.path.name)
        if kind is not None:
            raise ToolError(
                f"{req.shown} is a binary file ({kind}, {human_size(st.st_size)}); read_file only "
                "reads text. Use run_in_terminal (e.g. `file`, `xxd | head`) to inspect it."
            )
        handle.seek(0)
        return page_of(req, handle, st.st_size)


def page_of(req: ReadRequest, handle: IO[bytes], size: int) -> ToolResult:
    """The page of ``req`` from ``handle``, a text of ``size`` bytes."""
    if size == 0:
        return ToolResult(f"{req.shown} is empty (0 lines).", data={"total_lines": 0})
    lines, more = _page(handle, req)
    shown_to = req.start + len(lines) - 1
    total, total_text, exact = _count_lines(handle, size, shown_to + (1 if more else 0))
    return _result(req, lines, shown_to, total, total_text, exact, more)


async def _read_through(files: FileAccess, req: ReadRequest) -> ToolResult:
    """A page of the file's text as the editor holds it (unsaved changes too); an image or a
    binary file, which an editor has no text of, is read from disk."""
    check_file(req.path, req.shown)
    try:
        with req.path.open("rb") as handle:
            head = handle.read(SNIFF_BYTES)
    except OSError as exc:
        raise ToolError(f"Cannot read {req.shown}: {exc.strerror or exc}.") from None
    if sniff_image(head) is not None or sniff_binary(head, req.path.name) is not None:
        return await asyncio.to_thread(read_page, req)
    data = (await files.read(req.path, req.shown)).text.encode("utf-8", "surrogateescape")
    return page_of(req, io.BytesIO(data), len(data))


def _page(handle: IO[bytes], req: ReadRequest) -> tuple[list[str], bool]:
    """The page's lines, formatted, and whether more follow (a line that did not fit)."""
    skipped = _skip_lines(handle, req.start - 1)
    last_wanted = req.end if req.end is not None else req.start + PAGE_LINES - 1
    lines: list[str] = []
    chars = 0
    more = False
    while req.start + len(lines) <= last_wanted:
        read = _read_line(handle)
        if read is None:
            break
        raw, length = read
        line = _format_line(req.start + len(lines), raw, length)
        if len(lines) >= PAGE_LINES or (lines and chars + len(line) > PAGE_CHARS):
            more = True  # this line exists but does not fit: the next page starts with it
            break
        lines.append(line)
        chars += len(line) + 1
    if not lines:
        raise ToolError(
            f"start_line {req.start} is past the end of {req.shown}, which has {skipped} lines."
        )
    return lines, more


def _count_lines(handle: IO[bytes], size: int, consumed: int) -> tuple[int, str, bool]:
    """The file's line count (total, as shown, exact?) with ``consumed`` lines read: counted
    when the rest is small, else estimated from the bytes those lines took."""
    position = handle.tell()
    if size - position <= COUNT_LIMIT:
        handle.seek(-1, 2)
        ends_with_newline = handle.read(1) == b"\n"
        handle.seek(position)
        rest = sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(CHUNK), b""))
        # Every consumed line ended in a newline, except a last line without one.
        newlines = consumed - (1 if position == size and not ends_with_newline else 0)
        total = newlines + rest + (0 if ends_with_newline else 1)
        return total, str(total), True
    estimate = int(size / max(position, 1) * consumed)
    total_text = (
        f"at least {consumed} (roughly {estimate:,} judging by its {human_size(size)} size)"
    )
    return consumed, total_text, False


def _result(
    req: ReadRequest,
    lines: list[str],
    shown_to: int,
    total: int,
    total_text: str,
    exact: bool,
    more: bool,
) -> ToolResult:
    header = f"{req.shown}: lines {req.start}–{shown_to} of {total_text}"
    body = "\n".join(lines)
    footer = ""
    if more or not exact or shown_to < total:
        footer = f"\n[More lines follow. Call read_file with start_line={shown_to + 1} to read the next part.]"
    return ToolResult(
        f"{header}\n{body}{footer}",
        data={
            "start_line": req.start,
            "end_line": shown_to,
            "total_lines": total,
            "total_exact": exact,
        },
    )
