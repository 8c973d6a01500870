"""``/model [NAME]`` in the app: switch at once, or pick from the configured aliases and the
models the provider lists; the status bar's model and context meter follow the switch."""

from __future__ import annotations

from typing import Any

from agent_tui.errors import AgentError
from agent_tui.ui.widgets.notes import Note


async def pick(app: Any, name: str = "") -> None:
    """Switch to ``name`` (an alias or any model name), or to the one picked from a list."""
    from agent_tui.agent.model_switch import resolve_model

    if not name:
        from agent_tui.config import model_choices
        from agent_tui.providers.model_list import list_models
        from agent_tui.ui.screens.model_picker import ModelPickerScreen

        agent = app.agent
        screen = ModelPickerScreen(
            model_choices(agent.deps.config), agent.model, lambda: list_models(agent.model)
        )
        name = await app.push_screen_wait(screen) or ""
        if not name:
            return
    try:
        label, model = resolve_model(app.agent, name)
    except AgentError as exc:
        await app.transcript.add(Note(str(exc), "error"))
        return
    await switch(app, label or model.name, model)


async def switch(app: Any, label: str, model: Any) -> None:
    """Use ``model`` from the next request on; say so, and set the meter to its window."""
    from agent_tui.agent.model_switch import context_size
    from agent_tui.providers import make_provider

    try:
        provider = make_provider(model)
    except AgentError as exc:
        await app.transcript.add(Note(f"Cannot use {label}: {exc}", "error"))
        return
    await app.agent.set_model(model, provider)
    app.refresh_model_status()
    size = await context_size(app.agent)
    # The last request's size against the new window: how full the next one starts.
    app.status.context_window, app.status.context_limit = size.window, size.limit
    await app.transcript.add(
        Note(f"Model: {model.provider} {model.name} (context window {size.window:,} tokens)")
    )
