"""The tool picker (``/tools``, Ctrl+T): every tool grouped by source, with a checkbox each.

Enter (or Ctrl+S) saves: it dismisses with the set of disabled tool names (None when nothing
changed); the app persists it per workspace and sets ``ToolRegistry.disabled`` so a disabled tool
is never offered to the model. Esc cancels: nothing changes.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Label, SelectionList, Static
from textual.widgets.selection_list import Selection

from agent_tui.front.types import MAX_TOOLS, Manifest
from agent_tui.plural import plural
from agent_tui.text_safety import visible
from agent_tui.ui.widgets.checklist import Checklist


def source_label(source: str) -> str:
    if source.startswith("mcp:"):
        return f"MCP server {source[4:]}"
    return {"built-in": "Built-in", "user": "User-defined"}.get(source, source)


def group_by_source(manifests: Sequence[Manifest]) -> dict[str, list[Manifest]]:
    """Built-in first, then MCP servers and others by name; tools by name inside a group."""
    groups: dict[str, list[Manifest]] = {}
    for manifest in manifests:
        groups.setdefault(manifest.source, []).append(manifest)
    order = sorted(groups, key=lambda s: (s != "built-in", s))
    return {s: sorted(groups[s], key=lambda m: m.name) for s in order}


def matches(manifest: Manifest, query: str) -> bool:
    q = query.lower()
    return not q or any(
        q in text.lower()
        for text in (manifest.name, manifest.display_name, manifest.user_description)
    )


class ToolPickerScreen(ModalScreen[set[str] | None]):
    CSS_PATH = "tool_picker.tcss"
    BINDINGS = [
        # Priority: Enter in the filter box or on a list saves too (Space toggles a tool).
        Binding("enter,ctrl+s", "done", "Save", priority=True),
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+f", "focus_filter", "Filter"),
        # Not a priority: a list moves its own highlight; the filter box has no use for Down.
        Binding("down", "into_list", "To the list", show=False),
    ]

    def __init__(self, manifests: Sequence[Manifest], disabled: set[str]) -> None:
        super().__init__()
        self.groups = group_by_source(manifests)
        self.all_names = {m.name for m in manifests}
        self.original_disabled = set(disabled) & self.all_names
        self.enabled = self.all_names - self.original_disabled
        self.by_name = {m.name: m for m in manifests}

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label("Tools — Space toggles, Enter saves, Esc cancels", id="title")
            yield Static(id="count")
            yield Input(placeholder="filter tools", id="filter")
            groups = VerticalScroll(id="groups")
            groups.can_focus = False  # Tab goes from the filter straight to the first list
            with groups:
                for index, source in enumerate(self.groups):
                    yield Label(source_label(source), classes="group-title")
                    yield Checklist(id=f"group-{index}", classes="group")
            yield Static(id="description", markup=False)

    def on_mount(self) -> None:
        self._fill("")
        self._update_count()

    def _fill(self, query: str) -> None:
        for index, (_, manifests) in enumerate(self.groups.items()):
            selections = self.query_one(f"#group-{index}", SelectionList)
            selections.clear_options()
            shown = [m for m in manifests if matches(m, query)]
            for manifest in shown:
                prompt = Text(manifest.name)
                if manifest.user_description:
                    prompt.append("  " + manifest.user_description, style="dim")
                selections.add_option(
                    Selection(prompt, manifest.name, manifest.name in self.enabled)
                )
            selections.display = bool(shown)
            if shown:
                selections.highlighted = 0
            self.query(".group-title")[index].display = bool(shown)

    def _update_count(self) -> None:
        # Enabled of all tools, and the API's limit apart: "12 / 128" read as 116 disabled.
        count = len(self.enabled)
        if count <= MAX_TOOLS:
            limit = f"the model is sent at most {MAX_TOOLS}"
        elif "tool_search" in self.enabled:
            limit = f"over {MAX_TOOLS}: the model finds the others with tool_search"
        else:
            limit = f"over the limit: only the first {MAX_TOOLS} are sent to the model"
        enabled = f"{count} of {plural(len(self.all_names), 'tool')} enabled"
        self.query_one("#count", Static).update(f"{enabled}  ·  {limit}")

    @on(Input.Changed, "#filter")
    def _filter(self, event: Input.Changed) -> None:
        self._fill(event.value)

    @on(SelectionList.SelectionToggled)
    def _toggled(self, event: SelectionList.SelectionToggled[str]) -> None:
        name = event.selection.value
        if name in event.selection_list.selected:
            self.enabled.add(name)
        else:
            self.enabled.discard(name)
        self._update_count()

    @on(SelectionList.SelectionHighlighted)
    def _highlighted(self, event: SelectionList.SelectionHighlighted[str]) -> None:
        manifest = self.by_name.get(event.selection.value)
        if manifest is not None:
            text = manifest.user_description or manifest.model_description.split("\n")[0]
            # An MCP server writes these: control characters shown.
            shown = visible(f"{manifest.display_name}: {text}")
            self.query_one("#description", Static).update(shown)

    def action_focus_filter(self) -> None:
        self.query_one("#filter", Input).focus()

    def action_into_list(self) -> None:
        """Down in the filter box: into the first list that shows a tool."""
        if not isinstance(self.focused, Input):
            return
        shown = [g for g in self.query(Checklist) if g.display and g.option_count]
        if shown:
            shown[0].focus()

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_done(self) -> None:
        disabled = self.all_names - self.enabled
        self.dismiss(None if disabled == self.original_disabled else disabled)
