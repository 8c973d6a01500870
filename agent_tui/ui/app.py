"""The Textual app: status bar, transcript, prompt, footer; one agent turn at a time.

``run_tui(agent)`` is the entry point the CLI calls. The app wraps the agent in the core's door
(``front.Front``) and uses the core only through it (ARCHITECTURE.md: The door). Every input goes
through ``Front.submit`` in an exclusive worker that consumes its events; questions
(approvals, round limit, a command's missing arguments) are answered from modal screens pushed
with ``push_screen_wait`` inside that worker, and a command's ``actions`` are carried out by type
(``do_action``). Esc cancels the worker; the agent keeps the conversation valid.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events, on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.filter import LineFilter
from textual.widgets import Footer
from textual.worker import Worker

from agent_tui import actions, code_cache
from agent_tui import events as ev
from agent_tui.conversation import ImageBlock
from agent_tui.front import Front, UserInput
from agent_tui.front.status_line import Measured
from agent_tui.front.types import Decision, SessionStart, format_keys
from agent_tui.plural import plural
from agent_tui.text_safety import one_line
from agent_tui.ui import resume_flow
from agent_tui.ui.clear_flow import ClearFlow
from agent_tui.ui.command_palette import SlashCommandsProvider
from agent_tui.ui.completion import Completer, list_root_files
from agent_tui.ui.control_filter import ControlCharFilter
from agent_tui.ui.input_editing import PreviousPromptOffer, edit_prompt_in_editor
from agent_tui.ui.key_guard import KeyHeld
from agent_tui.ui.keymap import Keymap, build_keymap
from agent_tui.ui.mode_flow import ModeFlow
from agent_tui.ui.notify import notify_if_away, turn_end_message
from agent_tui.ui.prompt_focus import focus_now, put_back, type_into_prompt
from agent_tui.ui.prompt_history import append_history, load_history
from agent_tui.ui.queue_flow import QueuedMessages, QueueFlow
from agent_tui.ui.quit_flow import QuitFlow
from agent_tui.ui.rewind_flow import RewindFlow
from agent_tui.ui.shell_command import ShellCard
from agent_tui.ui.widgets.composer import Composer
from agent_tui.ui.widgets.notes import ErrorNote, MarkdownNote, Note, UserMessage
from agent_tui.ui.widgets.plan_offer import PlanOffer
from agent_tui.ui.widgets.prompt_input import PromptInput
from agent_tui.ui.widgets.status_bar import StatusBar
from agent_tui.ui.widgets.status_line import CommandStatusLine
from agent_tui.ui.widgets.todo_panel import TodoPanel
from agent_tui.ui.widgets.transcript import Transcript

if TYPE_CHECKING:
    from textual.driver import Driver

    from agent_tui.early_screen.typed import Typed
    from agent_tui.front import Agent

logger = logging.getLogger(__name__)

APP_TITLE = "agent-tui"
THEMES = {"dark": "textual-dark", "light": "textual-light"}  # [ui] theme in .agentrc
DEFAULT_CLOCK: Callable[[], float] = time.monotonic


def short_path(path: Path) -> str:
    home = str(Path.home())
    text = str(path)
    return "~" + text[len(home) :] if text.startswith(home + os.sep) or text == home else text


class AgentApp(App[int]):
    """The chat app around one ``Agent``.

    Args:
        agent: the Agent the CLI built; the app reaches it only through ``self.front``.
        banner: a note shown first (e.g. the demo-model banner).
        workspace_label: the workspace as shown in the status bar (tests pin it).
        max_mounted: transcript entries kept as widgets; older ones are pruned to records.
    """

    CSS_PATH = "app.tcss"
    TITLE = APP_TITLE
    COMMANDS = App.COMMANDS | {SlashCommandsProvider}  # Ctrl+P lists the slash commands too
    _control_filter = ControlCharFilter()  # stateless: one for every app
    # The ids are [ui] keys' handles (ui/keymap.py: BINDING_IDS).
    BINDINGS = [
        Binding("escape", "cancel_turn", "Cancel turn", id="cancel_turn"),
        # When idle (check_action); README and /help list the Esc Esc offer.
        Binding("escape", "edit_previous", "Edit previous prompt", show=False, id="edit_previous"),
        Binding(
            "shift+tab", "cycle_mode", "Mode", priority=True, key_display="⇧⇥", id="cycle_mode"
        ),
        Binding("ctrl+t", "tools", "Tools", id="tools"),
        Binding("ctrl+g", "edit_in_editor", "Editor", show=False, id="edit_in_editor"),
        # A resumed transcript's rows.
        Binding("ctrl+o", "open_earlier", "Open earlier", show=False, id="open_earlier"),
        Binding("f1", "help", "Help", id="help"),
        Binding("f2", "toggle_todo", "Todo list", show=False, id="toggle_todo"),
        Binding("ctrl+c", "quit_twice", "Quit", priority=True, key_display="^C^C"),
        Binding("ctrl+q", "quit", "Quit", show=False, id="quit"),
    ]

    def __init__(
        self,
        agent: Agent,
        *,
        banner: str | None = None,
        workspace_label: str | None = None,
        max_mounted: int | None = None,
        session: SessionStart | None = None,
        driver_class: type[Driver] | None = None,
        typed_early: Typed | None = None,
    ) -> None:
        super().__init__(driver_class=driver_class)
        self.typed_early = typed_early  # keys typed on the early screen (early_screen/)
        self.front = Front(agent)
        self.session_start = session or SessionStart()  # --continue / --resume (resume_flow)
        self.banner = banner
        self.workspace: Path = self.front.workspace
        self.workspace_label = workspace_label or short_path(self.workspace)
        self.max_mounted = max_mounted
        self.completer = Completer(self.front.completions)
        self._listed_roots = self.front.extra_roots  # whose files the completer offers
        # Monotonic seconds for the status bar's and running cards' elapsed time and /terminals;
        # tests freeze it (snapshots through DEFAULT_CLOCK).
        self.clock: Callable[[], float] = DEFAULT_CLOCK
        self.quit_flow = QuitFlow(self)
        self.clear_flow = ClearFlow(self)
        self.rewind_flow = RewindFlow(self)
        self.previous_prompt = PreviousPromptOffer()  # Esc Esc on an empty prompt
        self.turn_worker: Worker[None] | None = None  # the running (or last) turn
        self.queue_flow = QueueFlow(self)  # messages typed while a turn runs
        self.mode_flow = ModeFlow(self)  # Shift+Tab, and the offer to carry out a plan
        self.started_at = 0.0  # the clock when the app mounted ([ui] status_line's duration)
        self.keymap = Keymap()  # [ui] keys, read on mount
        # bench/bench_ui_first_frame.py: write the wall time of the first paint there, then exit.
        self.first_frame_file = os.environ.get("AGENT_TUI_FIRST_FRAME_FILE")

    # ---- layout -------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        if self.max_mounted is not None:
            yield Transcript(self.max_mounted, id="transcript")
        else:
            yield Transcript(id="transcript")
        yield QueuedMessages(id="queued")
        yield TodoPanel(id="todo")
        yield Composer(self.completer, id="composer")
        yield CommandStatusLine(self.front.status_line, self._measured, id="status-line")
        yield Footer()

    def _measured(self) -> Measured:
        """What the status-line command gets that only the app knows."""
        return Measured(self.status.context_tokens, self.clock() - self.started_at)

    @property
    def transcript(self) -> Transcript:
        return self.query_one(Transcript)

    @property
    def status(self) -> StatusBar:
        return self.query_one(StatusBar)

    @property
    def prompt_input(self) -> PromptInput:
        return self.query_one(PromptInput)

    async def on_mount(self) -> None:
        self.started_at = self.clock()
        settings = self.front.settings()
        self.theme = THEMES.get(settings.theme or "dark", "textual-dark")
        self.keymap = build_keymap(settings.keys)
        self.set_keymap(self.keymap.textual_keymap())
        self.prompt_input.keymap = self.keymap
        if settings.vim:
            self.prompt_input.use_vim()
        from agent_tui.ui.terminal_keys import KeyParser

        KeyParser.meta_as_escape = settings.vim  # Esc typed fast before a vi command
        self.refresh_model_status()
        self.status.workspace = self.workspace_label
        self.refresh_approval_mode()
        self.prompt_input.prompt_history = load_history(self.workspace)
        self.front.tools.restore_saved()
        if self.banner:
            await self.transcript.add(Note(self.banner, "warning"))
        for notice in self._startup_notices():
            await self.transcript.add(Note(notice, "warning"))
        await resume_flow.start(self, self.session_start)
        from agent_tui.ui.screens.mcp_questions import McpDialogs

        # Elicitation forms and sampling consent are answered here (also by servers trusting the
        # folder starts later); headless declines both.
        self.front.mcp.answer_with(McpDialogs(self))
        if self.front.mcp.present:
            from agent_tui.ui.mcp_status import watch_mcp

            watch_mcp(self)  # "MCP: N starting…", tools over the limit
        # MCP servers and the context-window question start in the background once the first
        # frame is on screen: their tasks (imports, connections) would otherwise run before it.
        self.call_after_refresh(self.front.start)
        # At once, not scheduled: keys typed while the app started are already queued, and a
        # scheduled focus let them reach the transcript (Textual's first focus), which lost them.
        focus_now(self.prompt_input)
        asking_trust = self._check_trust()
        self._take_early_typing(hold=asking_trust)
        if self.session_start.pick or self.session_start.other is not None:
            self.run_worker(resume_flow.ask_first(self, self.session_start), group="sessions")
        # What the first screen compiled is kept now, not only at exit: a killed session never
        # gets there, and the next start is the one that needs it (nothing is written when warm).
        code_cache.save()
        if self.first_frame_file:
            self.call_after_refresh(self._first_frame_painted, self.first_frame_file)
            return
        self._load_files()

    def _take_early_typing(self, hold: bool) -> None:
        """What was typed on the early screen: its messages sent (the second one queued, as
        typed during a turn) and the rest left in the prompt. With ``hold`` (the trust question
        is coming) nothing is sent: it all waits in the prompt for the answer."""
        typed = self.typed_early
        if typed is None:
            return
        self.typed_early = None
        if typed.quit:
            self.exit(0)
            return
        prompt = self.prompt_input
        if hold:
            prompt.load_text("\n".join([*typed.sent, typed.text]))
        else:
            for text in typed.sent:
                prompt.load_text(text)
                prompt.action_submit()
            prompt.load_text(typed.text)
        prompt.move_cursor(prompt.document.end)

    def _startup_notices(self) -> list[str]:
        from agent_tui.ui import trust_flow

        notices: list[str] = []
        ignored = self.front.trust.question().keys
        if ignored and trust_flow.trust_answer_here(self) is False:
            # Only after a "no": never answered, the trust question comes instead (_check_trust).
            notices.append(
                f"This folder's .agentrc sets {format_keys(ignored)}, which apply "
                "only once you trust the folder: /trust on applies them."
            )
        notices.extend(self.keymap.notices)  # [ui] keys it could not use
        notices.extend(self.front.startup_notices())
        notices.extend(self.front.state_notices())  # damaged state files moved aside
        return notices

    # ---- workspace trust: the flow lives in ui/trust_flow.py ----------------

    def _check_trust(self) -> bool:
        from agent_tui.ui import trust_flow

        return trust_flow.check_trust(self)

    async def apply_trust(self, trusted: bool) -> None:
        """Apply the folder's new trust to the running agent and say what changed."""
        from agent_tui.ui import trust_flow

        await trust_flow.apply_trust(self, trusted)

    def refresh_approval_mode(self) -> None:
        shown = self.front.status()
        self.status.approval_mode = shown.mode
        self.status.sandbox = shown.sandbox

    def refresh_model_status(self) -> None:
        """The model's name, and its endpoint's host when it is not the provider's own API."""
        self.status.model_name = self.front.model.name
        self.status.endpoint = self.front.endpoint()

    def _first_frame_painted(self, path: str) -> None:
        Path(path).write_text(f"{time.time():.6f}", encoding="utf-8")
        self.exit(0)

    @work(thread=True, exclusive=True, group="files")
    def _load_files(self) -> None:
        # A thread: walking a big tree must never block a keypress.
        self.completer.files = list_root_files(self.workspace, self.front.extra_roots)

    def on_key(self, event: events.Key) -> None:
        self.mode_flow.typed_over_offer(event)  # typing answers "keep planning"
        type_into_prompt(self, event)  # keys no widget used: typed text goes back to the prompt

    @on(KeyHeld)
    def _key_held(self, event: KeyHeld) -> None:
        # Typed as a question opened, before it took keys: the text the person was writing.
        self.mode_flow.typing_over_offer(event.character)
        put_back(self, event.key, event.character)

    @on(PromptInput.Changed)
    def _prompt_changed(self) -> None:
        self.previous_prompt.disarm()  # the Esc-Esc offer is for two presses in a row

    @on(PromptInput.ScrollRequested)
    def _scroll_transcript(self, event: PromptInput.ScrollRequested) -> None:
        transcript = self.transcript
        (transcript.scroll_page_up if event.pages < 0 else transcript.scroll_page_down)()

    # ---- turns --------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        # PENDING counts: a turn just submitted must already block a second one.
        return self.turn_worker is not None and not self.turn_worker.is_finished

    @on(PromptInput.Submitted)
    async def _submitted(self, event: PromptInput.Submitted) -> None:
        if self.busy:
            # Queued, not sent: a second turn must not cancel the running one (exclusive worker).
            append_history(self.workspace, event.text)
            self.queue_flow.add(event.text)
            return
        append_history(self.workspace, event.text)
        await self.submit(event.text)

    @on(PromptInput.Steered)
    async def _steered(self, event: PromptInput.Steered) -> None:
        append_history(self.workspace, event.text)
        if self.busy:
            await self.queue_flow.steer(event.text)
        else:  # the turn ended as the key was pressed: an ordinary prompt
            await self.submit(event.text)

    @on(PlanOffer.Answered)
    async def _plan_answered(self, event: PlanOffer.Answered) -> None:
        await self.mode_flow.answered(event.answer)

    @on(PlanOffer.TypedOver)
    def _typed_over_plan(self) -> None:
        self.mode_flow.typed_over()

    @on(PlanOffer.Pasted)
    def _pasted_over_plan(self, event: PlanOffer.Pasted) -> None:
        self.mode_flow.pasted_over_offer(event.text)

    @on(PromptInput.TakeQueued)
    def _take_queued(self) -> None:
        text = self.queue_flow.take_last()
        if text is not None:
            self.prompt_input.load_text(text)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker is self.turn_worker and event.worker.is_finished:
            self.queue_flow.turn_ended(event.state)
            self.mode_flow.turn_ended(event.state, len(self.queue_flow.queued))

    async def submit_queued(self, text: str) -> None:
        """Send a queued message, unless another turn started meanwhile (then queue it again).
        It does not scroll: the person may have scrolled up to read since they queued it."""
        if self.busy:
            self.queue_flow.requeue(text)
            return
        await self.submit(text, follow=False)

    async def submit(self, text: str, *, follow: bool = True) -> None:
        """Show ``text`` and send it through the core's front door: ``!command``, a slash
        command or a prompt (the core tells them apart and runs each once).

        ``follow``: the transcript scrolls to its end and stays there as the answer comes (what
        the person just caused is in view, even after paging up; scrolling up again stops it).
        """
        if follow:
            self.transcript.scroll_end(animate=False)  # also re-anchors it (Textual)
        request = UserInput(text)
        if request.shell_command is not None and self.front.interactive:
            self.turn_worker = self.run_shell(request)
            return
        self.rewind_flow.before_prompt()
        await self.transcript.add(UserMessage(text))
        images = self.query_one(Composer).image_chips.take()  # pasted image paths
        if images:
            names = ", ".join(i.name for i in images)
            await self.transcript.add(Note(f"🖼 attached: {names}"))
        self.turn_worker = self.run_turn(text, images)

    @work(exclusive=True, group="turn")
    async def run_shell(self, request: UserInput) -> None:
        card: ShellCard | None = None
        try:
            async for event in self.front.submit(request):
                if isinstance(event, ev.UserShellStarted):
                    card = ShellCard(event.command)
                    await self.transcript.add(card)
                elif isinstance(event, ev.UserShellFinished) and card is not None:
                    card.finished(event.status, event.output)
        except asyncio.CancelledError:  # Esc: the command's processes are gone, nothing is sent
            if card is not None:
                card.finished("cancelled (not sent)", card.output)
            raise

    @work(exclusive=True, group="turn")
    async def run_turn(self, text: str, images: tuple[ImageBlock, ...] = ()) -> None:
        await self._run_turn(text, images)

    async def _run_turn(self, text: str, images: tuple[ImageBlock, ...] = ()) -> None:
        from agent_tui.ui.render import TurnView

        view = TurnView(self.transcript, self.status, text)
        self._set_busy(True)
        await self.front.sessions.history_ready()  # a resumed session's, parsing: not on the spot
        said = self.front.messages
        turn_events = self.front.submit(UserInput(text, tuple(images)))
        try:
            async for event in turn_events:
                # A sub-agent's questions are asked like the agent's own (the sub-run awaits them).
                asked = event.inner if isinstance(event, ev.SubagentEvent) else event
                if isinstance(asked, ev.ApprovalRequested):
                    await view.handle(event)
                    decision = await self.ask_approval(asked)
                    if not asked.decision.done():
                        asked.decision.set_result(decision)
                elif isinstance(asked, ev.RoundLimitHit):
                    from agent_tui.ui.screens.round_limit import RoundLimitScreen

                    proceed = await self.push_screen_wait(RoundLimitScreen(asked.rounds))
                    if not asked.proceed.done():
                        asked.proceed.set_result(bool(proceed))
                elif isinstance(event, ev.PromptArgumentsRequested):
                    await self._ask_prompt_arguments(event)
                elif isinstance(event, ev.CommandHandled | ev.TodoUpdated):
                    await self._beside_transcript(event)
                else:
                    await view.handle(event)
            await self._show_state_notices()  # approvals.json etc. moved aside during the turn
        except asyncio.CancelledError:
            if not self.tearing_down:  # quitting: nothing to draw into, nobody to read it
                await view.cancelled()
            raise
        finally:
            # Cancelled under a dialog, the generator is paused at a yield: close it now so the
            # agent's cleanup (cancelling its tool calls) runs before the app goes.
            await turn_events.aclose()
            if not self.tearing_down:
                # Compared whole, not by length: a compaction changes the length too.
                if view.local:  # a command answered here (/help, /clear, /compact): no prompt
                    pass
                elif self.front.messages == said:  # the agent undid the turn
                    self._mark_unanswered()
                else:
                    self.rewind_flow.turn_kept(self.front.last_prompt_index)
                self._set_busy(False)
                self.mode_flow.turn_finished(view.finished)
                notify_if_away(self, turn_end_message(self.front.messages))
                self.title = APP_TITLE

    async def _ask_prompt_arguments(self, event: ev.PromptArgumentsRequested) -> None:
        """A command's missing arguments: ask in a form; the core runs it again with them."""
        from agent_tui.ui.screens.prompt_args import prompt_arguments_screen

        screen = prompt_arguments_screen(event.command, event.missing, self.front.mcp)
        answer = await self.push_screen_wait(screen)
        values = answer.content if answer.action == "accept" and answer.content else None
        if not event.values.done():
            event.values.set_result(values)

    async def _beside_transcript(self, event: ev.CommandHandled | ev.TodoUpdated) -> None:
        """What a turn changes outside its entries: the todo panel, a command's action."""
        if isinstance(event, ev.TodoUpdated):
            self.query_one(TodoPanel).show_items(event.items)
        else:
            await self._command_handled(event)

    async def _command_handled(self, event: ev.CommandHandled) -> None:
        """A command the core ran: carry out its action, show its message."""
        if event.action is not None:
            await self.do_action(event.action)
        if self.front.extra_roots != self._listed_roots:  # /add-dir: offer its files too
            self._listed_roots = self.front.extra_roots
            self._load_files()
        # /approvals' screen shows the table the message holds.
        if event.message and not isinstance(event.action, actions.OpenApprovals):
            await self.transcript.add(MarkdownNote(event.message))

    def _mark_unanswered(self) -> None:
        shown = self.transcript.query(UserMessage)
        if shown:
            shown.last().mark_unanswered()

    @property
    def tearing_down(self) -> bool:
        """True once the app is quitting or Textual is removing its widgets."""
        return self.quit_flow.quitting or not self.is_running

    async def _show_state_notices(self) -> None:
        for notice in self.front.state_notices():
            await self.transcript.add(Note(notice, "warning"))

    def _set_busy(self, busy: bool) -> None:
        self.status.busy = busy
        self.prompt_input.steering = busy
        self.refresh_bindings()  # the footer shows "Cancel turn" only while one runs

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel_turn" and not self.status.busy:
            return False
        if action == "edit_previous" and self.status.busy:
            return False
        if action == "cycle_mode" and len(self.screen_stack) > 1:
            return False  # a dialog is open: Shift+Tab moves its focus back, as usual
        return True

    async def ask_approval(self, event: ev.ApprovalRequested) -> Decision:
        """Signal (bell, window title) and ask with the approval modal."""
        from agent_tui.ui.screens.approval import ApprovalScreen

        if not notify_if_away(self, f"approve {event.name}?"):
            self.bell()
        self.title = f"{APP_TITLE} — approval needed"
        self._set_terminal_title(f"agent-tui: approve {event.name}?")
        # Read-only: which parts of a compound command line a rule or grant already allows.
        schema, parts = self.front.approval_details(event)
        try:
            screen = ApprovalScreen(event, schema, parts)
            decision: Decision = await self.push_screen_wait(screen)
        finally:
            self._set_terminal_title(APP_TITLE)
            self.title = APP_TITLE
        return decision

    def _set_terminal_title(self, title: str) -> None:
        # Textual has no public API for the terminal window title; OSC 2 through the driver.
        driver = getattr(self, "_driver", None)
        if driver is not None and not self.is_headless:
            driver.write(f"\x1b]2;{one_line(title)}\x07")  # a BEL in it would end the OSC

    def get_line_filters(self) -> Sequence[LineFilter]:
        """Textual's filters (NO_COLOR ...) and ours, which keeps control characters off the
        terminal whatever a widget was given (see ``control_filter``)."""
        return [*super().get_line_filters(), self._control_filter]

    @on(ErrorNote.RetryRequested)
    async def _retry(self, event: ErrorNote.RetryRequested) -> None:
        if not self.busy:
            await self.submit(event.prompt)

    def action_cancel_turn(self) -> None:
        if self.turn_worker is not None and not self.turn_worker.is_finished:
            self.turn_worker.cancel()

    def action_edit_previous(self) -> None:
        if not self.prompt_input.text:
            said = self.transcript.query(UserMessage)
            self.previous_prompt.escape(self, said.last().text if said else "")

    async def action_cycle_mode(self) -> None:
        await self.mode_flow.cycle()

    def action_edit_in_editor(self) -> None:
        edit_prompt_in_editor(self)

    # ---- UI actions (from commands and keys) ---------------------------------------------

    async def do_action(self, action: actions.UiAction) -> None:
        """Carry out what a command asked for (``agent_tui.actions``)."""
        match action:
            case actions.Clear() | actions.New():
                await self.clear_flow.clear()
            case actions.UndoClear():
                await self.clear_flow.undo()
            case actions.Undo(force=force):
                await self.rewind_flow.undo(force)
            case actions.Rewind():
                await self.rewind_flow.rewind()
            case actions.Exit():
                self.quit_flow.start()  # in its own worker: quitting cancels the one this runs in
            case actions.Resume():
                await resume_flow.pick(self)
            case actions.Fork():
                await resume_flow.fork(self)
            case actions.OpenToolPicker():
                self.action_tools()
            case actions.PickModel(model=name):
                from agent_tui.ui import model_flow

                await model_flow.pick(self, name)
            case actions.Trust(trusted=trusted):
                await self.apply_trust(trusted)
            case actions.Copy(args=args):
                from agent_tui.ui import copy_flow

                await self.transcript.add(Note(await copy_flow.copy(self, args)))
            case actions.Terminals():
                from agent_tui.ui.screens.terminals import TerminalsScreen

                self.push_screen(TerminalsScreen(self.front.terminals, self.clock))
            case actions.EditMcp(words=words):
                from agent_tui.ui.mcp_status import edit_servers

                await edit_servers(self, words)
            case actions.OpenApprovals():
                from agent_tui.ui.screens.approvals import ApprovalsScreen

                self.push_screen(ApprovalsScreen(self.front.grants))
        self.front.record()  # /clear, /undo-clear...: the session file follows at once

    def action_toggle_todo(self) -> None:
        self.query_one(TodoPanel).toggle()

    def refresh_todo(self) -> None:
        """Show the todo list as the core holds it (after a resume, a /clear, an undo)."""
        self.query_one(TodoPanel).show_items(self.front.todo())

    def action_tools(self) -> None:
        from agent_tui.ui.screens.tool_picker import ToolPickerScreen

        tools = self.front.tools
        self.push_screen(ToolPickerScreen(tools.manifests(), set(tools.disabled)), self._picked)

    def _picked(self, disabled: set[str] | None) -> None:
        if disabled is None:
            return
        self.front.tools.set_disabled(disabled)
        self.notify(f"{plural(len(disabled), 'tool')} disabled for this workspace")

    async def action_open_earlier(self) -> None:
        """Open the newest one-line entry of a resumed transcript (an earlier turn, or the last
        turn's earlier calls): rows take Enter or a click, but typing stays in the prompt."""
        from agent_tui.ui.widgets.replayed_turn import Expander

        rows = list(self.transcript.query(Expander))
        if rows:
            await rows[-1].action_expand()
            self.prompt_input.focus()

    def action_help(self) -> None:
        from agent_tui.ui.screens.help import HelpScreen

        self.push_screen(HelpScreen(self.front.completions.all_commands(), self.keymap.rebound()))

    # ---- quitting -----------------------------------------------------------------------

    def action_quit_twice(self) -> None:
        self.quit_flow.ctrl_c()

    async def action_quit(self) -> None:
        self.quit_flow.start()

    async def shutdown_agent(self) -> None:
        """Stop MCP servers, kill background terminals, close the provider (errors logged)."""
        try:
            await self.front.aclose()
        except Exception:  # quitting must end in exit 0 whatever a server did: log, carry on
            logger.exception("shutting the agent down failed")


def run_tui(agent: Agent, *, banner: str | None = None, session: SessionStart | None = None) -> int:
    """Run the app until the user quits.

    Args:
        agent: a ready ``Agent`` (built by the CLI).
        banner: a note shown at the top, e.g. the demo-model banner.
        session: the session to resume or pick first (``--continue``, ``--resume``).

    Returns:
        The process exit code.
    """
    from agent_tui.early_screen import screen as early_screen
    from agent_tui.ui import terminal_keys

    terminal_keys.install()  # Alt+Enter as the terminal sends it (ESC CR), for steering
    handover = early_screen.take()  # the keys typed on the early screen, if it was drawn
    driver = None
    if handover is not None:
        from agent_tui.ui.early_driver import driver_after

        driver = driver_after(handover)
    typed = handover.typed if handover is not None else None
    app = AgentApp(agent, banner=banner, session=session, driver_class=driver, typed_early=typed)
    result = app.run()
    hint = resume_hint(app)
    if hint:
        print(hint)  # after the app left the alternate screen: it stays in the shell, as Codex's
    return result if isinstance(result, int) else 0


def resume_hint(app: AgentApp) -> str:
    """``To continue this session: agent-tui --resume ID``, for the session saved last (the one a
    /clear set aside when the new one has no turn yet); empty when nothing was saved."""
    saved = app.clear_flow.saved
    aside = saved.conversation.saved_id if saved is not None else None
    session = app.front.saved_session_id() or aside
    return f"To continue this session: agent-tui --resume {session}" if session else ""
