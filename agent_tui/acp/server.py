"""The agent side of ACP: ``initialize``, sessions (new, load, modes), ``prompt``, ``cancel``;
``stdio.run_acp`` serves it on stdio.

A session's workspace is the ``cwd`` the client sends: the CLI's ``make_front`` builds an agent
there as ``agent-tui`` started in that folder would (its config, trust, grants, sandbox) and
attaches a new session, which ``--resume`` then lists. MCP servers the client passes start for that
session beside the configured ones.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.acp.handshake import initialize_result
from agent_tui.acp.session import AcpSession
from agent_tui.errors import AgentError
from agent_tui.modes import Mode
from agent_tui.text_safety import one_line

if TYPE_CHECKING:
    from acp.helpers import ContentBlock
    from acp.interfaces import Client
    from acp.schema import (
        AuthenticateResponse,
        InitializeResponse,
        ListSessionsResponse,
        LoadSessionResponse,
        NewSessionResponse,
        PromptResponse,
        SessionInfo,
        SetSessionModeResponse,
    )

    from agent_tui.front import Front
    from agent_tui.front.types import SessionInfo as SavedSession

logger = logging.getLogger(__name__)
# workspace, the config layer of the client's MCP servers -> a Front on a new session there.
MakeFront = Callable[[Path, dict[str, Any]], "Front"]


class AcpServer:
    """What ``acp.run_agent`` calls for each request of the client."""

    def __init__(self, make_front: MakeFront, capabilities: dict[str, Any] | None = None) -> None:
        self._make_front = make_front
        # The client's capabilities from its initialize (fs, terminal): what its sessions use.
        self._capabilities = capabilities or {}
        self._client: Client | None = None
        self.sessions: dict[str, AcpSession] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def on_connect(self, conn: Client) -> None:
        self._client = conn

    async def initialize(
        self, protocol_version: int, client_capabilities: Any = None, **_: Any
    ) -> InitializeResponse:
        """A client whose first line was not ``initialize`` (``handshake`` answers the usual one)."""
        from acp.schema import InitializeResponse

        if client_capabilities is not None:
            self._capabilities = client_capabilities.model_dump(by_alias=True, exclude_none=True)

        return InitializeResponse.model_validate(initialize_result(protocol_version))

    async def authenticate(self, method_id: str, **_: Any) -> AuthenticateResponse | None:
        from acp.schema import AuthenticateResponse

        return AuthenticateResponse()  # the key is read from the environment at session start

    async def new_session(
        self,
        cwd: str,
        mcp_servers: list[Any] | None = None,
        additional_directories: list[str] | None = None,
        **_: Any,
    ) -> NewSessionResponse:
        from acp.schema import NewSessionResponse

        session = self._open(cwd, mcp_servers, roots=additional_directories or ())
        self._later(session.announce())
        return NewSessionResponse(session_id=session.id, modes=session.modes())

    async def load_session(
        self,
        cwd: str,
        session_id: str,
        mcp_servers: list[Any] | None = None,
        additional_directories: list[str] | None = None,
        **_: Any,
    ) -> LoadSessionResponse | None:
        from acp import RequestError
        from acp.schema import LoadSessionResponse

        roots = additional_directories or ()
        session = self._open(cwd, mcp_servers, replacing=session_id, roots=roots)
        info = session.front.sessions.find(session_id)
        if info is None:
            await self._drop(session)
            raise RequestError.resource_not_found(session_id)
        try:
            loaded = session.front.sessions.switch_to(info)
        except (OSError, AgentError) as exc:
            await self._drop(session)
            raise RequestError.internal_error({"reason": str(exc)}) from None
        session.id = session_id
        self.sessions[session_id] = session
        await session.replay(loaded)  # before the answer, as the protocol asks
        self._later(session.announce(loaded.notices))
        return LoadSessionResponse(modes=session.modes())

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **_: Any
    ) -> ListSessionsResponse:
        """The saved sessions of ``cwd`` (none given: of every folder), newest first, titled by
        their first prompt; all in one page (the app keeps a bounded number)."""
        from acp import RequestError
        from acp.schema import ListSessionsResponse

        from agent_tui.front.sessions import saved_sessions

        if cursor is not None:  # no answer of ours has a next page
            raise RequestError.invalid_params({"cursor": "unknown cursor"})
        workspace = Path(cwd) if cwd is not None else None
        if workspace is not None and not workspace.is_absolute():
            raise RequestError.invalid_params({"cwd": "must be an absolute path"})
        listed = saved_sessions(workspace.resolve() if workspace is not None else None)
        return ListSessionsResponse(sessions=[_listed(info) for info in listed])

    async def set_session_mode(
        self, mode_id: str, session_id: str, **_: Any
    ) -> SetSessionModeResponse | None:
        from acp import RequestError
        from acp.schema import SetSessionModeResponse

        try:
            mode = Mode(mode_id)
        except ValueError:
            raise RequestError.invalid_params({"modeId": mode_id}) from None
        await self._session(session_id).set_mode(mode)
        return SetSessionModeResponse()

    async def prompt(self, prompt: list[ContentBlock], session_id: str, **_: Any) -> PromptResponse:
        return await self._session(session_id).prompt(prompt)

    async def cancel(self, session_id: str, **_: Any) -> None:
        session = self.sessions.get(session_id)
        if session is not None:
            session.cancel()

    async def aclose(self) -> None:
        for session in list(self.sessions.values()):
            await self._drop(session)

    # ---- helpers --------------------------------------------------------------------------------

    def _open(
        self,
        cwd: str,
        servers: list[Any] | None,
        replacing: str = "",
        roots: Iterable[str] = (),
    ) -> AcpSession:
        """A session on a new Front in ``cwd`` with the extra ``roots`` (absolute paths), started
        (its MCP servers begin connecting)."""
        from acp import RequestError

        from agent_tui.acp.mcp_servers import config_layer

        workspace = Path(cwd)
        if not workspace.is_absolute() or not workspace.is_dir():
            raise RequestError.invalid_params({"cwd": "must be an absolute path to a folder"})
        if replacing in self.sessions:  # loading a session this connection has open
            self._later(self._drop(self.sessions.pop(replacing)))
        assert self._client is not None
        try:
            front = self._make_front(workspace.resolve(), config_layer(servers or []))
        except AgentError as exc:  # no key, a broken config: the client shows the message
            raise RequestError.invalid_request({"reason": str(exc)}) from None
        try:
            _add_roots(front, roots)
        except RequestError:
            self._later(front.aclose())  # built, never started: let go of what it holds
            raise
        front.start()
        session = AcpSession(front, self._client)
        session.use_client(self._capabilities)
        self.sessions[session.id] = session
        return session

    def _session(self, session_id: str) -> AcpSession:
        from acp import RequestError

        session = self.sessions.get(session_id)
        if session is None:
            raise RequestError.invalid_params({"sessionId": "no such session"})
        return session

    async def _drop(self, session: AcpSession) -> None:
        session.cancel()
        self.sessions.pop(session.id, None)
        await session.front.aclose()

    def _later(self, work: Any) -> None:
        """Run ``work`` after this request's answer is sent (updates about a session the client
        does not know yet would be dropped)."""
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def _listed(info: SavedSession) -> SessionInfo:
    """A saved session as ``session/list`` shows it (its title is the first prompt)."""
    from acp.schema import SessionInfo

    updated = datetime.fromtimestamp(info.modified, tz=UTC)
    return SessionInfo(
        session_id=info.id,
        cwd=info.workspace,
        title=one_line(info.label) or None,
        updated_at=updated.isoformat(timespec="seconds").replace("+00:00", "Z"),
    )


def _add_roots(front: Front, roots: Iterable[str]) -> None:
    """The client's ``additionalDirectories``: each an absolute folder, checked as ``--add-dir``
    is (a protected location is refused; the session is then not opened)."""
    from acp import RequestError

    for root in roots:
        if not Path(root).is_absolute():
            raise RequestError.invalid_params({"additionalDirectories": f"{root} is not absolute"})
        try:
            front.add_root(root)
        except AgentError as exc:
            raise RequestError.invalid_params({"additionalDirectories": str(exc)}) from None
