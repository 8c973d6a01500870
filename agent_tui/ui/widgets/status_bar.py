"""The one-line status bar: state (with the turn's elapsed time), model (and its endpoint's host
when not the provider's own API), workspace, mode, and the session's tokens, cost and context."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import Static

from agent_tui.durations import elapsed_text, waiting_text
from agent_tui.ui.terminal_tail import app_clock

if TYPE_CHECKING:
    from agent_tui.front.views import SpendingView


def compact_tokens(count: int) -> str:
    """``1234`` -> ``1.2k``; keeps the bar narrow enough for 80 columns."""
    if count < 1000:
        return str(count)
    if count < 1_000_000:
        return f"{count / 1000:.1f}k"
    return f"{count / 1_000_000:.1f}M"


def context_text(tokens: int, limit: int, window: int = 0) -> str:
    """``context 43% of 8k`` ('' until a request has been made); ``limit`` is what a request
    may hold, so 100 % is where pruning starts and compaction comes at 85 %."""
    if not limit:
        return ""
    # Local servers count in powers of two (-c 8192 is "8k"), hosted models in thousands: the
    # window says which (the limit is it less the reply's share); 128,000 is both: hosted.
    binary = (window or limit) % 1000 != 0 and (window or limit) % 1024 == 0
    unit = 1024 if binary else 1000
    if limit % unit == 0 and limit < 1_000_000:
        size = f"{limit // unit}k"
    elif 10 * unit <= limit < 1_000_000:
        size = f"{round(limit / unit)}k"  # 191,808 is "192k": the bar is narrow
    else:
        size = compact_tokens(limit)
    return f"context {round(100 * tokens / limit)}% of {size}"


# The sandbox's label where the bar is narrow ("sandbox: workspace-write" is 24 columns).
SHORT_SANDBOX = {
    "sandbox: workspace-write": "sandboxed",
    "sandbox: read-only": "sandbox: ro",
    "sandbox: off": "no sandbox",
    "sandbox: unavailable": "no sandbox!",
}


class StatusBar(Static):
    """Attributes down: the app sets these reactives; the bar only renders them."""

    DEFAULT_CSS = """
    StatusBar {
        height: 1;
        padding: 0 1;
        background: $panel;
        color: $text;
    }
    """

    model_name: reactive[str] = reactive("")
    endpoint: reactive[str] = reactive("")  # host[:port], or "" for the provider's own API
    workspace: reactive[str] = reactive("")
    approval_mode: reactive[str] = reactive("ask")
    sandbox: reactive[str] = reactive("")  # "sandbox: workspace-write", "sandbox: off", …
    input_tokens: reactive[int] = reactive(0)
    output_tokens: reactive[int] = reactive(0)
    cost_usd: reactive[float | None] = reactive(None)
    busy: reactive[bool] = reactive(False)
    mcp_starting: reactive[int] = reactive(0)  # MCP servers still starting (their tools not yet)
    context_tokens: reactive[int] = reactive(0)  # the last request's prompt
    # The prompt estimate of a request the model has not started answering (0: not waiting).
    waiting_tokens: reactive[int] = reactive(0)
    context_window: reactive[int] = reactive(0)  # 0: not known yet (no request made)
    queued: reactive[int] = reactive(0)  # messages typed during the turn, sent when it ends
    # The meter's 100 %: what a request may hold (the window less the reply's share); 0: unknown.
    context_limit: reactive[int] = reactive(0)
    compacting: reactive[str] = reactive("")  # "compacting ≈N tokens…" while a summary is written

    _waiting_since = 0.0
    _compacting_since = 0.0
    _busy_since = 0.0
    _ticker: Timer | None = None

    def clock(self) -> float:
        return app_clock(self)()

    def show_spending(self, spent: SpendingView) -> None:
        """The session's figures as they stand (a resumed session's earlier runs included)."""
        self.input_tokens = spent.input_tokens
        self.output_tokens = spent.output_tokens
        self.cost_usd = spent.cost_usd

    def watch_busy(self, busy: bool) -> None:
        # Redrawn each second while a turn runs, so its elapsed time moves.
        if self._ticker is not None:
            self._ticker.stop()
            self._ticker = None
        if busy:
            self._busy_since = self.clock()
            self._ticker = self.set_interval(1.0, self.refresh)
        else:
            self.waiting_tokens = 0  # however the turn ended (cancelled too), nothing is awaited
            self.compacting = ""

    def watch_waiting_tokens(self, tokens: int) -> None:
        if tokens:
            self._waiting_since = self.clock()

    def watch_compacting(self, text: str) -> None:
        if text:
            self._compacting_since = self.clock()

    def render(self) -> Content:
        cost = f" ${self.cost_usd:.4f}" if self.cost_usd is not None else ""
        state = "○ ready"
        if self.busy:
            state = f"● working {elapsed_text(self.clock() - self._busy_since)}"
        if self.busy and self.waiting_tokens:
            elapsed = self.clock() - self._waiting_since
            state = f"◌ {waiting_text(self.waiting_tokens, elapsed)}"
        if self.busy and self.compacting:
            state = f"◌ {self.compacting} {elapsed_text(self.clock() - self._compacting_since)}"
        if self.queued:
            state += f" · {self.queued} queued"
        parts = [
            state,
            f"MCP: {self.mcp_starting} starting…" if self.mcp_starting else "",
            f"{self.model_name} @ {self.endpoint}" if self.endpoint else self.model_name,
            self.workspace,
            f"mode: {self.approval_mode}",
            self.sandbox,
            f"↑{compact_tokens(self.input_tokens)} ↓{compact_tokens(self.output_tokens)}{cost}",
            context_text(
                self.context_tokens, self.context_limit or self.context_window, self.context_window
            ),
        ]
        # Too narrow for all of it: the folder goes first, then the token counts, then the
        # sandbox says itself in one word, then the context, then the sandbox, so the state,
        # the model, its endpoint and the mode stay readable (the mode decides what runs
        # without asking).
        room = self.content_region.width
        for drop in (3, 6, 5, 7, 5):
            if not room or len(" │ ".join(p for p in parts if p)) <= room:
                break
            parts[drop] = SHORT_SANDBOX.get(parts[drop], "") if drop == 5 else ""
        # Plain text, not markup: a model name or host may hold "[" (an IPv6 address).
        return Content(" │ ".join(p for p in parts if p))
