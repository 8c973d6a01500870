"""``Front``: the one object a front end holds for a session.

It wraps the ``Agent`` the CLI built and offers what a front end needs besides the events:
``submit`` (the front door itself, ``agent.front.submit``), the session's lifecycle, read-only
views, and the few changes a user makes outside a prompt. The parts are grouped by subject:
``tools``, ``completions``, ``mcp``, ``trust``, ``grants``, ``terminals``, ``sessions``,
``changes`` (for /undo and /rewind) and ``status_line`` (``[ui] status_line``).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui import events as ev
from agent_tui.agent.front import UserInput, startup_notices, submit
from agent_tui.agent.totals import SessionTotals
from agent_tui.conversation import Message
from agent_tui.front.changes import Changes
from agent_tui.front.grants import Grants, Terminals
from agent_tui.front.mcp import Mcp
from agent_tui.front.sessions import Sessions
from agent_tui.front.status_line import StatusLine
from agent_tui.front.tools import Completions, Tools
from agent_tui.front.trust import Trust
from agent_tui.front.views import SpendingView, StatusView, UiSettings
from agent_tui.modes import Mode

if TYPE_CHECKING:
    from agent_tui.agent.loop import Agent
    from agent_tui.agent.model_switch import ContextSize
    from agent_tui.approvals.types import CommandPart
    from agent_tui.config import ModelConfig
    from agent_tui.sessions.writer import SessionRecorder
    from agent_tui.tools.client_terminal import ClientTerminal
    from agent_tui.tools.file_access import ReadRemote, WriteRemote


@dataclass(frozen=True)
class SetAside:
    """A conversation ``/clear`` set aside: its messages and the session it is saved in (None
    when the agent saves none). Front ends hold it only to hand it back to ``undo_clear``."""

    messages: list[Message]
    session: SessionRecorder | None
    todo: tuple[ev.TodoItem, ...] = ()  # the model's todo list then
    todo_history: tuple[tuple[int, tuple[ev.TodoItem, ...]], ...] = ()  # for /rewind
    totals: SessionTotals | None = None  # what it had spent and changed (agent/totals.py)

    @property
    def session_id(self) -> str | None:
        return self.session.session_id if self.session is not None else None

    @property
    def saved_id(self) -> str | None:
        """The session's id once its file exists (it appears with the first turn)."""
        return _saved_id(self.session)


def _saved_id(recorder: SessionRecorder | None) -> str | None:
    return recorder.session_id if recorder is not None and recorder.writer.started else None


class Front:
    """The session as a front end sees it.

    Args:
        agent: the ``Agent`` the CLI (``build.py``) assembled; the front end never looks inside.
    """

    def __init__(self, agent: Agent) -> None:
        self._agent = agent
        self.tools = Tools(agent)
        self.completions = Completions(agent)
        self.mcp = Mcp(agent)
        self.trust = Trust(agent, self.mcp)
        self.grants = Grants(agent)
        self.terminals = Terminals(agent)
        self.sessions = Sessions(agent, self.grants)
        self.changes = Changes(agent)
        self.status_line = StatusLine(agent, self)  # [ui] status_line

    # ---- input and lifecycle --------------------------------------------------------------

    def submit(self, request: UserInput) -> AsyncGenerator[ev.Event, None]:
        """Run ``request`` (a prompt, ``/command``, ``!command``), yielding its events."""
        return submit(self._agent, request)

    @property
    def interactive(self) -> bool:
        """False under ``-p``: app-only commands are refused and ``!command`` is sent as text."""
        return self._agent.interactive

    def steer(self, text: str) -> None:
        """Send ``text`` to the running turn, after the current round's tool results."""
        self._agent.steer(text)

    def take_steering(self) -> list[str]:
        """Steering messages no round took (the turn ended first); clears them."""
        return self._agent.take_steering()

    def start(self) -> None:
        """Start background services (MCP servers); call inside the running event loop."""
        self._agent.start()

    async def aclose(self) -> None:
        """Stop MCP servers, background terminals, the sandbox's network, the provider."""
        await self._agent.aclose()

    def use_editor(
        self,
        read: ReadRemote | None = None,
        write: WriteRemote | None = None,
        terminal: ClientTerminal | None = None,
    ) -> None:
        """Let the file tools read (``read``) and write (``write``) through the user's editor,
        and ``run_in_terminal`` run commands in its ``terminal`` when they would run outside the
        sandbox anyway (``tools/terminal_client.py``). Each left None: done here, as before."""
        from agent_tui.tools.file_access import EditorFiles

        session = self._agent.deps.session
        if read is not None or write is not None:
            session.files = EditorFiles(self.workspace, read, write, session.extra_roots)
        session.terminal = terminal

    def startup_notices(self) -> list[str]:
        """What to show as the front end starts (see ``agent.front.startup_notices``)."""
        return startup_notices(self._agent)

    def warnings(self) -> list[str]:
        """What to tell the user once at start: --yolo, a sandbox that cannot run, the folder's
        settings ignored because it is not trusted."""
        return self._agent.deps.approvals.warnings()

    @staticmethod
    def state_notices() -> list[str]:
        """Damaged state files moved aside since the last call, one line each."""
        from agent_tui.state_files import take_notices

        return take_notices()

    # ---- what the front end shows -----------------------------------------------------------

    @property
    def workspace(self) -> Path:
        return Path(self._agent.deps.workspace)

    @property
    def extra_roots(self) -> tuple[Path, ...]:
        """The folders the tools may use besides the workspace (``--add-dir``, ``/add-dir``)."""
        return tuple(self._agent.deps.session.extra_roots)

    def add_root(self, path: str) -> Path:
        """Let the tools use another folder as the workspace for this session (``/add-dir``,
        ACP's ``additionalDirectories``): same approvals, protected paths and sandbox.

        Raises:
            UsageError: the folder cannot be an extra root (sandbox/extra_roots.py says which).
        """
        from agent_tui.commands.roots_cmds import add_extra_root

        full = add_extra_root(self._agent.deps, path)
        self._agent.record()  # saved with the session (once its file exists)
        return full

    def settings(self) -> UiSettings:
        config = self._agent.deps.config
        return UiSettings(
            config.section("ui", "theme"),
            config.section("ui", "notify"),
            keys=config.section("ui", "keys"),
            vim=bool(config.section("ui", "vim")),
        )

    def status(self) -> StatusView:
        """The approval mode's word (plan, accept edits, yolo, auto, ask) and the sandbox's."""
        sandbox = self._agent.deps.sandbox
        word = self._agent.deps.approvals.mode_word()
        return StatusView(word, "" if sandbox is None else sandbox.label())

    def spending(self) -> SpendingView:
        """The session's tokens and money so far, its earlier runs' included (the status bar's
        figures after a resume or ``/clear``)."""
        spent = self._agent.totals.spent
        usage = spent.usage
        money = spent.usd() if usage.input_tokens or usage.output_tokens else None
        return SpendingView(usage.input_tokens, usage.output_tokens, money)

    def approval_details(
        self, asked: ev.ApprovalRequested
    ) -> tuple[dict[str, Any] | None, list[CommandPart] | None]:
        """For an approval question: the tool's input schema (to check an edit) and, for a
        command line, which of its parts a rule or grant already allows (None: not known)."""
        deps = self._agent.deps
        if asked.name not in deps.tools:
            return None, None
        manifest = deps.tools.manifest(asked.name)
        parts = deps.approvals.command_parts(manifest, asked.input, asked.prepared)
        return manifest.input_schema, parts

    # ---- modes ------------------------------------------------------------------------------

    @property
    def mode(self) -> Mode:
        return self._agent.deps.approvals.modes.current

    @property
    def mode_before_plan(self) -> Mode:
        """The mode plan mode was entered from (offered when a plan is accepted)."""
        return self._agent.deps.approvals.modes.before_plan

    def cycle_mode(self) -> Mode:
        """The next mode; it applies from the next tool call, even mid-turn."""
        return self._agent.deps.approvals.modes.cycle()

    def leave_plan(self, mode: Mode) -> None:
        self._agent.deps.approvals.modes.leave_plan(mode)

    def set_mode(self, mode: Mode) -> None:
        """Switch to ``mode`` (an editor's mode picker); it applies from the next tool call."""
        self._agent.deps.approvals.modes.set(mode)

    # ---- the model --------------------------------------------------------------------------

    @property
    def model(self) -> ModelConfig:
        return self._agent.model

    def endpoint(self) -> str:
        """The model's ``host[:port]`` when it is not the provider's own API, else ""."""
        from agent_tui.config import endpoint_host

        return endpoint_host(self._agent.model) or ""

    def model_choices(self) -> dict[str, ModelConfig]:
        """What ``/model`` offers by alias: the model the session started with, then
        ``[models.*]``."""
        from agent_tui.config import model_choices

        return model_choices(self._agent.deps.config)

    def resolve_model(self, name: str) -> tuple[str, ModelConfig]:
        """``(label, model)`` for ``/model NAME``: an alias's model, or ``NAME`` on the running
        provider (label "").

        Raises:
            UsageError: not one word of printable characters.
        """
        from agent_tui.agent.model_switch import resolve_model

        return resolve_model(self._agent, name)

    async def served_models(self) -> list[str] | None:
        """The model names the running provider lists (None: it lists none, or did not answer)."""
        from agent_tui.providers.model_list import list_models

        return await list_models(self._agent.model)

    async def switch_model(self, model: ModelConfig) -> ContextSize:
        """Use ``model`` from the next request on; returns the window the meter measures against.

        Raises:
            AgentError: its provider cannot be created; the model stays as it was.
        """
        from agent_tui.agent.model_switch import context_size
        from agent_tui.providers import make_provider

        await self._agent.set_model(model, make_provider(model))
        return await context_size(self._agent)

    # ---- the conversation ---------------------------------------------------------------------

    @property
    def messages(self) -> list[Message]:
        """A copy of the conversation's messages (messages themselves are immutable)."""
        return self._agent.conversation.checkpoint()

    def todo(self) -> tuple[ev.TodoItem, ...]:
        """The model's todo list as it last sent it (restored with a resumed session)."""
        from agent_tui.tools.todo import current

        return current(self._agent.deps.session)

    @property
    def last_prompt_index(self) -> int | None:
        """The message index of the last turn's prompt (for /rewind)."""
        return self._agent.last_prompt_index

    def clear(self) -> SetAside:
        """Start a new conversation (``/clear``, ``/new``); grants and tools stay.

        A conversation with messages stays a session of its own (its file as it was, in
        ``--resume``); the new one gets a new session, whose file appears with its first turn.
        Returns what was set aside, for ``undo_clear``.
        """
        from agent_tui.agent import resume

        agent = self._agent
        aside = self._aside()
        agent.reset()
        if aside.messages and agent.recorder is not None:
            resume.start_new(agent, resume.store_for(agent))
            agent.totals = SessionTotals()  # a new session: its spending and edits start at 0
        return aside

    def saved_session_id(self) -> str | None:
        """This conversation's session id once its file exists (None before the first turn)."""
        return _saved_id(self._agent.recorder)

    def undo_clear(self, aside: SetAside) -> SetAside:
        """Swap ``aside`` (from ``clear``) back in: its messages, and its session's file for what
        follows; returns the conversation it replaced, so undoing is itself undoable."""
        from agent_tui.agent import resume
        from agent_tui.tools.todo import restore_todo

        agent = self._agent
        current = self._aside()
        if aside.session is not None:
            resume.switch_recorder(agent, aside.session)
        if aside.totals is not None:
            agent.totals = aside.totals
        agent.conversation.messages[:] = aside.messages
        restore_todo(agent.deps.session, aside.todo, aside.todo_history)
        return current

    def _aside(self) -> SetAside:
        """The conversation as it is now, with its session and todo list, to set aside."""
        from agent_tui.tools.todo import changes

        agent = self._agent
        messages = list(agent.conversation.messages)
        history = changes(agent.deps.session)
        return SetAside(messages, agent.recorder, self.todo(), history, agent.totals)

    def rewind(self, index: int) -> None:
        """Drop the conversation from message ``index`` on (``/rewind``), telling listeners."""
        self._agent.publish(self._agent.rewind_conversation(index))

    def publish(self, event: ev.Event) -> None:
        """Report an event that happened outside a turn (an undo), as a turn's would be."""
        self._agent.publish(event)

    def record(self) -> None:
        """Save what changed outside a turn: the session file follows at once."""
        self._agent.record()
