"""Which tools a request offers, and which wait behind ``tool_search`` (see the package docstring).

Pure: the loop hands in the enabled tools, the window it measured, whether the server is local,
the settings and what the session loaded; nothing here reads a file or the network.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from agent_tui.providers.base import ToolSpec
from agent_tui.tools.base import Manifest
from agent_tui.tools.registry import MAX_TOOLS

TOOL_SEARCH = "tool_search"
LOADED_KEY = "tool_search.loaded"  # session.extras: names tool_search loaded (a set)
DEFERRED_KEY = "tool_search.deferred"  # session.extras: what this request left to the search
DEFAULT_SHARE = 0.10  # of the window the tool schemas may take before the search takes over
SMALL_WINDOW = 16_384  # tokens: a window this small gets the small core and half the share
CHARS_PER_TOKEN = 4  # the same estimate the prompt budget uses
# What a small window or a local server is offered (issue 28): read, list, create, replace, run.
SMALL_CORE = ("read_file", "list_dir", "create_file", "replace_string_in_file", "run_in_terminal")
# Built-ins most turns never need: found with tool_search when they are.
# Rarely called: behind tool_search. ``diagnostics`` too: an edit already comes back with the
# problems it added (lsp/), so asking is the exception.
DEFERRED_BUILTINS = (
    "get_terminal_output",
    "kill_terminal",
    "get_changed_files",
    "fetch_webpage",
    "diagnostics",
)


@dataclass(frozen=True)
class OfferSettings:
    """``[tools] search_threshold`` (a share of the window) and ``[tools] always_offer``."""

    share: float = DEFAULT_SHARE
    always: frozenset[str] = frozenset()

    @classmethod
    def from_section(cls, section: dict[str, Any] | None) -> OfferSettings:
        section = section or {}
        return cls(
            float(section.get("search_threshold", DEFAULT_SHARE)),
            frozenset(section.get("always_offer", ())),
        )


@dataclass(frozen=True)
class Offer:
    """One request's tools: those sent (``specs``) and those ``tool_search`` can load."""

    specs: list[ToolSpec]
    deferred: tuple[Manifest, ...]


def spec(manifest: Manifest) -> ToolSpec:
    return ToolSpec(manifest.name, manifest.model_description, manifest.input_schema)


def schema_chars(manifests: Sequence[Manifest]) -> int:
    """About what the tools' schemas take in a request, in characters."""
    return sum(len(json.dumps([m.name, m.model_description, m.input_schema])) for m in manifests)


def small_window(window: int, local: bool) -> bool:
    """A window of 16k tokens or less, or any local server (slow prefill): the small core."""
    return local or window <= SMALL_WINDOW


def plan_offer(
    manifests: Sequence[Manifest],
    *,
    window: int,
    local: bool,
    settings: OfferSettings,
    loaded: Collection[str] = (),
) -> Offer:
    """The tools to offer out of ``manifests`` (enabled, in registration order).

    Args:
        window: the context window in tokens, as measured (``ContextBudget.window``).
        local: the server said its window (a local server).
        loaded: names ``tool_search`` loaded this session: offered when deferred.
    """
    search = next((m for m in manifests if m.name == TOOL_SEARCH), None)
    others = [m for m in manifests if m.name != TOOL_SEARCH]
    if search is None:  # disabled, or outside a participant's set: everything, as far as it fits
        return Offer([spec(m) for m in others[:MAX_TOOLS]], ())
    small = small_window(window, local)
    core = [m for m in others if _core(m, small, settings)]
    core_names = {m.name for m in core}
    later = [m for m in others if m.name not in core_names]
    always_later = [m for m in later if m.source == "built-in"]
    optional = [m for m in later if m.source != "built-in"]
    # As Claude Code does: the MCP (and user) tools' schemas against a share of the window.
    share = settings.share / 2 if window <= SMALL_WINDOW else settings.share
    fits = schema_chars(optional) / CHARS_PER_TOKEN <= share * window
    if fits and len(core) + len(optional) < MAX_TOOLS:
        core, later = [*core, *optional], always_later
    found = [m for m in later if m.name in loaded]
    deferred = tuple(m for m in later if m.name not in loaded)
    # tool_search before what it loaded: loading a tool leaves the earlier schemas (the
    # provider's cached prefix) as they were.
    offered = [*core, *([search] if deferred else []), *found][:MAX_TOOLS]
    return Offer([spec(m) for m in offered], deferred)


def _core(manifest: Manifest, small: bool, settings: OfferSettings) -> bool:
    if manifest.name in settings.always:
        return True
    if small:
        return manifest.name in SMALL_CORE
    return manifest.source == "built-in" and manifest.name not in DEFERRED_BUILTINS
