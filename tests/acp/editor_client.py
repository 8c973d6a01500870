"""An ACP client that is also an editor, for tests: it offers ``fs`` and ``terminal``, holds
buffers in memory that differ from the disk (as unsaved editor buffers do), writes edits into
them and never to disk, and runs ``terminal/create`` commands as real processes. Every ``fs/*``
and ``terminal/*`` request is recorded."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp import RequestError
from acp.schema import (
    ClientCapabilities,
    CreateTerminalResponse,
    EnvVariable,
    FileSystemCapabilities,
    KillTerminalResponse,
    ReadTextFileResponse,
    ReleaseTerminalResponse,
    TerminalExitStatus,
    TerminalOutputResponse,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)

from tests.acp.acp_client import RecordingClient
from tests.helpers import clean_env

EDITOR = ClientCapabilities(
    fs=FileSystemCapabilities(read_text_file=True, write_text_file=True), terminal=True
)


@dataclass
class _Run:
    process: asyncio.subprocess.Process
    output: bytes = b""
    reader: asyncio.Task[None] | None = None


@dataclass
class EditorClient(RecordingClient):
    buffers: dict[str, str] = field(default_factory=dict)  # absolute path -> unsaved text
    requests: list[tuple[str, str]] = field(default_factory=list)  # (method, path or terminal)
    refuse_writes: str = ""  # a message: fs/write_text_file answers with this error
    runs: dict[str, _Run] = field(default_factory=dict)

    async def read_text_file(self, path: str, session_id: str, **_: Any) -> ReadTextFileResponse:
        self.requests.append(("fs/read_text_file", path))
        if path in self.buffers:
            return ReadTextFileResponse(content=self.buffers[path])
        return ReadTextFileResponse(content=Path(path).read_text(encoding="utf-8"))

    async def write_text_file(
        self, content: str, path: str, session_id: str, **_: Any
    ) -> WriteTextFileResponse:
        self.requests.append(("fs/write_text_file", path))
        if self.refuse_writes:
            raise RequestError(-32000, self.refuse_writes)
        self.buffers[path] = content
        return WriteTextFileResponse()

    async def create_terminal(
        self,
        command: str,
        session_id: str,
        args: list[str] | None = None,
        env: list[EnvVariable] | None = None,
        cwd: str | None = None,
        **_: Any,
    ) -> CreateTerminalResponse:
        self.requests.append(("terminal/create", command))
        extra = {v.name: v.value for v in env or []}
        process = await asyncio.create_subprocess_exec(
            command,
            *(args or []),
            cwd=cwd,
            env={**clean_env({}), **extra},
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,  # killed as a group, as an editor's terminal would
        )
        terminal_id = f"term-{len(self.runs) + 1}"
        run = _Run(process)
        run.reader = asyncio.create_task(self._collect(run))
        self.runs[terminal_id] = run
        return CreateTerminalResponse(terminal_id=terminal_id)

    @staticmethod
    async def _collect(run: _Run) -> None:
        assert run.process.stdout is not None
        while chunk := await run.process.stdout.read(65536):
            run.output += chunk

    async def wait_for_terminal_exit(
        self, session_id: str, terminal_id: str, **_: Any
    ) -> WaitForTerminalExitResponse:
        self.requests.append(("terminal/wait_for_exit", terminal_id))
        run = self.runs[terminal_id]
        code = await run.process.wait()
        assert run.reader is not None
        await run.reader
        return WaitForTerminalExitResponse(exit_code=code)

    async def terminal_output(
        self, session_id: str, terminal_id: str, **_: Any
    ) -> TerminalOutputResponse:
        self.requests.append(("terminal/output", terminal_id))
        run = self.runs[terminal_id]
        code = run.process.returncode
        status = TerminalExitStatus(exit_code=code) if code is not None and code >= 0 else None
        return TerminalOutputResponse(
            output=run.output.decode(), truncated=False, exit_status=status
        )

    async def kill_terminal(
        self, session_id: str, terminal_id: str, **_: Any
    ) -> KillTerminalResponse:
        self.requests.append(("terminal/kill", terminal_id))
        _kill_group(self.runs[terminal_id].process)
        return KillTerminalResponse()

    async def release_terminal(
        self, session_id: str, terminal_id: str, **_: Any
    ) -> ReleaseTerminalResponse:
        run = self.runs[terminal_id]
        if run.process.returncode is None:
            _kill_group(run.process)
        await run.process.wait()
        assert run.reader is not None
        await run.reader  # the pipe closed: nothing of the process is left behind
        self.requests.append(("terminal/release", terminal_id))  # recorded once it is done
        return ReleaseTerminalResponse()

    def methods(self) -> list[str]:
        return [method for method, _ in self.requests]


def _kill_group(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
