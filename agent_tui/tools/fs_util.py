"""File helpers the file tools share: checks with model-facing errors, binary sniffing, text that
keeps its encoding and line endings, and atomic writes.
"""

from __future__ import annotations

import functools
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from agent_tui.errors import ToolError
from agent_tui.safe_read import read_bytes
from agent_tui.state_files import new_temp_file

SNIFF_BYTES = 8192
Edit = tuple[int, int, list[str]]  # (first line, lines removed, lines inserted), 0-based
MAX_EDIT_BYTES = 16 * 1024 * 1024  # edits load the whole file; refuse beyond this

# Leading bytes of common binary formats -> a human name (checked before the NUL-byte heuristic).
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "PNG image"),
    (b"\xff\xd8\xff", "JPEG image"),
    (b"GIF87a", "GIF image"),
    (b"GIF89a", "GIF image"),
    (b"%PDF-", "PDF document"),
    (b"PK\x03\x04", "ZIP archive (or jar/docx/xlsx/wheel)"),
    (b"\x1f\x8b", "gzip archive"),
    (b"BZh", "bzip2 archive"),
    (b"\xfd7zXZ\x00", "xz archive"),
    (b"7z\xbc\xaf\x27\x1c", "7-Zip archive"),
    (b"\x7fELF", "ELF executable/library"),
    (b"\xcf\xfa\xed\xfe", "Mach-O binary"),
    (b"MZ", "Windows executable"),
    (b"SQLite format 3\x00", "SQLite database"),
    (b"\x00asm", "WebAssembly module"),
    (b"RIFF", "RIFF media (wav/avi/webp)"),
    (b"OggS", "Ogg media"),
    (b"ID3", "MP3 audio"),
    (b"wOFF", "WOFF font"),
    (b"\xff\xfe", "UTF-16 text"),
    (b"\xfe\xff", "UTF-16 text"),
)


def human_size(size: int) -> str:
    """Format a byte count as ``512 B``, ``1.5 KB``, ``12.3 MB``."""
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def sniff_binary(sample: bytes, name: str = "") -> str | None:
    """Return a type guess if ``sample`` (a file's first bytes) looks binary, else None."""
    for magic, kind in _MAGIC:
        if sample.startswith(magic):
            # "MZ"/"BZh"/"ID3" are short: only trust them if the sample also holds a NUL byte.
            if len(magic) < 4 and b"\x00" not in sample:
                continue
            return kind
    if b"\x00" in sample:
        import mimetypes  # here: only a binary file's name needs it (~0.6 ms of a start)

        guessed = mimetypes.guess_type(name)[0] if name else None
        return guessed or "binary data"
    return None


def check_file(path: Path, shown: str) -> os.stat_result:
    """Stat ``path`` and make sure it is a regular file, with errors that say what to do instead.

    Args:
        path: the resolved path.
        shown: the path as the model should see it (workspace-relative).

    Raises:
        ToolError: missing, a directory, not a regular file, or not readable.
    """
    try:
        st = path.stat()
    except FileNotFoundError:
        raise ToolError(f"{shown} does not exist.{_suggest_siblings(path)}") from None
    except PermissionError:
        raise ToolError(f"Permission denied reading {shown}.") from None
    except OSError as exc:
        raise ToolError(f"Cannot access {shown}: {exc.strerror or exc}.") from None
    if stat.S_ISDIR(st.st_mode):
        raise ToolError(f"{shown} is a directory, not a file; use list_dir to see what it holds.")
    if not stat.S_ISREG(st.st_mode):
        raise ToolError(
            f"{shown} is not a regular file (a device, socket or pipe); it cannot be read."
        )
    return st


def _suggest_siblings(path: Path) -> str:
    """A hint naming similar files in the same folder, or how to search."""
    try:
        names = [p.name for p in path.parent.iterdir()] if path.parent.is_dir() else []
    except OSError:
        names = []
    import difflib  # ~1 ms: here and in unified_diff(), not on every start

    close = difflib.get_close_matches(path.name, names, n=3, cutoff=0.6)
    if close:
        return " Did you mean: " + ", ".join(close) + "?"
    return " Use file_search to find the right path."


@dataclass
class TextFile:
    """A text file decoded for editing, remembering how to write it back byte-for-byte alike.

    ``text`` uses ``\\n`` line endings when the file was consistently CRLF (so the model's
    ``\\n``-joined strings match); ``newline`` is what to put back.
    """

    text: str
    encoding: str  # "utf-8", "utf-8-sig" or "latin-1"
    newline: str  # "\n" or "\r\n"
    mode: int | None  # permission bits to restore on write

    def encode(self, text: str) -> bytes:
        """Encode ``text`` (``\\n`` line endings) the way the original file was stored."""
        if self.newline == "\r\n":
            text = text.replace("\r\n", "\n").replace("\n", "\r\n")
        return text.encode(
            self.encoding, errors="surrogateescape" if self.encoding == "utf-8" else "strict"
        )


def detect_newline(text: str) -> str:
    """``\\r\\n`` if every line break in ``text`` is CRLF (and there is one), else ``\\n``."""
    crlf = text.count("\r\n")
    return "\r\n" if crlf and crlf == text.count("\n") else "\n"


def decode_text(data: bytes, *, mode: int | None = None) -> TextFile:
    """Decode file bytes for editing, keeping the encoding, BOM and line-ending style."""
    if data.startswith(b"\xef\xbb\xbf"):
        encoding, text = "utf-8-sig", data[3:].decode("utf-8", errors="replace")
    else:
        # surrogateescape round-trips stray non-UTF-8 bytes unchanged when the file is written back.
        encoding, text = "utf-8", data.decode("utf-8", errors="surrogateescape")
    newline = detect_newline(text)
    if newline == "\r\n":
        text = text.replace("\r\n", "\n")
    return TextFile(text=text, encoding=encoding, newline=newline, mode=mode)


def read_text_for_edit(path: Path, shown: str) -> TextFile:
    """Read a whole text file for an edit.

    Raises:
        ToolError: missing, a directory, binary, too large or unreadable.
    """
    st = check_file(path, shown)
    if st.st_size > MAX_EDIT_BYTES:
        raise ToolError(
            f"{shown} is {human_size(st.st_size)}; files over {human_size(MAX_EDIT_BYTES)} "
            "cannot be edited with this tool (use run_in_terminal with sed or a script)."
        )
    try:
        data = read_bytes(path, MAX_EDIT_BYTES)  # refused, not blocked on, if now a FIFO
    except PermissionError:
        raise ToolError(f"Permission denied reading {shown}.") from None
    except OSError as exc:
        raise ToolError(f"Cannot read {shown}: {exc.strerror or exc}.") from None
    kind = sniff_binary(data[:SNIFF_BYTES], path.name)
    if kind is not None:
        raise ToolError(
            f"{shown} is a binary file ({kind}, {human_size(len(data))}); it cannot be edited as text."
        )
    return decode_text(data, mode=stat.S_IMODE(st.st_mode))


def atomic_write(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """Write ``data`` to ``path`` atomically: a temp file in the same folder, then ``os.replace``.

    A reader (or a crash) sees either the old file or the new one, never half of it. The file's
    permission bits are kept (``mode``, or the existing file's; new files get the umask default).

    Raises:
        ToolError: the folder is not writable or the disk is full.
    """
    if mode is None:
        try:
            mode = stat.S_IMODE(path.stat().st_mode)
        except FileNotFoundError:
            mode = None
    try:
        fd, tmp = new_temp_file(path.parent, f".{path.name}.", ".tmp")
    except PermissionError:
        raise ToolError(f"Permission denied writing in {path.parent}.") from None
    except OSError as exc:
        raise ToolError(f"Cannot write {path}: {exc.strerror or exc}.") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        # created 0600; a new file gets the usual umask-derived mode instead.
        os.chmod(tmp, mode if mode is not None else new_file_mode())
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise ToolError(f"Cannot write {path}: {exc.strerror or exc}.") from None


@functools.cache
def _umask() -> int:
    # Reading the umask means setting it; do it once, not while other threads create files.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def new_file_mode() -> int:
    """Permission bits a new file gets from ``open()`` under the process umask (usually 0644)."""
    return 0o666 & ~_umask()


def unified_diff(
    old: str | None, new: str | None, shown: str, *, old_shown: str | None = None, context: int = 3
) -> str:
    """A unified diff of two texts (``\\n`` line endings); None stands for "no file" (/dev/null)."""
    import difflib

    lines = difflib.unified_diff(
        (old or "").splitlines(keepends=True),
        (new or "").splitlines(keepends=True),
        fromfile="/dev/null" if old is None else f"a/{old_shown or shown}",
        tofile="/dev/null" if new is None else f"b/{shown}",
        n=context,
    )
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def edits_diff(before: str, edits: list[Edit], shown: str, old_shown: str, context: int = 3) -> str:
    """A unified diff built straight from known edits (same output shape as difflib's)."""
    if not edits:
        return ""
    old = before.split("\n")
    if old and old[-1] == "":
        old.pop()
    out = [f"--- a/{old_shown}\n", f"+++ b/{shown}\n"]
    groups: list[list[Edit]] = []
    for edit in edits:
        if groups and edit[0] - (groups[-1][-1][0] + groups[-1][-1][1]) <= 2 * context:
            groups[-1].append(edit)
        else:
            groups.append([edit])
    shift = 0  # how many lines earlier groups added (negative: removed)
    for group in groups:
        first = max(group[0][0] - context, 0)
        last = min(group[-1][0] + group[-1][1] + context, len(old))
        body: list[str] = []
        at = first
        for start, length, new in group:
            body += [f" {line}\n" for line in old[at:start]]
            body += [f"-{line}\n" for line in old[start : start + length]]
            body += [f"+{line}\n" for line in new]
            at = start + length
        body += [f" {line}\n" for line in old[at:last]]
        old_count = last - first
        new_count = old_count + sum(len(new) - length for _, length, new in group)
        out.append(
            f"@@ -{_range(first + 1, old_count)} +{_range(first + 1 + shift, new_count)} @@\n"
        )
        out += body
        shift += new_count - old_count
    return "".join(out)


def _range(start: int, length: int) -> str:
    # difflib's convention: "-5" for one line, "-4,0" for none (the line before).
    if length == 1:
        return str(start)
    return f"{start - 1 if length == 0 else start},{length}"


def diff_block(diff: str, *, limit: int = 20_000) -> str:
    """Wrap a diff in a fenced ```diff block for a confirmation, cut if very long."""
    if len(diff) > limit:
        diff = diff[:limit] + f"\n... diff cut ({len(diff) - limit} more characters)\n"
    return f"```diff\n{diff}```" if diff.endswith("\n") else f"```diff\n{diff}\n```"
