"""The session's language servers: started on the first edit of a file they serve, kept for the
session, stopped on exit; what an edit added to a file's problems, and a file's problems now.

A server that cannot start (not installed, exits, no answer within ``start_s``) is skipped for the
session with one notice (``take_notices``), never an error per edit. A file the agent edits for the
first time is opened with its old text first, so the problems it already had are not reported as
the edit's.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui import safe_read
from agent_tui.key_env import child_environ
from agent_tui.lsp.config import LspError, LspSettings, ServerSpec
from agent_tui.lsp.report import Problem, added, problems_from, render

if TYPE_CHECKING:  # pygls and lsprotocol are imported when a first server starts
    from agent_tui.lsp.client import LspServer

logger = logging.getLogger(__name__)
MAX_FILE_BYTES = 2_000_000  # a bigger file is not sent to a server
MAX_FILES = 10  # files of one edit that are checked
_LANGUAGES = {
    ".py": "python",
    ".pyi": "python",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "typescriptreact",
    ".js": "javascript",
    ".jsx": "javascriptreact",
}


def _read(path: Path) -> str | None:
    try:
        return safe_read.read_text(path, MAX_FILE_BYTES)
    except OSError:
        return None


class LspManager:
    """The language servers of one session (``settings.servers``), started lazily."""

    def __init__(self, settings: LspSettings, workspace: Path) -> None:
        self.settings = settings
        self.workspace = workspace.resolve()
        self.servers: dict[str, LspServer] = {}
        self._failed: dict[str, str] = {}  # name -> why it is skipped
        self._locks: dict[str, asyncio.Lock] = {}
        self._notices: list[str] = []
        self._known: dict[Path, list[Problem]] = {}  # what an edit last saw, per file

    def spec_for(self, path: Path) -> ServerSpec | None:
        """The first server whose patterns match the file (None: no server for it)."""
        relative = self._relative(path)
        return next((s for s in self.settings.servers if s.serves(relative)), None)

    def _relative(self, path: Path) -> str:
        try:
            return path.relative_to(self.workspace).as_posix()
        except ValueError:
            return path.as_posix()

    def take_notices(self) -> list[str]:
        """Notices not yet shown (a server skipped), each given once."""
        taken, self._notices = self._notices, []
        return taken

    async def _server(self, spec: ServerSpec) -> LspServer | None:
        """The running server for ``spec``, started on first use; None when it is skipped."""
        lock = self._locks.setdefault(spec.name, asyncio.Lock())
        async with lock:
            running = self.servers.get(spec.name)
            if running is not None and running.alive:
                return running
            if spec.name in self._failed:
                return None
            if running is not None:  # it exited: not started again for every edit
                await running.stop()
                self._skip(spec, "it exited")
                return None
            try:
                server = await self._start(spec)
            except LspError as exc:
                self._skip(spec, str(exc))
                return None
            self.servers[spec.name] = server
            return server

    async def _start(self, spec: ServerSpec) -> LspServer:
        from agent_tui.lsp.client import LspServer

        argv = list(spec.command)
        if spec.sandbox:
            argv = self._sandboxed(argv)
        server = LspServer(spec.name, self.workspace)
        await server.start(argv, child_environ(), self.settings.start_s)
        return server

    def _sandboxed(self, argv: list[str]) -> list[str]:
        from agent_tui.sandbox.runtime import current

        sandbox = current()
        if sandbox is None or not sandbox.active:
            raise LspError("its config says sandbox = true, and the sandbox is off here")
        wrapped: list[str] = sandbox.wrap_server(argv, self.workspace)
        return wrapped

    def _skip(self, spec: ServerSpec, reason: str) -> None:
        self._failed[spec.name] = reason
        self.servers.pop(spec.name, None)
        self._notices.append(
            f"Language server {spec.name} skipped for this session: {reason}. "
            "Edits get no diagnostics from it."
        )

    def before_edit(self, paths: Iterable[Path]) -> dict[Path, str | None]:
        """The text before an edit of each file a server serves that is not open in one yet."""
        old: dict[Path, str | None] = {}
        for path in list(paths)[:MAX_FILES]:
            spec = self.spec_for(path)
            server = self.servers.get(spec.name) if spec is not None else None
            if spec is None or (server is not None and path.as_uri() in server.versions):
                continue
            old[path] = _read(path) if path.is_file() else None
        return old

    async def after_edit(
        self, paths: Iterable[Path], before: dict[Path, str | None]
    ) -> tuple[str, int]:
        """What the edit of ``paths`` added to their errors and warnings: lines for the model
        ("" when nothing new, or no server serves them) and how many problems they are."""
        wanted = [p for p in list(paths)[:MAX_FILES] if self.spec_for(p) is not None]
        if not wanted:
            return "", 0
        outcomes = await asyncio.gather(*(self._check(p, before.get(p)) for p in wanted))
        new = [problem for found, _ in outcomes for problem in found]
        late = sorted({name for _, name in outcomes if name})
        parts = []
        if new:
            parts.append("The language server reports new problems:\n" + render(new))
        if late:
            names = ", ".join(late)
            parts.append(
                f"No diagnostics from {names} in time; call `diagnostics` later to see them."
            )
        return "\n".join(parts), len(new)

    async def _check(self, path: Path, old: str | None) -> tuple[list[Problem], str]:
        """One edited file: its new problems, and the server's name if it did not answer."""
        spec = self.spec_for(path)
        server = await self._server(spec) if spec is not None else None
        if server is None:
            return [], ""
        uri = path.as_uri()
        text = _read(path) if path.is_file() else None
        if text is None:
            server.close(uri)
            self._known.pop(path, None)
            return [], ""
        try:
            if uri not in server.versions and old is not None:
                self._known[path] = await self._send(server, path, old)
            before = self._known.get(path, [])
            after = await self._send(server, path, text)
        except TimeoutError:
            return [], server.name
        self._known[path] = after
        return added(before, after), ""

    async def _send(self, server: LspServer, path: Path, text: str) -> list[Problem]:
        uri = path.as_uri()
        # A file's first check may load the whole environment (basedpyright reads the typeshed
        # builtins): it gets as long as starting the server; a change gets ``wait_s``.
        first = uri not in server.versions
        timeout = self.settings.start_s if first else self.settings.wait_s
        version = server.send_text(uri, _LANGUAGES.get(path.suffix, path.suffix[1:]), text)
        found = await server.wait_for(uri, version, timeout)
        return problems_from(self._relative(path), found)

    async def problems(self, path: Path | None) -> list[Problem]:
        """A file's errors and warnings now (opened in its server if it was not), or those of
        every file open in one (``path`` None).

        Raises:
            LspError: no server serves the file, it is skipped, or it did not answer in time.
        """
        if path is None:
            return [p for path in sorted(self._known) for p in self._now(path)]
        spec = self.spec_for(path)
        if spec is None:
            raise LspError("no language server is configured for this file")
        server = await self._server(spec)
        if server is None:
            raise LspError(f"the language server {spec.name} is skipped in this session")
        if path.as_uri() not in server.versions:
            text = _read(path)
            if text is None:
                raise LspError("the file cannot be read")
            try:
                self._known[path] = await self._send(server, path, text)
            except TimeoutError as exc:
                raise LspError(f"{spec.name} did not answer in time") from exc
        return self._now(path)

    def _now(self, path: Path) -> list[Problem]:
        """The file's problems as last published (a server may publish again on its own)."""
        spec = self.spec_for(path)
        server = self.servers.get(spec.name) if spec is not None else None
        published = server.published.get(path.as_uri()) if server is not None else None
        if published is not None:
            return problems_from(self._relative(path), published[1])
        return self._known.get(path, [])

    def state(self, spec: ServerSpec) -> str:
        """``running``, ``skipped: why`` or ``starts on the first edit`` (``/help``)."""
        if spec.name in self._failed:
            return f"skipped: {self._failed[spec.name]}"
        server = self.servers.get(spec.name)
        return "running" if server is not None and server.alive else "starts on the first edit"

    def has_open_files(self) -> bool:
        return bool(self._known)

    async def aclose(self) -> None:
        """Stop every server (shutdown, exit, then its process group killed)."""
        servers, self.servers = list(self.servers.values()), {}
        await asyncio.gather(*(server.stop() for server in servers))
