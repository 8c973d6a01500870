"""One running language server: started, spoken to (pygls's ``LanguageClient``), stopped.

pygls's own ``start_io`` pipes the server's stderr and never reads it (a chatty server would
block once the pipe fills) and leaves the process in our group; ``_spawn`` starts it the same way
but with stderr discarded and in a session of its own, so stopping it kills every process it
started (``basedpyright-langserver`` is a Python launcher around node).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
from pathlib import Path
from urllib.parse import unquote

from lsprotocol import types
from pygls.io_ import run_async
from pygls.lsp.client import LanguageClient

from agent_tui import __version__
from agent_tui.lsp.config import LspError
from agent_tui.subreaper import spawn_own

logger = logging.getLogger(__name__)
STOP_S = 2.0  # shutdown + exit, then the process group is killed
MAX_PER_FILE = 1000  # diagnostics kept of one publish (the model sees 20 at most)


_IGNORED = (
    types.WINDOW_LOG_MESSAGE,
    types.WINDOW_SHOW_MESSAGE,
    types.TELEMETRY_EVENT,
    types.PROGRESS,
)


def _ignore(params: object) -> None:
    """What a server says besides diagnostics (its log, progress) is not shown."""


class LspServer:
    """A language server process and the diagnostics it last published, per document."""

    def __init__(self, name: str, workspace: Path) -> None:
        self.name = name
        self.workspace = workspace
        self.client = LanguageClient("agent-tui", __version__)
        self.published: dict[str, tuple[int | None, list[types.Diagnostic]]] = {}
        self.versions: dict[str, int] = {}  # uri -> the version last sent (open documents)
        self._ours: dict[str, str] = {}  # an open document's URI unescaped -> as we sent it
        self._changed = asyncio.Condition()

        async def on_publish(params: types.PublishDiagnosticsParams) -> None:
            # A server may spell a URI its own way (%-escapes): ours is found unescaped.
            uri = self._ours.get(unquote(params.uri))
            if uri is None:
                return  # only documents we opened: a server cannot fill memory with others
            kept = list(params.diagnostics[:MAX_PER_FILE])
            async with self._changed:
                self.published[uri] = (params.version, kept)
                self._changed.notify_all()

        # A plain function: pygls marks the handler it is given with attributes.
        self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)(on_publish)
        for method in _IGNORED:  # else pygls logs a warning for each one a server sends
            self.client.feature(method)(_ignore)

    @property
    def pid(self) -> int | None:
        server = self.client._server
        return server.pid if server is not None else None

    async def start(self, argv: list[str], env: dict[str, str], timeout_s: float) -> None:
        """Start the process and finish the ``initialize`` handshake within ``timeout_s``.

        Raises:
            LspError: the program is missing, exits, or does not answer in time.
        """
        try:
            await self._spawn(argv, env)
            result = await asyncio.wait_for(
                self.client.initialize_async(self._initialize_params()), timeout_s
            )
        except FileNotFoundError as exc:
            raise LspError(f"{argv[0]} is not installed") from exc
        except (OSError, RuntimeError, TimeoutError) as exc:
            await self.stop()
            reason = "did not answer in time" if isinstance(exc, TimeoutError) else str(exc)
            raise LspError(reason or type(exc).__name__) from exc
        logger.debug("lsp %s: %s", self.name, result.server_info)
        self.client.initialized(types.InitializedParams())

    async def _spawn(self, argv: list[str], env: dict[str, str]) -> None:
        client = self.client
        process = await spawn_own(
            asyncio.create_subprocess_exec,
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            env=env,
            cwd=str(self.workspace),
            start_new_session=True,
        )
        assert process.stdin is not None and process.stdout is not None
        client.protocol.set_writer(process.stdin)
        reader = run_async(
            stop_event=client._stop_event,
            reader=process.stdout,
            protocol=client.protocol,
            logger=logger,
            error_handler=client.report_server_error,
        )
        client._server = process
        client._async_tasks.extend(
            [asyncio.create_task(reader), asyncio.create_task(client._server_exit())]  # type: ignore[no-untyped-call]
        )

    def _initialize_params(self) -> types.InitializeParams:
        root = self.workspace.resolve()
        capabilities = types.ClientCapabilities(
            text_document=types.TextDocumentClientCapabilities(
                publish_diagnostics=types.PublishDiagnosticsClientCapabilities(
                    version_support=True
                ),
                synchronization=types.TextDocumentSyncClientCapabilities(),
            ),
        )
        return types.InitializeParams(
            capabilities=capabilities,
            process_id=os.getpid(),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(root.as_uri(), root.name)],
            client_info=types.ClientInfo("agent-tui", __version__),
        )

    @property
    def alive(self) -> bool:
        server = self.client._server
        return server is not None and server.returncode is None and not self.client.stopped

    def send_text(self, uri: str, language: str, text: str) -> int:
        """Open the document, or send its whole new text; returns the version sent."""
        version = self.versions.get(uri, 0) + 1
        if version == 1:
            item = types.TextDocumentItem(uri, language, version, text)
            self.client.text_document_did_open(types.DidOpenTextDocumentParams(item))
        else:
            self.client.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    types.VersionedTextDocumentIdentifier(version, uri),
                    [types.TextDocumentContentChangeWholeDocument(text)],
                )
            )
        self.versions[uri] = version
        self._ours[unquote(uri)] = uri
        self.published.pop(uri, None)  # what comes next is about this version
        return version

    def close(self, uri: str) -> None:
        """Close a document (deleted by an edit)."""
        self._ours.pop(unquote(uri), None)
        if self.versions.pop(uri, None) is not None:
            ident = types.TextDocumentIdentifier(uri)
            self.client.text_document_did_close(types.DidCloseTextDocumentParams(ident))
        self.published.pop(uri, None)

    async def wait_for(self, uri: str, version: int, timeout_s: float) -> list[types.Diagnostic]:
        """The diagnostics published for ``version`` of the document (a server that does not
        say which version: the first published after it was sent).

        Raises:
            TimeoutError: none came within ``timeout_s``.
        """

        def arrived() -> bool:
            got = self.published.get(uri)
            return got is not None and (got[0] is None or got[0] >= version)

        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(arrived), timeout_s)
        return self.published[uri][1]

    async def stop(self) -> None:
        """``shutdown`` and ``exit`` within ``STOP_S``; then its process group is killed."""
        client, process = self.client, self.client._server
        if process is None:
            return
        if self.alive:
            with contextlib.suppress(Exception):  # a server that fails here is killed below
                await asyncio.wait_for(client.shutdown_async(None), STOP_S)
                client.exit(None)
                await asyncio.wait_for(process.wait(), STOP_S)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)  # its own session: the launcher's node too
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(process.wait(), STOP_S)
        client._stop_event.set()
        for task in client._async_tasks:
            task.cancel()
        await asyncio.gather(*client._async_tasks, return_exceptions=True)
