"""``/model [NAME]`` in the app: switch at once, or pick from the configured aliases and the
models the provider lists; the status bar's model and context meter follow the switch."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.errors import AgentError
from agent_tui.ui.widgets.notes import Note

if TYPE_CHECKING:
    from agent_tui.front.types import ModelConfig
    from agent_tui.ui.app import AgentApp


async def pick(app: AgentApp, name: str = "") -> None:
    """Switch to ``name`` (an alias or any model name), or to the one picked from a list."""
    front = app.front
    if not name:
        from agent_tui.ui.screens.model_picker import ModelPickerScreen

        screen = ModelPickerScreen(front.model_choices(), front.model, front.served_models)
        picked: str | None = await app.push_screen_wait(screen)
        name = picked or ""
        if not name:
            return
    try:
        label, model = front.resolve_model(name)
    except AgentError as exc:
        await app.transcript.add(Note(str(exc), "error"))
        return
    await switch(app, label or model.name, model)


async def switch(app: AgentApp, label: str, model: ModelConfig) -> None:
    """Use ``model`` from the next request on; say so, and set the meter to its window."""
    try:
        size = await app.front.switch_model(model)
    except AgentError as exc:
        await app.transcript.add(Note(f"Cannot use {label}: {exc}", "error"))
        return
    app.refresh_model_status()
    # The last request's size against the new window: how full the next one starts.
    app.status.context_window, app.status.context_limit = size.window, size.limit
    await app.transcript.add(
        Note(f"Model: {model.provider} {model.name} (context window {size.window:,} tokens)")
    )
