"""The offer for one round of a session: the tools with something behind them, then the plan.

A tool with nothing behind it is not offered, nor found by the search: ``read_skill`` when no skill
was found this turn, ``fetch_webpage`` when ``[sandbox] network = false`` says this session stays
offline.
"""

from __future__ import annotations

from collections.abc import Iterable

from agent_tui.config import Config
from agent_tui.providers.base import ToolSpec
from agent_tui.tools.base import SessionState
from agent_tui.tools.registry import ToolRegistry
from agent_tui.toolsearch.offer import DEFERRED_KEY, LOADED_KEY, OfferSettings, plan_offer

SKILLS_FOUND_KEY = "skills.found"  # session.extras: skills this turn's prompt listed (a count)
# session.extras: the loaded tools a resumed session's file named, until drop_gone checks them
RESTORED_KEY = "tool_search.restored"


def unbacked(session: SessionState, config: Config) -> set[str]:
    """The tools that would do nothing in this session."""
    names = set()
    if not session.extras.get(SKILLS_FOUND_KEY):
        names.add("read_skill")
    if config.section("sandbox", "network") is False:
        names.add("fetch_webpage")
    return names


def offer_for(
    tools: ToolRegistry,
    session: SessionState,
    config: Config,
    only: Iterable[str] | None,
    window: int,
    local: bool,
) -> list[ToolSpec]:
    """This round's tools; what it defers is kept on ``session`` for ``tool_search``."""
    skip = unbacked(session, config)
    offer = plan_offer(
        [m for m in tools.enabled(only) if m.name not in skip],
        window=window,
        local=local,
        settings=OfferSettings.from_section(config.section("tools")),
        loaded=session.extras.get(LOADED_KEY, ()),
    )
    session.extras[DEFERRED_KEY] = offer.deferred
    return offer.specs


def load_named(session: SessionState, name: str) -> bool:
    """Load ``name`` when this round deferred it (the model called it by a name it knew):
    offered from the next request on. False: no such deferred tool (nothing is said of it)."""
    deferred = session.extras.get(DEFERRED_KEY, ())
    if not any(manifest.name == name for manifest in deferred):
        return False
    session.extras.setdefault(LOADED_KEY, set()).add(name)
    return True


def loaded_names(session: SessionState) -> list[str]:
    """The tools ``tool_search`` loaded this session, sorted (what the session file keeps)."""
    return sorted(session.extras.get(LOADED_KEY, ()))


def restore_loaded(session: SessionState, names: Iterable[str]) -> None:
    """Load again the tools a resumed session had loaded. Whether each still exists is known
    only once the MCP servers have started: :func:`drop_gone` checks then."""
    kept = set(names)
    session.extras[LOADED_KEY] = kept
    session.extras[RESTORED_KEY] = set(kept)


def drop_gone(session: SessionState, tools: ToolRegistry) -> list[str]:
    """The restored tools no tool answers to any more (an MCP server gone), dropped from the
    loaded set; checked once after a resume, so they are noted once."""
    restored: set[str] = session.extras.pop(RESTORED_KEY, set())
    gone = sorted(name for name in restored if name not in tools)
    session.extras.get(LOADED_KEY, set()).difference_update(gone)
    return gone
