"""The client's terminal as ``run_in_terminal``'s ``ClientTerminal``: ``terminal/create``, the
terminal embedded in the tool call's content (the editor shows it live),
``terminal/wait_for_exit`` within the timeout (``terminal/kill`` past it), ``terminal/output``,
and ``terminal/release`` whatever happened, a cancelled turn included (release kills a command
still running).
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.acp.client_files import CLIENT_FAILURES, client_reason
from agent_tui.errors import ToolError
from agent_tui.front.types import ClientRun

if TYPE_CHECKING:
    from acp.interfaces import Client

logger = logging.getLogger(__name__)
OUTPUT_LIMIT = 1 << 20  # bytes of output the client keeps (its end); the result is capped later


def offers_terminal(capabilities: dict[str, Any]) -> bool:
    return capabilities.get("terminal") is True


class ClientTerminalRunner:
    def __init__(self, client: Client, session: Any) -> None:
        self._client = client
        self._session = session  # the AcpSession: its id changes when a saved session is loaded

    async def run(
        self, call_id: str, argv: list[str], cwd: Path, env: dict[str, str], timeout: float
    ) -> ClientRun:
        from acp.schema import EnvVariable

        try:
            created = await self._client.create_terminal(
                session_id=self._session.id,
                command=argv[0],
                args=argv[1:],
                env=[EnvVariable(name=name, value=value) for name, value in env.items()],
                cwd=str(cwd),
                output_byte_limit=OUTPUT_LIMIT,
            )
        except CLIENT_FAILURES as exc:
            raise ToolError(
                f"The editor could not run the command: {client_reason(exc)}."
            ) from None
        terminal_id = created.terminal_id
        try:
            return await self._follow(call_id, terminal_id, timeout)
        except CLIENT_FAILURES as exc:
            raise ToolError(f"The editor's terminal failed: {client_reason(exc)}.") from None
        finally:
            await asyncio.shield(self._release(terminal_id))

    async def _follow(self, call_id: str, terminal_id: str, timeout: float) -> ClientRun:
        from acp import update_tool_call
        from acp.schema import TerminalToolCallContent

        sid = self._session.id
        shown = TerminalToolCallContent(type="terminal", terminal_id=terminal_id)
        await self._client.session_update(
            session_id=sid,
            update=update_tool_call(call_id, status="in_progress", content=[shown]),
        )
        timed_out = False
        try:
            await asyncio.wait_for(
                self._client.wait_for_terminal_exit(session_id=sid, terminal_id=terminal_id),
                timeout,
            )
        except TimeoutError:
            timed_out = True
            await self._client.kill_terminal(session_id=sid, terminal_id=terminal_id)
        output = await self._client.terminal_output(session_id=sid, terminal_id=terminal_id)
        status = output.exit_status
        return ClientRun(
            output=output.output,
            exit_code=None if timed_out or status is None else status.exit_code,
            signal=status.signal if status is not None else None,
            truncated=output.truncated,
            timed_out=timed_out,
            terminal_id=terminal_id,
        )

    async def _release(self, terminal_id: str) -> None:
        try:
            await self._client.release_terminal(
                session_id=self._session.id, terminal_id=terminal_id
            )
        except CLIENT_FAILURES as exc:
            logger.warning("terminal/release failed: %s", exc)
