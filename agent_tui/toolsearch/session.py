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
