"""The one-line status bar: model (and its endpoint's host when not the provider's own API),
workspace, approval mode, and the session's tokens and cost."""

from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static


def compact_tokens(count: int) -> str:
    """``1234`` -> ``1.2k``; keeps the bar narrow enough for 80 columns."""
    if count < 1000:
        return str(count)
    if count < 1_000_000:
        return f"{count / 1000:.1f}k"
    return f"{count / 1_000_000:.1f}M"


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
    input_tokens: reactive[int] = reactive(0)
    output_tokens: reactive[int] = reactive(0)
    cost_usd: reactive[float | None] = reactive(None)
    busy: reactive[bool] = reactive(False)
    mcp_starting: reactive[int] = reactive(0)  # MCP servers still starting (their tools not yet)

    def render(self) -> Content:
        cost = f" ${self.cost_usd:.4f}" if self.cost_usd is not None else ""
        state = "● working" if self.busy else "○ ready"
        parts = [
            state,
            f"MCP: {self.mcp_starting} starting…" if self.mcp_starting else "",
            f"{self.model_name} @ {self.endpoint}" if self.endpoint else self.model_name,
            self.workspace,
            f"approvals: {self.approval_mode}",
            f"↑{compact_tokens(self.input_tokens)} ↓{compact_tokens(self.output_tokens)}{cost}",
        ]
        # Plain text, not markup: a model name or host may hold "[" (an IPv6 address).
        return Content(" │ ".join(p for p in parts if p))
