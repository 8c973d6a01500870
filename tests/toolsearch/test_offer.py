"""Which tools a round offers (``toolsearch/offer.py``) and what ``tool_search`` finds and loads."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.agent.instructions import compose_system_prompt, small_window_prompt
from agent_tui.tools.base import Manifest, SessionState, ToolContext
from agent_tui.tools.registry import MAX_TOOLS, builtin_registry
from agent_tui.toolsearch.offer import (
    DEFERRED_BUILTINS,
    DEFERRED_KEY,
    LOADED_KEY,
    SMALL_CORE,
    OfferSettings,
    plan_offer,
)
from agent_tui.toolsearch.scoring import rank, words
from agent_tui.toolsearch.tool import ToolSearchTool
from tests.participants.agent_double import isolated_workspace


def mcp_tool(name: str, description: str = "", size: int = 0) -> Manifest:
    return Manifest(
        name=f"mcp_srv_{name}",
        display_name=name,
        tool_reference_name=name,
        user_description="",
        model_description=(description or f"The {name} tool.") + " x" * (size // 2),
        input_schema={"type": "object", "properties": {}},
        kind="read",
        source="mcp:srv",
    )


BUILTINS = builtin_registry().manifests()


def names(manifests: list[Manifest], window: int, local: bool = False, **kw: object) -> list[str]:
    offer = plan_offer(manifests, window=window, local=local, settings=OfferSettings(), **kw)  # type: ignore[arg-type]
    return [spec.name for spec in offer.specs]


def test_mcp_tools_within_the_share_are_offered_and_past_it_wait_for_the_search() -> None:
    catalog = [mcp_tool(f"t{i}", size=400) for i in range(20)]  # ~2,350 tokens of schemas
    roomy = names([*BUILTINS, *catalog], window=200_000)
    assert all(m.name in roomy for m in catalog)
    tight = names([*BUILTINS, *catalog], window=20_000)  # 10%: 2,000 tokens, less than theirs
    assert not any(m.name in tight for m in catalog) and "tool_search" in tight
    assert "read_file" in tight and "apply_patch" in tight


def test_rarely_used_builtins_wait_behind_the_search_on_any_window() -> None:
    offered = names(BUILTINS, window=1_000_000)
    assert not set(DEFERRED_BUILTINS) & set(offered)
    assert offered[-1] == "tool_search"


def test_a_small_window_or_a_local_server_gets_the_small_core() -> None:
    assert set(names(BUILTINS, window=8192)) == {*SMALL_CORE, "tool_search"}
    assert set(names(BUILTINS, window=131_072, local=True)) == {*SMALL_CORE, "tool_search"}
    # On 16k the share is halved: 20 small MCP tools (~1,100 tokens) are over 5% of it (819),
    # two of them are not.
    catalog = [mcp_tool(f"t{i}", size=150) for i in range(20)]
    assert not any(n.startswith("mcp_") for n in names([*BUILTINS, *catalog], window=16_384))
    two = names([*BUILTINS, *catalog[:2]], window=16_384)
    assert {*SMALL_CORE, "tool_search", "mcp_srv_t0", "mcp_srv_t1"} == set(two)


def test_loaded_tools_are_offered_after_the_search_and_never_more_than_128() -> None:
    catalog = [mcp_tool(f"t{i:03d}") for i in range(300)]
    offered = names([*BUILTINS, *catalog], window=200_000, loaded={"mcp_srv_t250"})
    assert offered[-2:] == ["tool_search", "mcp_srv_t250"]
    everything = {m.name for m in catalog}
    assert len(names([*BUILTINS, *catalog], window=200_000, loaded=everything)) == MAX_TOOLS


def test_without_tool_search_everything_is_offered_up_to_the_limit() -> None:
    catalog = [mcp_tool(f"t{i:03d}") for i in range(300)]
    without = [m for m in BUILTINS if m.name != "tool_search"]
    offered = names([*without, *catalog], window=8192)
    assert len(offered) == MAX_TOOLS and offered[0] == "read_file"


def test_tool_search_is_not_offered_when_nothing_waits_behind_it() -> None:
    settings = OfferSettings(always=frozenset(DEFERRED_BUILTINS))
    offer = plan_offer(BUILTINS, window=200_000, local=False, settings=settings)
    assert "tool_search" not in [s.name for s in offer.specs] and offer.deferred == ()


def test_words_split_names_and_ranking_prefers_the_matching_tool() -> None:
    assert words("getWeather_forecast-v2") == ["get", "weather", "forecast", "v", "2"]
    catalog = [
        mcp_tool("create_issue", "Create an issue in a repository."),
        mcp_tool("get_weather_forecast", "Get the weather forecast for a city."),
        mcp_tool("list_issues", "List the issues of a repository."),
    ]
    assert [m.name for m in rank("weather in Oslo", catalog, 5)] == ["mcp_srv_get_weather_forecast"]
    assert rank("issues", catalog, 1)[0].name in {"mcp_srv_create_issue", "mcp_srv_list_issues"}
    assert [m.name for m in rank("mcp_srv_list_issues", catalog, 5)][0] == "mcp_srv_list_issues"
    assert rank("spaceship", catalog, 5) == []


async def test_the_tool_loads_what_it_found_for_the_session(tmp_path: Path) -> None:
    session = SessionState()
    catalog = tuple(mcp_tool(f"report_{i}", f"Report number {i}.") for i in range(10))
    session.extras[DEFERRED_KEY] = (*catalog, mcp_tool("weather", "Weather of a city."))
    tool = ToolSearchTool(next(m for m in BUILTINS if m.name == "tool_search"))
    ctx = ToolContext(tmp_path, session)
    result = await tool.invoke({"query": "report", "limit": 3}, ctx)
    assert result.content.startswith("Loaded 3 tool(s)") and result.content.count("\n- ") == 3
    assert "(MCP server srv): Report number" in result.content
    await tool.invoke({"query": "weather"}, ctx)
    assert len(session.extras[LOADED_KEY]) == 4 and "mcp_srv_weather" in session.extras[LOADED_KEY]
    nothing = await tool.invoke({"query": "spaceship"}, ctx)
    assert nothing.content.startswith("No tool matches 'spaceship' (11 can be loaded)")


def test_the_short_instructions_name_tool_search_only_when_it_is_offered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    system = compose_system_prompt(isolated_workspace(tmp_path, monkeypatch))
    searching, alone = small_window_prompt(system, True), small_window_prompt(system, False)
    assert "- `tool_search` finds more tools" in searching and "tool_search" not in alone
    environment = system[system.index("\n\n# Environment") :]
    assert searching.endswith(environment) and alone.endswith(environment)
    assert len(searching) < len(system) - 1_000
    assert small_window_prompt("You explore the code.", True) == "You explore the code."


def test_tools_with_nothing_behind_them_are_neither_offered_nor_found(tmp_path: Path) -> None:
    from agent_tui.config import Config, ModelConfig
    from agent_tui.toolsearch.session import SKILLS_FOUND_KEY, offer_for

    registry, session = builtin_registry(), SessionState()
    model = ModelConfig("anthropic", "claude-sonnet-4-5", "https://api.anthropic.com", "K")
    offline = Config(model, {"sandbox": {"network": False}}, tmp_path)
    offered = [s.name for s in offer_for(registry, session, offline, None, 200_000, False)]
    waiting = [m.name for m in session.extras[DEFERRED_KEY]]
    assert "read_skill" not in offered + waiting and "fetch_webpage" not in offered + waiting
    session.extras[SKILLS_FOUND_KEY] = 2
    online = Config(model, {}, tmp_path)
    offered = [s.name for s in offer_for(registry, session, online, None, 200_000, False)]
    assert "read_skill" in offered and "fetch_webpage" in [
        m.name for m in session.extras[DEFERRED_KEY]
    ]
