"""The client side of ACP for tests: ``agent-tui acp`` started as a real process, driven with the
``agent-client-protocol`` library's ``ClientSideConnection`` (the same code an editor built on it
runs), recording every ``session/update`` and answering ``session/request_permission`` with
the option a test chooses."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, spawn_agent_process
from acp.client.connection import ClientSideConnection
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    PermissionOption,
    RequestPermissionResponse,
    ToolCallUpdate,
)

from tests.fakes.llm_server import FakeLLM
from tests.helpers import clean_env

DEADLINE_S = 60.0


@dataclass
class RecordingClient:
    """Answers permission requests with ``answer`` (an option id; None: never answers)."""

    answer: str | None = "allow_once"
    updates: list[Any] = field(default_factory=list)
    asked: list[tuple[ToolCallUpdate, list[PermissionOption]]] = field(default_factory=list)
    asked_event: asyncio.Event = field(default_factory=asyncio.Event)

    async def request_permission(
        self, options: list[PermissionOption], session_id: str, tool_call: ToolCallUpdate, **_: Any
    ) -> RequestPermissionResponse:
        self.asked.append((tool_call, options))
        self.asked_event.set()
        if self.answer is None:
            await asyncio.Event().wait()  # an editor whose user never answers: cancelled later
        if self.answer == "cancelled":
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        assert self.answer is not None
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=self.answer)
        )

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates.append(update)

    def of(self, kind: str) -> list[Any]:
        """The updates of one ``sessionUpdate`` kind, in order."""
        return [u for u in self.updates if u.session_update == kind]

    def text(self, kind: str = "agent_message_chunk") -> str:
        return "".join(u.content.text for u in self.of(kind))

    async def wait_for(self, kind: str, count: int = 1) -> None:
        """Until ``count`` updates of ``kind`` arrived (notifications follow their answer)."""
        deadline = asyncio.get_running_loop().time() + DEADLINE_S
        while len(self.of(kind)) < count:
            assert asyncio.get_running_loop().time() < deadline, f"no {kind}: {self.updates}"
            await asyncio.sleep(0.01)


@asynccontextmanager
async def acp_agent(
    ws: Path,
    fake: FakeLLM,
    client: RecordingClient,
    *flags: str,
    home: Path,
    env: dict[str, str] | None = None,
    capabilities: ClientCapabilities | None = None,
) -> AsyncIterator[ClientSideConnection]:
    """``agent-tui acp`` in ``ws`` on the fake server, initialized."""
    full_env = {
        "HOME": str(home),
        "AGENT_TUI_STATE_DIR": str(home / "state"),
        "ANTHROPIC_API_KEY": "k",
        **(env or {}),
    }
    args = ("-m", "agent_tui", "acp", "--provider", "anthropic", "--base-url", fake.url, *flags)
    async with spawn_agent_process(
        client, sys.executable, *args, cwd=ws, env=clean_env(full_env)
    ) as (conn, _process):
        started = conn.initialize(
            protocol_version=PROTOCOL_VERSION, client_capabilities=capabilities
        )
        await asyncio.wait_for(started, DEADLINE_S)
        yield conn
