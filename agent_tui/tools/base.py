"""The tool contract (DESIGN §4): a manifest + a class with prepare() and invoke().

A tool never prints; it returns a ToolResult or raises ToolError with a message that tells the model
what to do next. Anything else escaping invoke() is a bug (the loop still reports it to the model).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

from agent_tui.conversation import ImageBlock
from agent_tui.errors import ToolError
from agent_tui.tools.client_terminal import ClientTerminal
from agent_tui.tools.file_access import FileAccess, LocalFiles
from agent_tui.tools.workspace_paths import require_inside

Kind = Literal["read", "edit", "execute", "fetch"]


@dataclass(frozen=True)
class Manifest:
    """The static description of a tool: listed, picked and sent to the model without its code."""

    name: str
    display_name: str
    tool_reference_name: str
    user_description: str
    model_description: str
    input_schema: dict[str, Any]
    kind: Kind
    tags: tuple[str, ...] = ()
    read_only_hint: bool = False
    source: str = "built-in"  # "built-in", "mcp:<server>", "user"
    title: str = ""

    @property
    def read_only(self) -> bool:
        return self.kind == "read" or self.read_only_hint

    @classmethod
    def from_json(cls, data: dict[str, Any], *, source: str = "built-in") -> Manifest:
        return cls(
            name=data["name"],
            display_name=data.get("displayName", data["name"]),
            tool_reference_name=data.get("toolReferenceName", data["name"]),
            user_description=data.get("userDescription", ""),
            model_description=data["modelDescription"],
            input_schema=data["inputSchema"],
            kind=data["kind"],
            tags=tuple(data.get("tags", ())),
            read_only_hint=bool(data.get("annotations", {}).get("readOnlyHint", False)),
            source=source,
            title=data.get("title", ""),
        )


@dataclass(frozen=True)
class Confirmation:
    """What the approval modal shows: a title and a Markdown message (diff, command, URLs)."""

    title: str
    message: str


@dataclass(frozen=True)
class Prepared:
    """What a tool call will do, worked out before it runs: the lines shown, paths and URLs it
    touches."""

    invocation_message: str  # "Reading src/app.py"
    past_tense_message: str  # "Read src/app.py, lines 1–120"
    confirmation: Confirmation | None = None
    # Paths the call will touch and URLs it will fetch, for the approval rules (resolved, absolute).
    paths: tuple[Path, ...] = ()
    urls: tuple[str, ...] = ()
    # The call would leave every file exactly as it is (e.g. create_file with the file's current
    # content): the approval engine runs it without asking, and invoke() writes nothing.
    changes_nothing: bool = False


@dataclass(frozen=True)
class ToolResult:
    """What goes back to the model (``content``) and what the UI may show besides (``display``)."""

    content: str
    is_error: bool = False
    display: str | None = None  # e.g. a diff for an edit card; None = show content
    data: dict[str, Any] = field(
        default_factory=dict
    )  # structured extras (terminal_id, exit_code, log path)
    images: tuple[ImageBlock, ...] = ()  # images for the model (read_file of a PNG, MCP images)


@dataclass
class FileStamp:
    """What the agent last saw of a file: to refuse clobbering a file changed on disk since."""

    mtime_ns: int
    size: int


@dataclass
class SessionState:
    """State the tools share within one session (not persisted)."""

    file_stamps: dict[Path, FileStamp] = field(default_factory=dict)
    cwd: Path | None = None  # run_in_terminal's working directory; a `cd` persists between calls
    last_command: dict[str, Any] | None = (
        None  # {command, output, exit_code} for #terminalLastCommand
    )
    extras: dict[str, Any] = field(default_factory=dict)  # per-tool state (terminal manager, ...)
    # Folders the tools may use as the workspace (`--add-dir`, `/add-dir`), resolved; the approval
    # engine and the sandbox share this list (build.py), so `/add-dir` reaches all three.
    extra_roots: list[Path] = field(default_factory=list)
    # Where file text is read and written: the disk, or the ACP client's editor (file_access.py).
    files: FileAccess = field(default_factory=LocalFiles)
    # The ACP client's terminal, for commands that would run outside the sandbox anyway.
    terminal: ClientTerminal | None = None

    def remember(self, path: Path) -> None:
        st = path.stat()
        self.file_stamps[path] = FileStamp(st.st_mtime_ns, st.st_size)

    def changed_since_seen(self, path: Path) -> bool | None:
        """None: never seen; False: unchanged; True: changed on disk since the agent saw it."""
        stamp = self.file_stamps.get(path)
        if stamp is None:
            return None
        st = path.stat()
        return (st.st_mtime_ns, st.st_size) != (stamp.mtime_ns, stamp.size)


@dataclass
class ToolContext:
    """What a tool may use while it runs."""

    workspace: Path
    session: SessionState
    config: Any = None  # agent_tui.config.Config
    # Live output for the UI (terminal tail): called with text chunks; never affects the result.
    on_output: Callable[[str], None] | None = None
    # Progress for the UI (progress, total or None, message); never affects the result.
    on_progress: Callable[[float, float | None, str], None] | None = None
    # For run_agent: the running Agent, this call's id, and where a sub-run's events go (the
    # parent loop forwards them into its stream). None outside a turn and inside a sub-agent.
    agent: Any = None
    call_id: str = ""
    on_event: Callable[[Any], None] | None = None
    # The session's sandbox (agent_tui.sandbox.runtime.Sandbox) and this run's exceptions to it
    # (agent_tui.sandbox.escalate.Escalation: run outside, or with domains allowed once).
    sandbox: Any = None
    sandbox_exception: Any = None

    def resolve(self, path: str) -> Path:
        """Resolve a workspace-relative or absolute path, refusing anything outside the workspace
        and its extra roots (``--add-dir``).

        Raises:
            ToolError: the path is empty or resolves (via ``..``, an absolute path or a symlink)
                outside the workspace.
        """
        if not isinstance(path, str) or not path.strip():
            raise ToolError("`path` is empty: give a path relative to the workspace root.")
        return require_inside(self.workspace, path, self.session.extra_roots)

    def relative(self, path: Path) -> str:
        try:
            return path.relative_to(self.workspace.resolve()).as_posix() or "."
        except ValueError:
            return str(path)


class Tool(Protocol):
    manifest: Manifest

    def prepare(self, input: dict[str, Any], ctx: ToolContext) -> Prepared: ...

    async def invoke(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult: ...


@runtime_checkable
class PreparesAsync(Protocol):
    """A tool that plans from files' text: it reads them through ``ctx.session.files`` first
    (an editor answers asynchronously), so the executor calls this instead of ``prepare``."""

    async def prepare_async(self, input: dict[str, Any], ctx: ToolContext) -> Prepared: ...


async def prepare_call(tool: Tool, input: dict[str, Any], ctx: ToolContext) -> Prepared:
    """What ``tool`` would do with ``input``: ``prepare_async`` where it has one."""
    if isinstance(tool, PreparesAsync):
        return await tool.prepare_async(input, ctx)
    return tool.prepare(input, ctx)


class BaseTool:
    """Convenience base: holds the manifest. Subclasses set ``name`` and implement the two methods."""

    name: str = ""

    def __init__(self, manifest: Manifest) -> None:
        self.manifest = manifest

    def prepare(self, input: dict[str, Any], ctx: ToolContext) -> Prepared:
        raise NotImplementedError

    async def invoke(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        raise NotImplementedError
