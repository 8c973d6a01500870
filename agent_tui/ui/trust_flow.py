"""Workspace trust in the app: ask once for a folder whose own settings are gated,
store the answer, and apply a yes to the running agent (settings, approvals, MCP servers).

Functions of the app rather than methods, to keep ``app.py`` about the chat.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.errors import AgentError
from agent_tui.ui.widgets.notes import Note

if TYPE_CHECKING:
    from agent_tui.front.views import TrustQuestion
    from agent_tui.ui.app import AgentApp


def trust_answer_here(app: AgentApp) -> bool | None:
    """The stored answer for the app's folder: True, False, or None (never asked)."""
    return app.front.trust.answer()


def check_trust(app: AgentApp) -> bool:
    """Ask once whether to trust a folder with trust-gated settings; apply a stored yes.
    Returns whether the question is being asked."""
    question = app.front.trust.question()
    if not (question.keys or question.mcp_files):
        return False  # trusted, or nothing of the folder's is held back
    answer = trust_answer_here(app)
    if answer is None:
        app.run_worker(ask_trust(app, question), exclusive=True, group="trust")
    elif answer:  # trusted earlier, yet this agent was built untrusted: catch up
        app.run_worker(apply_trust(app, True), group="trust")
    return answer is None


async def ask_trust(app: AgentApp, question: TrustQuestion) -> None:
    """The trust question (a worker: it waits for the screen's answer)."""
    from agent_tui.ui.screens.trust import TrustScreen, gated_settings

    settings = gated_settings(app.workspace, question.keys, list(question.mcp_files))
    trusted = await app.push_screen_wait(TrustScreen(app.workspace_label, settings))
    if trusted is None:
        return  # Esc: asked again next time
    try:
        app.front.trust.store(trusted)
    except OSError as exc:  # filelock.Timeout is an OSError too
        await app.transcript.add(Note(f"Could not store your answer: {exc}", "error"))
    if trusted:
        await apply_trust(app, True)
    else:
        await app.transcript.add(Note("Not trusted: this folder's own settings stay off."))


async def apply_trust(app: AgentApp, trusted: bool) -> None:
    """Apply the folder's new trust to the running agent and say what changed."""
    try:
        notes = await app.front.trust.apply(trusted)
    except AgentError as exc:
        await app.transcript.add(Note(f"Could not apply the folder's settings: {exc}", "error"))
        return
    app.refresh_approval_mode()
    app.refresh_model_status()  # trust can change the endpoint (build.apply_trust)
    for note in notes:
        await app.transcript.add(Note(note))
