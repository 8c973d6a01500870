"""``@path`` mentions: ``@src/app.py`` anywhere in a prompt attaches the file as ``#file:`` does.

A participant of the same name wins when the mention is the first word (``@workspace`` stays the
participant); the plan then carries a notice saying so and how to attach the file instead. A mention
that names no existing workspace entry is ordinary text (``@alice``, ``@types/node``), but one that
leads outside the workspace (``@../secret``, ``@/etc/passwd``, a symlink out) is refused, exactly as
``#file:`` refuses it, so the user learns why nothing was attached.
"""

from __future__ import annotations

import re
import stat

from agent_tui.agent.references import (
    _VERBATIM,
    Reference,
    ReferenceContext,
    Token,
    _strip_trailing,
    quote_path,
    resolve_file,
)
from agent_tui.errors import ToolError, UsageError
from agent_tui.safe_read import NotRegularFile

# '@' at the start or after whitespace/an opening bracket (so "bob@example.com" is not one), then a
# path up to whitespace. Line ranges are #file's job: "@app.py:10" is taken as the path "app.py:10".
MENTION = re.compile(r"(?:(?<=^)|(?<=[\s(\[{\"'`]))@([^\s@]+)")


def find_mentions(text: str) -> list[Token]:
    """Every ``@word`` outside fenced code and ``<stdin>`` blocks, sentence punctuation trimmed."""
    verbatim = [m.span() for m in _VERBATIM.finditer(text)]
    found = []
    for match in MENTION.finditer(text):
        if any(start <= match.start() < end for start, end in verbatim):
            continue
        path = _strip_trailing(match.group(1)).rstrip(".:")
        if path:
            found.append(Token("@", path, match.start(), match.start() + 1 + len(path)))
    return found


def names_workspace_file(ctx: ReferenceContext, path: str) -> bool:
    """True when ``path`` is an existing file inside the workspace.

    Raises:
        UsageError: the path leads outside the workspace (refused as ``#file:`` refuses it), or
            names a FIFO, socket or device (never read: it could block forever).
    """
    try:
        full = ctx.tool_context.resolve(path)
    except ToolError as exc:
        raise UsageError(f"@{path}: {exc}") from None
    except (OSError, ValueError):  # a name too long for the OS, a NUL: no such file, just text
        return False
    try:
        mode = full.stat().st_mode
    except (OSError, ValueError):
        return False
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return stat.S_ISREG(mode)  # a folder's name stays text
    raise UsageError(f"@{path}: {NotRegularFile(path, mode)}; it was not attached")


async def resolve_mentions(ctx: ReferenceContext, text: str) -> list[Reference]:
    """The files named by ``@path`` mentions in ``text``, in order; other mentions stay text.

    Raises:
        UsageError: a mention leads outside the workspace, or the file cannot be attached
            (binary, too large).
    """
    references = []
    for token in find_mentions(text):
        if names_workspace_file(ctx, token.arg):
            references.append(await resolve_file(ctx, quote_path(token.arg)))
    return references


def shadowed_file_notice(ctx: ReferenceContext, name: str) -> str:
    """A notice when ``@name`` was taken as the participant although a file of that name exists."""
    try:
        if not names_workspace_file(ctx, name):
            return ""
    except UsageError:
        return ""
    return (
        f"@{name} is the participant @{name}, not the file {name}; "
        f"write #file:{quote_path(name)} to attach the file"
    )
