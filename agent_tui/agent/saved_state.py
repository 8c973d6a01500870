"""What a session file keeps of the session's state besides its conversation and events, and
putting it back on resume: the extra roots (``--add-dir``, ``/add-dir``) and the tools
``tool_search`` loaded.

The recorder writes them as a ``state`` line whenever they change (``SessionRecorder.keep_state``;
the last line wins on load). The file sits in the user's state dir but may have been edited, so
nothing in it is trusted: each root goes through the same check as ``--add-dir``
(``sandbox/extra_roots.check_extra_root``) and one that vanished or is no longer allowed is left
out with a notice the user sees; a loaded tool that no longer exists (its MCP server gone) is
dropped once the servers have started, with one notice (``toolsearch/session.drop_gone``).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from agent_tui import events as ev
from agent_tui.errors import UsageError
from agent_tui.plural import plural
from agent_tui.text_safety import visible
from agent_tui.tools.base import SessionState
from agent_tui.tools.workspace_paths import inside_any, real_path

if TYPE_CHECKING:
    from agent_tui.agent.loop import Agent, AgentDeps
    from agent_tui.sessions.loader import LoadedSession

logger = logging.getLogger(__name__)

# The events after which the state may have changed (a turn's start opens the file; /add-dir is
# a command; tool_search a call): the recorder compares it then, not after every delta.
STATE_MAY_CHANGE = frozenset(
    {ev.TurnStarted.type, ev.CommandHandled.type, ev.ToolCallFinished.type, ev.TurnFinished.type}
)


def saved_state(session: SessionState) -> dict[str, list[str]]:
    """The state a ``state`` line holds (a key only when it has something)."""
    from agent_tui.toolsearch.session import loaded_names

    state: dict[str, list[str]] = {}
    if session.extra_roots:
        state["extra_roots"] = [str(root) for root in session.extra_roots]
    if loaded := loaded_names(session):
        state["tools_loaded"] = loaded
    return state


def record_event(agent: Agent, event: ev.Event | None) -> None:
    """Follow ``event`` (None: a change outside a turn) in the todo list's history, which
    ``/rewind`` rolls back (``tools/todo.py``), and in the session file."""
    if not agent.sub_agent:  # a sub-agent's conversation is not the one the history counts
        _follow_todo(agent, event)
    recorder = agent.recorder
    if recorder is None:
        return
    if event is not None:
        recorder.record(event, agent.conversation)
    else:
        recorder.sync(agent.conversation)
    if event is None or event.type in STATE_MAY_CHANGE:  # the roots, the tools loaded
        recorder.keep_state(saved_state(agent.deps.session))


def _follow_todo(agent: Agent, event: ev.Event | None) -> None:
    from agent_tui.tools.todo import compacted, note_change

    if isinstance(event, ev.TodoUpdated):
        note_change(agent.deps.session, len(agent.conversation.messages), event.items)
    elif isinstance(event, ev.ConversationCompacted):  # the counts move with the messages
        head = agent.conversation.messages[:1]
        compacted(agent.deps.session, event.replaced, bool(head) and len(head[0].content) > 1)


def restore_state(agent: Agent, loaded: LoadedSession) -> None:
    """Put back the resumed session's extra roots (each checked again; what is left out is
    said in ``loaded.notices``) and the tools it had loaded."""
    from agent_tui.toolsearch.session import restore_loaded

    deps = agent.deps
    for raw in loaded.saved_roots:
        note = _restore_root(deps, raw)
        if note is not None:
            loaded.notices.append(note)
    restore_loaded(deps.session, loaded.saved_tools)
    if agent.recorder is not None:  # what the file holds now: a change is written, not this
        as_saved = {"extra_roots": loaded.saved_roots, "tools_loaded": loaded.saved_tools}
        agent.recorder.state_written({key: value for key, value in as_saved.items() if value})


def _restore_root(deps: AgentDeps, raw: str) -> str | None:
    """Add the saved root ``raw`` again if ``--add-dir`` would still take it; else why not."""
    from agent_tui.sandbox.extra_roots import add_checked_root, check_extra_root

    roots = deps.session.extra_roots
    try:
        if inside_any(roots, real_path(deps.workspace, raw)):
            return None  # given again with --add-dir this run, or listed twice
        full = check_extra_root(raw, deps.workspace, roots)
    except (UsageError, OSError, ValueError) as exc:  # ValueError: a NUL in an edited file
        logger.info("saved extra root %r left out: %s", raw, exc)
        return f"The session's extra root {visible(raw)} was left out: {visible(str(exc))}"
    add_checked_root(roots, deps.sandbox, full)
    return None


def gone_tools_notice(deps: AgentDeps) -> str | None:
    """Once the MCP servers have started after a resume: the loaded tools that no longer exist,
    dropped, in one sentence (None: none, or not known yet)."""
    from agent_tui.toolsearch.session import RESTORED_KEY, drop_gone

    if RESTORED_KEY not in deps.session.extras:
        return None
    mcp = deps.mcp
    if mcp is not None and any(s.status == "starting" for s in mcp.servers.values()):
        return None  # a server still starting may bring them
    gone = drop_gone(deps.session, deps.tools)
    if not gone:
        return None
    logger.info("tools loaded before the resume, gone now: %s", ", ".join(gone))
    names = ", ".join(visible(name) for name in gone[:5]) + (" …" if len(gone) > 5 else "")
    return (
        f"{plural(len(gone), 'tool')} loaded earlier in this session no longer "
        f"{'exists' if len(gone) == 1 else 'exist'} (an MCP server gone?): {names}"
    )
