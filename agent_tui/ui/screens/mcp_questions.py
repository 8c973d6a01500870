"""The TUI's answers to MCP servers' questions: elicitation forms, sampling consent, and the
``${input:ID}`` values a server's config needs to start.

The MCP manager awaits these hooks from its server tasks, which run on the app's event loop but
are not Textual workers, so ``push_screen_wait`` (worker-only) cannot be used; ``ask_modal``
pushes the screen with a result callback and awaits a future that callback resolves.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, TypeVar

from textual.app import App
from textual.screen import Screen

from agent_tui.front.types import Decision, ElicitAnswer, InputSpec, SamplingRequest

logger = logging.getLogger(__name__)
T = TypeVar("T")


async def ask_modal(app: App[Any], screen: Screen[T]) -> T | None:
    """Push ``screen`` and wait until it is dismissed; callable from any task on the app's loop.

    If the waiting task is cancelled (the server gave up, the turn was cancelled), the screen is
    taken down so no orphaned question stays on top.
    """
    answer: asyncio.Future[T | None] = asyncio.get_running_loop().create_future()

    def done(result: T | None) -> None:
        if not answer.done():
            answer.set_result(result)

    await app.push_screen(screen, done)
    try:
        return await answer
    except asyncio.CancelledError:
        if app.screen is screen:
            screen.dismiss(None)
        raise


class McpDialogs:
    """Answers MCP servers' elicitation, sampling-consent and input requests with modal screens
    (``front.mcp.McpQuestions``)."""

    def __init__(self, app: App[Any]) -> None:
        self.app = app

    async def on_elicit(self, server: str, message: str, schema: dict[str, Any]) -> ElicitAnswer:
        from agent_tui.ui.screens.elicit import ElicitScreen
        from agent_tui.ui.widgets.elicit_fields import parse_schema

        app = self.app
        try:
            fields = parse_schema(schema)
        except ValueError as exc:
            # The spec allows only flat primitive forms; say why the request was refused.
            app.notify(
                f"MCP server {server} asked for a form we cannot show: {exc}", severity="error"
            )
            return ElicitAnswer("decline")
        app.bell()
        answer = await ask_modal(app, ElicitScreen(server, message, fields))
        return answer if answer is not None else ElicitAnswer("cancel")

    async def on_elicit_url(self, server: str, message: str, url: str) -> ElicitAnswer:
        from agent_tui.ui.screens.elicit_url import ElicitUrlScreen

        self.app.bell()
        answer = await ask_modal(self.app, ElicitUrlScreen(server, message, url))
        return answer if answer is not None else ElicitAnswer("cancel")

    async def ask_sampling(self, server: str, request: SamplingRequest) -> Decision:
        from agent_tui.ui.screens.sampling_consent import SamplingConsentScreen

        self.app.bell()
        answer = await ask_modal(self.app, SamplingConsentScreen(server, request))
        return answer if answer is not None else Decision(allow=False)  # taken down unanswered

    async def ask_input(self, server: str, spec: InputSpec) -> str | None:
        from agent_tui.ui.screens.mcp_input import McpInputScreen

        self.app.bell()
        return await ask_modal(self.app, McpInputScreen(server, spec))
