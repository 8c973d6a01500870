"""#-references (DESIGN §6): ``#file:path[:a-b]``, ``#changes``, ``#terminalLastCommand``, ``#<tool>``.

One registry of reference kinds drives parsing, completion and resolution; the built-in kinds
register through the same ``register`` call an MCP adapter uses for its resources. A token that names
no kind and no tool (``#123``, ``#define``) is left alone: it is ordinary text.

Resolution happens before anything is sent, so a missing file or a folder outside git is a
``UsageError`` the user sees at once, not a confusing model reply.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.conversation import ImageBlock
from agent_tui.errors import ToolError, UsageError
from agent_tui.images import ImageError, is_image_file, load_image
from agent_tui.lazy_regex import lazy_pattern
from agent_tui.plural import plural
from agent_tui.safe_read import check_regular, read_bytes
from agent_tui.tools.base import SessionState, ToolContext
from agent_tui.tools.git_safe import DIFF_FLAGS, SUBMODULES, GitMissing, SafeGit

if TYPE_CHECKING:
    from agent_tui.mcp.manager import McpManager

# A token: '#', a name, and for kinds that take one an argument after ':'. It must start the text or
# follow whitespace/an opening bracket, so "issue#12" or "C#" are not references. An argument that
# opens a quote runs to the closing quote on the same line, so it may hold spaces
# (#file:"my notes.txt":10-40); an unclosed quote falls back to the unquoted form and
# parse_file_arg reports it.
TOKEN = re.compile(
    r"(?:(?<=^)|(?<=[\s(\[{\"'`]))#([A-Za-z](?:[\w.-]*\w)?)"
    r"(?::(\"[^\"\n]*\"\S*|'[^'\n]*'\S*|\S+))?"
)
_QUOTES = ('"', "'")

MAX_FILE_BYTES = 4_000_000  # beyond this a #file needs a line range
MAX_DIFF_CHARS = 1_000_000  # the budget shrinks it further; this only bounds memory
MAX_COMMAND_OUTPUT_CHARS = 200_000
# Characters that end a sentence rather than a path: "see #file:app.py, then ..."
_TRAILING = ",;)]}!?'\"`"


@dataclass(frozen=True)
class Reference:
    """Context attached to a turn, shown to the user as a chip.

    Args:
        kind: "file" | "changes" | "terminalLastCommand" | "tool" | "mcp" (or a registered kind).
        label: the chip text, e.g. "#file:src/app.py:10-40".
        text: what goes to the model ("" for tool hints, which go to the system prompt).
        focus_lines: the lines of interest (1-based, inclusive, in ``text``'s own line numbers),
            kept when the budget shrinks the reference.
    """

    kind: str
    label: str
    text: str
    focus_lines: tuple[int, int] | None = None
    image: ImageBlock | None = None  # #file: of a PNG/JPEG/GIF/WebP: the image itself (text "")


@dataclass(frozen=True)
class ReferenceContext:
    """What a resolver may use."""

    workspace: Path
    session: SessionState
    tool_context: ToolContext


Resolver = Callable[[ReferenceContext, str], Awaitable[Reference]]


@dataclass(frozen=True)
class ReferenceKind:
    """One kind of ``#reference``.

    Args:
        name: the word after '#' ("file", "changes", "mcp").
        description: one line for completion and /help.
        resolve: turns the argument ("" when none) into a Reference; raises UsageError.
        args_hint: shown in completion and /help ("path[:start-end]"); "" = takes no argument.
    """

    name: str
    description: str
    resolve: Resolver
    args_hint: str = ""


class ReferenceRegistry:
    def __init__(self) -> None:
        self._kinds: dict[str, ReferenceKind] = {}

    def register(self, kind: ReferenceKind) -> None:
        self._kinds[kind.name] = kind

    def get(self, name: str) -> ReferenceKind | None:
        return self._kinds.get(name)

    def all(self) -> list[ReferenceKind]:
        return sorted(self._kinds.values(), key=lambda k: k.name)

    def complete(self, prefix: str) -> list[ReferenceKind]:
        return [k for k in self.all() if k.name.startswith(prefix)]


@dataclass(frozen=True)
class Token:
    """A ``#name[:arg]`` occurrence in the user's text."""

    name: str
    arg: str
    start: int
    end: int


# After a URI template argument (``#mcp:srv/demo://text/{id}``), ``key=value`` words fill it in.
_TEMPLATE_PARAMS = lazy_pattern(r"(?:[ \t]+[A-Za-z_][\w.-]*=\S+)+")


_PAIRS = {")": "(", "]": "[", "}": "{"}


def _strip_trailing(arg: str) -> str:
    """Drop sentence punctuation after an argument; a closing bracket stays if it closes one.

    A quoted part (``"my notes.txt"``) is kept whole: only what follows its closing quote is trimmed.
    """
    quoted = arg.find(arg[0], 1) + 1 if arg.startswith(_QUOTES) else 0  # 0: unquoted or unclosed
    head, tail = arg[:quoted], arg[quoted:]
    while tail and tail[-1] in _TRAILING:
        opener = _PAIRS.get(tail[-1])
        if opener is not None and tail.count(opener) >= tail.count(tail[-1]):
            break
        tail = tail[:-1]
    return head + tail


# Quoted material is not the user's own words: no references inside fenced code or piped stdin
# (``git log | agent-tui -p ...`` may well contain "#changes").
_VERBATIM = re.compile(r"```.*?(?:```|\Z)|<stdin>.*?(?:</stdin>|\Z)", re.DOTALL)


def find_tokens(text: str) -> list[Token]:
    """Every ``#name[:arg]`` in ``text`` outside fenced code and ``<stdin>`` blocks.

    Trailing sentence punctuation is not part of ``arg``; a quoted argument keeps its quotes
    (``"my notes.txt":10-40``), which the kind's resolver takes apart.
    """
    verbatim = [m.span() for m in _VERBATIM.finditer(text)]
    tokens = []
    for match in TOKEN.finditer(text):
        if any(start <= match.start() < end for start, end in verbatim):
            continue
        arg = match.group(2) or ""
        end = match.end()
        stripped = _strip_trailing(arg)
        end -= len(arg) - len(stripped)
        if "{" in stripped and (params := _TEMPLATE_PARAMS().match(text, end)):
            stripped, end = stripped + params.group(0), params.end()
        tokens.append(Token(match.group(1), stripped, match.start(), end))
    return tokens


# --- #file -------------------------------------------------------------------------------------

_RANGE = lazy_pattern(r"^(?P<path>.+?)(?::(?P<start>\d+)(?:-(?P<end>\d+))?)?$")
# What may follow a quoted path: a line range, then a sentence's full stop.
_QUOTED_TAIL = lazy_pattern(r"(?::(?P<start>\d+)(?:-(?P<end>\d+))?)?\.*")
_USAGE = '#file:src/app.py, #file:src/app.py:10-40 or, with spaces, #file:"my notes.txt":10-40'


def parse_file_arg(arg: str) -> tuple[str, int | None, int | None]:
    """Split ``path[:start[-end]]``; a single ``:n`` means line n alone.

    The path may be in double or single quotes so it can hold spaces (``"my notes.txt":10-40``);
    only a line range may follow the closing quote.

    Raises:
        UsageError: no path, an unclosed quote, or a range that is not 1-based and ascending.
    """
    if arg.startswith(_QUOTES):
        close = arg.find(arg[0], 1)
        if close < 0:
            raise UsageError(
                f"#file:{arg}: the opening {arg[0]} is never closed; put the whole path in quotes "
                'and any line range after them: #file:"docs/my notes.txt" or '
                '#file:"docs/my notes.txt":10-40'
            )
        tail = _QUOTED_TAIL().fullmatch(arg, close + 1)
        if close == 1:
            raise UsageError(f"#file needs a path: {_USAGE}")
        if tail is None:
            raise UsageError(f"#file:{arg}: only a line range may follow a quoted path: {_USAGE}")
        path, first, last = arg[1:close], tail["start"], tail["end"]
    else:
        if re.search(r":\d+(-\d+)?\.+$", arg):  # "see #file:app.py:3-9." ends a sentence
            arg = arg.rstrip(".")
        match = _RANGE().match(arg)
        if not arg or match is None:
            raise UsageError(f"#file needs a path: {_USAGE}")
        path, first, last = match["path"], match["start"], match["end"]
    start = int(first) if first else None
    end = int(last) if last else start
    if start is not None and end is not None and (start < 1 or end < start):
        raise UsageError(f"#file:{arg}: the line range must be 1-based and ascending (10-40)")
    return path, start, end


def quote_path(path: str) -> str:
    """``path`` as written after ``#file:``, quoted when the unquoted form would not read back whole.

    Spaces, a leading quote, trailing sentence punctuation or a trailing ``:n`` need quotes; the
    check asks the parser itself, so the two cannot drift apart.
    """
    tokens = find_tokens(f"#file:{path}")
    reads_back = (
        len(tokens) == 1
        and tokens[0].arg == path
        and not path.startswith(_QUOTES)
        and not re.search(r":\d+(-\d+)?\.*$", path)
    )
    if reads_back:
        return path
    quote = "'" if '"' in path else '"'
    return f"{quote}{path}{quote}"


def number_lines(lines: list[str], first: int) -> str:
    """``<line number><TAB><text>`` per line: the format read_file returns, so the model reads both
    alike. Only a range the person asked for (``#file:x:10-20``) is numbered: a whole file goes as
    it is, because small models copy a number-and-tab prefix into the code they write."""
    return "\n".join(f"{n}\t{line}" for n, line in enumerate(lines, start=first))


def _image_reference(ctx: ReferenceContext, full: Path, arg: str) -> Reference:
    rel = ctx.tool_context.relative(full)
    try:
        image = load_image(full, rel)
    except ImageError as exc:
        raise UsageError(f"#file:{arg}: {exc}") from None
    return Reference("image", f"#file:{quote_path(rel)}", "", image=image)


def _existing_file(ctx: ReferenceContext, arg: str, path_text: str) -> Path:
    """The workspace path ``#file:`` names; it must exist and not be a folder."""
    try:
        full = ctx.tool_context.resolve(path_text)
        if not full.exists() and path_text.endswith("."):  # "see #file:app.py." ends a sentence
            full = ctx.tool_context.resolve(path_text.rstrip("."))
    except ToolError as exc:
        raise UsageError(f"#file:{arg}: {exc}") from None
    if not full.exists():
        raise UsageError(f"#file:{arg}: no such file in the workspace ({full})")
    if full.is_dir():
        raise UsageError(f"#file:{arg}: is a folder; attach a file (or ask the model to list it)")
    return full


async def _file_bytes(ctx: ReferenceContext, full: Path, arg: str, limit: int) -> bytes:
    """The file's text: as the user's editor has it under ACP (unsaved changes too), else from
    disk (at most ``limit`` bytes)."""
    files = ctx.session.files
    try:
        if files.editor:
            text = await files.read(full, ctx.tool_context.relative(full))
            return text.text.encode("utf-8", "surrogateescape")
        return read_bytes(full, limit)
    except OSError as exc:
        raise UsageError(f"#file:{arg}: {exc}") from None
    except ToolError as exc:
        raise UsageError(f"#file:{arg}: {exc}") from None


async def resolve_file(ctx: ReferenceContext, arg: str) -> Reference:
    """Inline a workspace file (or a line range of it) with line numbers."""
    path_text, start, end = parse_file_arg(arg)
    full = _existing_file(ctx, arg, path_text)
    try:
        size = check_regular(full).st_size  # a FIFO or a device would hang the read below
    except OSError as exc:
        raise UsageError(f"#file:{arg}: {exc}") from None
    if is_image_file(full):  # sent as an image, whatever its size in lines
        return _image_reference(ctx, full, arg)
    if size > MAX_FILE_BYTES and (start is None or size > 16 * MAX_FILE_BYTES):
        raise UsageError(
            f"#file:{arg}: the file is {size:,} bytes; attach a line range (:1-200), or ask the "
            "model to search it"
        )
    raw = await _file_bytes(
        ctx, full, arg, MAX_FILE_BYTES if start is None else 16 * MAX_FILE_BYTES
    )
    if b"\0" in raw[:8192]:
        raise UsageError(f"#file:{arg}: looks like a binary file; only text files can be attached")
    lines = raw.decode("utf-8", errors="replace").splitlines()
    rel = ctx.tool_context.relative(full)
    written = quote_path(rel)  # the chip label pastes back as input
    total = len(lines)
    if total == 0:
        header, body, focus, label = f"{rel} (empty file)", "", None, f"#file:{written}"
    elif start is None or end is None:
        header = f"{rel} ({plural(total, 'line')})"
        body, focus = "\n".join(lines), None
        label = f"#file:{written}"
    else:
        if start > total:
            raise UsageError(f"#file:{arg}: the file has only {plural(total, 'line')}")
        end = min(end, total)
        header = f"{rel}, lines {start}-{end} of {total}"
        body = number_lines(lines[start - 1 : end], start)
        focus = (2, end - start + 2)  # in the reference text: line 1 is the header
        label = f"#file:{written}:{start}-{end}"
    # The model has now seen the file: an edit need not re-read it first (clobber check, DESIGN §4).
    ctx.session.remember(full)
    return Reference("file", label, f"{header}\n{body}".rstrip("\n"), focus)


# --- #changes ----------------------------------------------------------------------------------

_EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"  # git's well-known empty tree


def _changes_text(workspace: Path) -> str:
    """The #changes text (blocking: runs git with the repository's programs switched off)."""
    git = SafeGit(workspace)
    try:
        top = git.work_tree(workspace)
    except GitMissing:
        raise UsageError("#changes needs git, and `git` is not on PATH") from None
    except ToolError as exc:
        raise UsageError(f"#changes: {exc}") from None
    if top is None:
        raise UsageError(f"#changes needs a git repository, and {workspace} is not inside one")
    has_head = git.run("rev-parse", "--verify", "-q", "HEAD").code == 0
    base = "HEAD" if has_head else _EMPTY_TREE
    diff = git.run("diff", *DIFF_FLAGS, SUBMODULES, base, "--", ".")
    if diff.code != 0:
        raise UsageError(f"#changes: git diff failed: {diff.err.strip()}")
    untracked = git.run("ls-files", "--others", "--exclude-standard").out
    parts = []
    if diff.out.strip():
        parts.append(diff.out[:MAX_DIFF_CHARS].rstrip("\n"))
    if untracked.strip():
        names = "\n".join(f"  {name}" for name in untracked.splitlines())
        parts.append(f"Untracked files (not in the diff):\n{names}")
    text = "\n\n".join(parts) or "No changes: the working tree matches HEAD."
    return f"git diff {base[:7]} (working tree)\n{text}"


async def resolve_changes(ctx: ReferenceContext, arg: str) -> Reference:
    """The working tree's diff against HEAD (staged and unstaged), plus untracked file names.

    Git diffs a symbolic link as its target path, never its content, so nothing outside the
    workspace is read.
    """
    text = await asyncio.to_thread(_changes_text, ctx.workspace)
    return Reference("changes", "#changes", text)


# --- #terminalLastCommand ----------------------------------------------------------------------


async def resolve_last_command(ctx: ReferenceContext, arg: str) -> Reference:
    """The last command run in the terminal tool, its exit code and (the tail of) its output."""
    last: dict[str, Any] | None = ctx.session.last_command
    if not last or not last.get("command"):
        raise UsageError(
            "#terminalLastCommand: no command has run in this session yet "
            "(it refers to the last command run through the terminal tool)"
        )
    output = str(last.get("output") or "")
    if len(output) > MAX_COMMAND_OUTPUT_CHARS:  # the end of a log says most about a failure
        output = "[… earlier output cut]\n" + output[-MAX_COMMAND_OUTPUT_CHARS:]
    exit_code = last.get("exit_code")
    head = [
        f"$ {last['command']}",
        f"exit code: {'(still running)' if exit_code is None else exit_code}",
    ]
    text = "\n".join([*head, "output:", output or "(no output)"])
    n_lines = text.count("\n") + 1
    # Keep the command and the end of the output when shrinking.
    focus = (max(1, n_lines - 60), n_lines)
    return Reference("terminalLastCommand", "#terminalLastCommand", text, focus)


def mcp_reference_kind(manager: McpManager) -> ReferenceKind:
    """The ``#mcp:<server>/<uri>`` kind over a running McpManager (register it when MCP starts).

    Args:
        manager: the session's ``agent_tui.mcp.manager.McpManager``.
    """

    async def resolve(ctx: ReferenceContext, arg: str) -> Reference:
        from agent_tui.mcp.resources import resolve_mcp_reference  # the MCP SDK loads lazily

        label, text = await resolve_mcp_reference(manager, arg)
        return Reference("mcp", f"#{label}", text)

    return ReferenceKind(
        "mcp", "a resource of a running MCP server", resolve, args_hint="<server>/<uri>"
    )


def builtin_reference_registry() -> ReferenceRegistry:
    """A registry holding the built-in kinds (tool references are resolved from the tool registry)."""
    registry = ReferenceRegistry()
    registry.register(
        ReferenceKind("file", "a file's text, with line numbers", resolve_file, "path[:start-end]")
    )
    registry.register(
        ReferenceKind("changes", "the git diff of the working tree against HEAD", resolve_changes)
    )
    registry.register(
        ReferenceKind(
            "terminalLastCommand", "the last terminal command and its output", resolve_last_command
        )
    )
    return registry
