"""``agent-tui export ID|NAME [--format md|html|json] [-o PATH]``: a saved session written out.

The session is found as ``--resume`` finds it (an id from any workspace, or a name or unique
prefix of this workspace's, ``-C`` choosing the workspace); an ambiguous name lists the sessions
and exits 2. Without ``-o`` the export goes to stdout.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agent_tui.errors import UsageError


def _parser() -> argparse.ArgumentParser:
    from agent_tui.sessions.export import FORMATS

    parser = argparse.ArgumentParser(
        prog="agent-tui export", description="Write a saved session as Markdown, HTML or JSON."
    )
    parser.add_argument("session", metavar="ID|NAME", help="a session id, name or unique prefix")
    parser.add_argument("--format", choices=FORMATS, default="md", help="md (default), html, json")
    parser.add_argument("-o", "--output", type=Path, help="the file to write (default: stdout)")
    parser.add_argument(
        "-C", "--workspace", type=Path, default=None, help="workspace folder (default: cwd)"
    )
    return parser


def main(argv: list[str]) -> int:
    """Run ``agent-tui export``; returns the exit code (2: unknown or ambiguous session)."""
    from agent_tui.agent.resume import list_hint, named_session
    from agent_tui.paths import state_dir
    from agent_tui.sessions.export import render
    from agent_tui.sessions.loader import SessionFileError, load
    from agent_tui.sessions.store import SessionStore
    from agent_tui.text_safety import one_line

    args = _parser().parse_args(argv)
    store = SessionStore(state_dir(), (args.workspace or Path.cwd()).resolve())
    info = named_session(store, args.session, "export")
    if info is None:
        raise UsageError(f"export: no session {one_line(args.session)[:100]!r}; {list_hint(store)}")
    try:
        text = render(load(info.path), args.format)
    except (OSError, SessionFileError) as exc:
        raise UsageError(f"export: cannot read session {info.id}: {exc}") from None
    if args.output is None:
        sys.stdout.write(text)
        return 0
    try:
        args.output.write_text(text, encoding="utf-8")
    except OSError as exc:
        sys.stderr.write(f"agent-tui export: cannot write {args.output}: {exc}\n")
        return 1
    sys.stderr.write(f"wrote {info.id} to {args.output}\n")
    return 0
