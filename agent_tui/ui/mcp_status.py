"""What the app shows of MCP servers as they start: a count in the status bar while any is still
starting (a request sent then waits for them, up to ``[mcp] startup_wait_s``), and, once none is,
a note naming the tools the 128-tool limit leaves out (each time that list changes), and one note
per server that wrote lines to stdout that are not JSON-RPC (the lines are in its log)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.ui.widgets.notes import Note

if TYPE_CHECKING:
    from agent_tui.front.views import McpStatus
    from agent_tui.ui.app import AgentApp


def watch_mcp(app: AgentApp) -> None:
    """Keep the status bar's MCP count and the over-the-limit note in step with the servers."""
    shown: list[str | None] = [None]
    noisy: set[str] = set()  # servers whose stray stdout was already noted (one note each)

    def changed(status: McpStatus) -> None:
        if app.tearing_down:  # servers stop after the app has gone
            return
        app.status.mcp_starting = status.starting
        if status.starting:
            return  # one note when the servers have settled, not one per server
        notice = status.cap_notice
        if notice is not None and notice != shown[0]:
            shown[0] = notice
            app.call_later(app.transcript.add, Note(notice, "warning"))
        for name, line in status.stray:
            if name not in noisy:
                noisy.add(name)
                app.call_later(app.transcript.add, Note(line, "warning"))

    app.front.mcp.watch(changed)


async def edit_servers(app: AgentApp, words: tuple[str, ...]) -> None:
    """``/mcp add …`` / ``/mcp remove NAME``: edit the ``.agentrc`` and bring the servers in step
    (``Front.mcp.edit``, the code ``agent-tui mcp add`` runs), then say what changed."""
    from agent_tui.errors import AgentError

    watched = app.front.mcp.present  # watch_mcp runs once per manager: a new one needs it
    try:
        notes = await app.front.mcp.edit(words)
    except AgentError as exc:
        await app.transcript.add(Note(f"/mcp: {exc}", "error"))
        return
    if not watched and app.front.mcp.present:
        watch_mcp(app)
    app.refresh_approval_mode()  # the config was read again
    for note in notes:
        await app.transcript.add(Note(note))
