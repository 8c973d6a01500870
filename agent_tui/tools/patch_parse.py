"""Parse the ``*** Begin Patch`` format (Codex's apply_patch; grammar in
tests/fixtures/codex-apply-patch/spec/tool_apply_patch.lark).

Lenient where models are sloppy, as Codex is: markers and file headers may carry surrounding
whitespace, a patch may be wrapped in a ``<<'EOF'`` heredoc, and the first hunk of an update may omit
its ``@@`` line. Strict elsewhere: every error names the patch line and says what was expected.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agent_tui.errors import ToolError

BEGIN = "*** Begin Patch"
END = "*** End Patch"
ADD = "*** Add File: "
DELETE = "*** Delete File: "
UPDATE = "*** Update File: "
MOVE = "*** Move to: "
EOF_MARK = "*** End of File"


class PatchSyntaxError(ToolError):
    """The patch text does not follow the format."""


@dataclass
class Hunk:
    """One ``@@`` section of an update: anchors to seek first, then old lines -> new lines."""

    number: int  # 1-based within its file, for error messages
    patch_line: int  # line of the patch where it starts
    anchors: list[str] = field(default_factory=list)  # texts after "@@ " (stacked @@ lines)
    old: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)
    # For each line of ``new``: the index in ``old`` of the same context line, or None for a '+'
    # line. Context may match the file only after normalising, so the file's own line is kept.
    kept: list[int | None] = field(default_factory=list)
    at_eof: bool = False

    @property
    def label(self) -> str:
        anchor = f" (@@ {self.anchors[-1]})" if self.anchors else ""
        return f"hunk {self.number}{anchor}"


@dataclass
class AddFile:
    """A patch's ``*** Add File`` section: the path and the whole content."""

    path: str
    content: str


@dataclass
class DeleteFile:
    """A patch's ``*** Delete File`` section."""

    path: str


@dataclass
class UpdateFile:
    """A patch's ``*** Update File`` section: its hunks and an optional move."""

    path: str
    move_to: str | None
    hunks: list[Hunk]


FileOp = AddFile | DeleteFile | UpdateFile


def _strip_heredoc(lines: list[str]) -> list[str]:
    """Drop a ``<<'EOF'`` ... ``EOF`` wrapper (also ``apply_patch <<EOF``) around the patch."""
    if len(lines) >= 2:
        first, last = lines[0].strip(), lines[-1].strip()
        opener = first.removeprefix("apply_patch").strip()
        if opener in ("<<EOF", "<<'EOF'", '<<"EOF"') and last == "EOF":
            return lines[1:-1]
    return lines


def parse_patch(text: str) -> list[FileOp]:
    """Parse a patch into file operations.

    Raises:
        PatchSyntaxError: the text is not a valid patch; the message names the line.
    """
    lines = _strip_heredoc(text.strip().splitlines())
    if not lines or lines[0].strip() != BEGIN:
        raise PatchSyntaxError(f"The first line of the patch must be '{BEGIN}'.")
    if len(lines) < 2 or lines[-1].strip() != END:
        raise PatchSyntaxError(f"The last line of the patch must be '{END}'.")
    body = lines[1:-1]
    ops: list[FileOp] = []
    op: FileOp
    index = 0
    while index < len(body):
        header = body[index].strip()
        line_no = index + 2  # 1-based, after the Begin line
        if not header:
            index += 1
            continue
        if (rest := _after(header, ADD)) is not None:
            index, op = _parse_add(body, index + 1, rest)
        elif (rest := _after(header, DELETE)) is not None:
            op, index = DeleteFile(_path(rest, line_no)), index + 1
        elif (rest := _after(header, UPDATE)) is not None:
            index, op = _parse_update(body, index + 1, _path(rest, line_no))
        else:
            raise PatchSyntaxError(
                f"Line {line_no}: '{body[index]}' is not a valid file header. Valid headers: "
                f"'{ADD}<path>', '{DELETE}<path>', '{UPDATE}<path>'."
            )
        ops.append(op)
    if not ops:
        raise PatchSyntaxError("The patch contains no file operations; nothing to do.")
    return ops


def _after(header: str, marker: str) -> str | None:
    """The path after a ``*** Xxx File: `` marker (None if ``header`` is another line)."""
    if header.startswith(marker) or header == marker.rstrip():
        return header[len(marker) :]
    return None


def _path(raw: str, line_no: int) -> str:
    path = raw.strip()
    if not path:
        raise PatchSyntaxError(f"Line {line_no}: the file header has no path.")
    return path


def _parse_add(body: list[str], index: int, raw_path: str) -> tuple[int, AddFile]:
    path = _path(raw_path, index + 1)
    content: list[str] = []
    while index < len(body) and body[index].startswith("+"):
        content.append(body[index][1:] + "\n")
        index += 1
    return index, AddFile(path, "".join(content))


def _parse_update(body: list[str], index: int, path: str) -> tuple[int, UpdateFile]:
    move_to = None
    if index < len(body) and body[index].strip().startswith(MOVE):
        move_to = _path(body[index].strip()[len(MOVE) :], index + 2)
        index += 1
    hunks: list[Hunk] = []
    while index < len(body):
        line = body[index]
        if not line.strip():
            index += 1  # blank lines between hunks
            continue
        if line.strip().startswith("***") and line.strip() != EOF_MARK:
            break  # the next file operation
        index, hunk = _parse_hunk(body, index, len(hunks) + 1, first=not hunks, path=path)
        hunks.append(hunk)
    if not hunks:
        raise PatchSyntaxError(
            f"'{UPDATE}{path}' has no hunks: add '@@' and the lines to change, or drop it."
        )
    return index, UpdateFile(path, move_to, hunks)


def _parse_hunk(
    body: list[str], index: int, number: int, *, first: bool, path: str
) -> tuple[int, Hunk]:
    hunk = Hunk(number=number, patch_line=index + 2)
    start = index
    # Stacked "@@ class X" / "@@ def y" lines narrow the search step by step.
    while index < len(body) and (body[index].rstrip() == "@@" or body[index].startswith("@@ ")):
        anchor = body[index][3:].strip()
        if anchor:
            hunk.anchors.append(anchor)
        index += 1
    if index == start and not first:
        raise PatchSyntaxError(
            f"Line {index + 2} ({path}, hunk {number}): expected an '@@' line to start the hunk, "
            f"got '{body[index]}'."
        )
    changes = 0
    while index < len(body):
        line = body[index]
        if line.strip() == EOF_MARK:
            hunk.at_eof = True
            index += 1
            break
        marker, text = (line[:1], line[1:]) if line else (" ", "")
        if marker == " ":
            hunk.kept.append(len(hunk.old))
            hunk.old.append(text)
            hunk.new.append(text)
        elif marker == "-":
            hunk.old.append(text)
        elif marker == "+":
            hunk.kept.append(None)
            hunk.new.append(text)
        elif changes == 0:
            raise PatchSyntaxError(
                f"Line {index + 2} ({path}, hunk {number}): unexpected line '{line}'. Every hunk "
                "line starts with ' ' (context), '-' (remove) or '+' (add)."
            )
        else:
            break  # the next hunk or file operation
        changes += 1
        index += 1
    if changes == 0:
        raise PatchSyntaxError(
            f"Line {hunk.patch_line} ({path}, hunk {number}): the hunk is empty."
        )
    return index, hunk
