"""Workspace trust in the app: ask once for a folder whose own settings are gated,
store the answer, and apply a yes to the running agent (settings, approvals, MCP servers).

Functions of the app rather than methods, to keep ``app.py`` about the chat.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.ui.widgets.notes import Note

if TYPE_CHECKING:
    from agent_tui.ui.app import AgentApp


def trust_answer_here(app: AgentApp) -> bool | None:
    """The stored answer for the app's folder: True, False, or None (never asked)."""
    from agent_tui.approvals.trust import trust_answer

    # The same state dir as the grants and the /trust command.
    return trust_answer(app.workspace, app.agent.deps.approvals.grants.path.parent)


def untrusted_mcp_files(app: AgentApp) -> list[str]:
    """The workspace MCP files left unread because the folder is not trusted."""
    if app.agent.deps.mcp is None:  # no workspace MCP file exists (mcp_configured)
        return []
    from agent_tui.mcp.config import ignored_workspace_files

    config = app.agent.deps.config
    return ignored_workspace_files(config.workspace, trusted=config.trusted)


def check_trust(app: AgentApp) -> None:
    """Ask once whether to trust a folder with trust-gated settings; apply a stored yes."""
    config = app.agent.deps.config
    files = untrusted_mcp_files(app)
    if config.trusted or not (config.ignored_untrusted or files):
        return
    answer = trust_answer_here(app)
    if answer is None:
        app.run_worker(ask_trust(app, files), exclusive=True, group="trust")
    elif answer:  # trusted earlier, yet this agent was built untrusted: catch up
        app.run_worker(apply_trust(app, True), group="trust")


async def ask_trust(app: AgentApp, files: list[str]) -> None:
    """The trust question (a worker: it waits for the screen's answer)."""
    from agent_tui.approvals.trust import set_trusted
    from agent_tui.ui.screens.trust import TrustScreen, gated_settings

    config = app.agent.deps.config
    settings = gated_settings(config.workspace, config.ignored_untrusted, files)
    trusted = await app.push_screen_wait(TrustScreen(app.workspace_label, settings))
    if trusted is None:
        return  # Esc: asked again next time
    try:
        set_trusted(app.workspace, trusted, app.agent.deps.approvals.grants.path.parent)
    except OSError as exc:  # filelock.Timeout is an OSError too
        await app.transcript.add(Note(f"Could not store your answer: {exc}", "error"))
    if trusted:
        await apply_trust(app, True)
    else:
        await app.transcript.add(Note("Not trusted: this folder's own settings stay off."))


async def apply_trust(app: AgentApp, trusted: bool) -> None:
    """Apply the folder's new trust to the running agent and say what changed."""
    from agent_tui.build import apply_trust as apply_to_agent
    from agent_tui.errors import AgentError

    try:
        notes = await apply_to_agent(app.agent, trusted)
    except AgentError as exc:
        await app.transcript.add(Note(f"Could not apply the folder's settings: {exc}", "error"))
        return
    app.install_mcp_hooks()  # a manager created just now needs the UI's hooks
    app.refresh_approval_mode()
    app.refresh_model_status()  # trust can change the endpoint (build.apply_trust)
    for note in notes:
        await app.transcript.add(Note(note))
