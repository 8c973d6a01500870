"""server-everything over stdio: tools, results, prompts, resources, elicitation, sampling, roots."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest

from agent_tui.approvals.grants import SAMPLING_GRANT, GrantStore
from agent_tui.approvals.types import Decision, Scope
from agent_tui.mcp.manager import McpManager
from agent_tui.mcp.resources import resolve_mcp_reference, resources_markdown
from agent_tui.mcp.types import ElicitAnswer, McpHooks, SamplingRequest
from agent_tui.tools.base import SessionState, ToolContext
from agent_tui.tools.registry import ToolRegistry
from tests.mcp.conftest import MakeManager


def stdio(everything_js: Path, **extra: Any) -> dict[str, Any]:
    return {"command": "node", "args": [str(everything_js), "stdio"], **extra}


async def call(registry: ToolRegistry, workspace: Path, name: str, args: dict[str, Any]) -> Any:
    return await registry.get(name).invoke(args, ToolContext(workspace, SessionState()))


async def wait_tool(manager: McpManager, registry: ToolRegistry, name: str) -> None:
    # The tools that depend on client capabilities arrive with notifications/tools/list_changed.
    await manager.wait_for(lambda: name in registry, 30)


async def test_tools_are_registered_with_manifests(
    make_manager: MakeManager, everything_js: Path, workspace: Path
) -> None:
    manager, registry = await make_manager({"everything": stdio(everything_js)})
    state = manager.servers["everything"]
    assert state.status == "running", state.error
    echo = registry.manifest("mcp_everything_echo")
    assert echo.source == "mcp:everything"
    assert echo.kind == "read" and echo.read_only_hint  # annotated readOnlyHint: no confirmation
    assert echo.input_schema["required"] == ["message"]
    assert echo.display_name == "Echo Tool"
    gzip = registry.manifest("mcp_everything_gzip-file-as-resource")
    assert gzip.kind == "execute" and not gzip.read_only
    prepared = registry.get("mcp_everything_gzip-file-as-resource").prepare(
        {"name": "a"}, ToolContext(workspace, SessionState())
    )
    assert prepared.confirmation is not None
    assert (
        "everything" in prepared.confirmation.message
        and '"name": "a"' in prepared.confirmation.message
    )


async def test_call_tools_and_convert_results(
    make_manager: MakeManager, everything_js: Path, workspace: Path
) -> None:
    _, registry = await make_manager({"everything": stdio(everything_js)})
    echoed = await call(registry, workspace, "mcp_everything_echo", {"message": "hi there"})
    assert echoed.content == "Echo: hi there" and not echoed.is_error

    image = await call(registry, workspace, "mcp_everything_get-tiny-image", {})
    # The image itself reaches the model (issue 14), not the "[image: image/png, N bytes]" text.
    assert [i.media_type for i in image.images] == ["image/png"] and image.images[0].data
    assert "[image:" not in image.content

    structured = await call(
        registry, workspace, "mcp_everything_get-structured-content", {"location": "New York"}
    )
    assert set(structured.data["structured_content"]) == {"temperature", "conditions", "humidity"}

    embedded = await call(
        registry,
        workspace,
        "mcp_everything_get-resource-reference",
        {"resourceType": "Text", "resourceId": 2},
    )
    assert "[resource demo://resource/dynamic/text/2" in embedded.content

    links = await call(registry, workspace, "mcp_everything_get-resource-links", {"count": 2})
    assert links.content.count("[resource link: ") == 2


async def test_a_tool_error_becomes_an_error_result(
    make_manager: MakeManager, everything_js: Path, workspace: Path
) -> None:
    _, registry = await make_manager({"everything": stdio(everything_js)})
    # The server validates too: a wrong enum value comes back as an isError result.
    result = await call(
        registry,
        workspace,
        "mcp_everything_get-resource-reference",
        {"resourceType": "nope", "resourceId": 1},
    )
    assert result.is_error
    assert "resourceType" in result.content


async def test_stdio_server_gets_a_safe_env_plus_configured_env_not_the_parents(
    make_manager: MakeManager,
    everything_js: Path,
    workspace: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AGENT_TUI_PARENT_MARKER", "from-parent")
    monkeypatch.setenv("MY_SECRET_TOKEN", "secret-parent-value")
    env = {"CONFIGURED": "${workspaceFolder}", "PASSED": "${env:AGENT_TUI_PARENT_MARKER}"}
    _, registry = await make_manager({"everything": stdio(everything_js, env=env)})
    result = await call(registry, workspace, "mcp_everything_get-env", {})
    assert "from-parent" in result.content  # only through the entry's env
    assert '"AGENT_TUI_PARENT_MARKER"' not in result.content
    assert "secret-parent-value" not in result.content
    assert f'"CONFIGURED": "{workspace}"' in result.content
    assert '"PATH": ' in result.content and '"HOME": ' in result.content


async def test_elicitation_accepted_and_declined(
    make_manager: MakeManager, everything_js: Path, workspace: Path
) -> None:
    asked: list[tuple[str, str, dict[str, Any]]] = []
    answer = ElicitAnswer("accept", {"name": "Ada", "check": True})

    async def on_elicit(server: str, message: str, schema: dict[str, Any]) -> ElicitAnswer:
        asked.append((server, message, schema))
        return answer

    hooks = McpHooks(on_elicit=on_elicit)
    manager, registry = await make_manager({"everything": stdio(everything_js)}, hooks=hooks)
    name = "mcp_everything_trigger-elicitation-request"
    await wait_tool(manager, registry, name)
    accepted = await call(registry, workspace, name, {})
    assert asked[0][0] == "everything" and "name" in asked[0][2]["properties"]
    assert '"action": "accept"' in accepted.content and "Ada" in accepted.content

    answer = ElicitAnswer("decline")
    declined = await call(registry, workspace, name, {})
    assert '"action": "decline"' in declined.content and "Ada" not in declined.content


async def test_headless_declines_elicitation(
    make_manager: MakeManager, everything_js: Path, workspace: Path
) -> None:
    manager, registry = await make_manager({"everything": stdio(everything_js)})  # no hooks
    name = "mcp_everything_trigger-elicitation-request"
    await wait_tool(manager, registry, name)
    result = await call(registry, workspace, name, {})
    assert '"action": "decline"' in result.content


@pytest.mark.parametrize(
    ("scope", "questions_asked"), [(Scope.ONCE, 2), (Scope.SESSION, 1), (Scope.WORKSPACE, 1)]
)
async def test_sampling_asks_until_a_lasting_allow_then_uses_the_model(
    make_manager: MakeManager,
    everything_js: Path,
    workspace: Path,
    scope: Scope,
    questions_asked: int,
) -> None:
    questions: list[str] = []
    completions: list[tuple[list[dict[str, str]], str, int]] = []

    async def ask(server: str, request: SamplingRequest) -> Decision:
        questions.append(server)
        return Decision(allow=True, scope=scope)

    async def complete(messages: list[dict[str, str]], system: str, max_tokens: int) -> str:
        completions.append((messages, system, max_tokens))
        return "model says hi"

    hooks = McpHooks(ask_sampling=ask, complete=complete, model_name="test-model")
    manager, registry = await make_manager({"everything": stdio(everything_js)}, hooks=hooks)
    name = "mcp_everything_trigger-sampling-request"
    await wait_tool(manager, registry, name)
    first = await call(registry, workspace, name, {"prompt": "ping", "maxTokens": 33})
    second = await call(registry, workspace, name, {"prompt": "again"})
    assert "model says hi" in first.content and '"model": "test-model"' in first.content
    assert "model says hi" in second.content
    assert questions == ["everything"] * questions_asked
    messages, system, max_tokens = completions[0]
    assert "ping" in messages[0]["content"] and messages[0]["role"] == "user"
    assert system == "You are a helpful test server." and max_tokens == 33
    # Only a workspace allow outlives the session: a new store (a new run) still finds it.
    stored = GrantStore(workspace).for_tool(SAMPLING_GRANT)
    assert [(g.scope, g.pattern) for g in stored] == (
        [(Scope.WORKSPACE, "everything")] if scope is Scope.WORKSPACE else []
    )


async def test_a_stored_sampling_grant_is_not_asked_again_until_reset(
    make_manager: MakeManager, everything_js: Path, workspace: Path
) -> None:
    GrantStore(workspace).add(Scope.WORKSPACE, SAMPLING_GRANT, "everything")
    GrantStore(workspace).add(Scope.WORKSPACE, SAMPLING_GRANT, "another-server")
    questions: list[str] = []

    async def ask(server: str, request: SamplingRequest) -> Decision:
        questions.append(server)
        return Decision(allow=False)

    async def complete(messages: list[dict[str, str]], system: str, max_tokens: int) -> str:
        return "answered"

    store = GrantStore(workspace)
    hooks = McpHooks(ask_sampling=ask, complete=complete, grants=store)
    manager, registry = await make_manager({"everything": stdio(everything_js)}, hooks=hooks)
    name = "mcp_everything_trigger-sampling-request"
    await wait_tool(manager, registry, name)
    assert "answered" in (await call(registry, workspace, name, {"prompt": "a"})).content
    assert questions == []
    removed = store.reset("workspace")
    assert {g.describe().split(" (")[0] for g in removed} == {
        "MCP server `everything` may use the model",
        "MCP server `another-server` may use the model",
    }
    declined = await call(registry, workspace, name, {"prompt": "b"})
    assert declined.is_error and questions == ["everything"]


async def test_sampling_denied_holds_for_the_session(
    make_manager: MakeManager, everything_js: Path, workspace: Path
) -> None:
    questions: list[str] = []
    completions: list[str] = []

    async def ask(server: str, request: SamplingRequest) -> Decision:
        questions.append(server)
        return Decision(allow=False)

    async def complete(messages: list[dict[str, str]], system: str, max_tokens: int) -> str:
        completions.append("called")
        return "never"

    hooks = McpHooks(ask_sampling=ask, complete=complete)
    manager, registry = await make_manager({"everything": stdio(everything_js)}, hooks=hooks)
    name = "mcp_everything_trigger-sampling-request"
    await wait_tool(manager, registry, name)
    denied = await call(registry, workspace, name, {"prompt": "ping"})
    assert denied.is_error and "declined" in denied.content
    again = await call(registry, workspace, name, {"prompt": "ping"})
    assert again.is_error and "declined" in again.content
    assert questions == ["everything"]  # a deny holds for the session: not asked again
    assert completions == [] and hooks.sampling_denied == {"everything"}
    assert GrantStore(workspace).for_tool(SAMPLING_GRANT) == []


async def test_roots_are_the_workspace(
    make_manager: MakeManager, everything_js: Path, workspace: Path
) -> None:
    manager, registry = await make_manager({"everything": stdio(everything_js)})
    name = "mcp_everything_get-roots-list"
    await wait_tool(manager, registry, name)
    result = await call(registry, workspace, name, {})
    assert workspace.resolve().as_uri() in result.content


async def test_prompts_with_arguments_and_completions(
    make_manager: MakeManager, everything_js: Path
) -> None:
    manager, _ = await make_manager({"everything": stdio(everything_js)})
    prompts = {p.name: p for p in manager.servers["everything"].prompts}
    assert [(a.name, a.required) for a in prompts["args-prompt"].arguments] == [
        ("city", True),
        ("state", False),
    ]
    result = await manager.get_prompt("everything", "args-prompt", {"city": "Lyon", "state": "ARA"})
    text = result.messages[0].parts[0].text
    assert "Lyon" in text and "ARA" in text
    suggestions = await manager.complete(
        "everything", "prompt", "completable-prompt", "department", "E"
    )
    assert suggestions == ["Engineering"]


async def test_resources_and_templates(make_manager: MakeManager, everything_js: Path) -> None:
    manager, _ = await make_manager({"everything": stdio(everything_js)})
    state = manager.servers["everything"]
    uris = [r.uri for r in state.resources]
    assert "demo://resource/static/document/features.md" in uris
    label, text = await resolve_mcp_reference(
        manager, "mcp:everything/demo://resource/static/document/features.md"
    )
    assert label == "mcp:everything/demo://resource/static/document/features.md"
    assert "# Everything Server - Features" in text

    templates = [t.uri_template for t in state.templates]
    assert "demo://resource/dynamic/text/{resourceId}" in templates
    label, text = await resolve_mcp_reference(
        manager, "everything/demo://resource/dynamic/text/{resourceId} resourceId=7"
    )
    assert label == "mcp:everything/demo://resource/dynamic/text/7"
    assert "7" in text
    label, _ = await resolve_mcp_reference(
        manager, "mcp:everything/demo://resource/dynamic/text/{resourceId=8}"
    )
    assert label == "mcp:everything/demo://resource/dynamic/text/8"
    _, blob = await resolve_mcp_reference(
        manager, "everything/demo://resource/dynamic/blob/{resourceId} 3"
    )
    # A base64 blob of a text type reaches the model as its text (issue 15 §5), not "N bytes".
    assert blob.startswith("Resource 3: This is a base64 blob created at ")

    listing = resources_markdown(manager)
    assert "#mcp:everything/demo://resource/static/document/features.md" in listing
    assert "demo://resource/dynamic/text/{resourceId} resourceId=…" in listing


async def test_resource_list_changed_refreshes(
    make_manager: MakeManager, everything_js: Path, workspace: Path
) -> None:
    manager, registry = await make_manager({"everything": stdio(everything_js)})
    state = manager.servers["everything"]
    data = "data:text/plain;base64," + base64.b64encode(b"hello gzip").decode()
    await call(
        registry,
        workspace,
        "mcp_everything_gzip-file-as-resource",
        {"name": "hello.gz", "data": data, "outputType": "resourceLink"},
    )
    # Registering a session resource makes the server send notifications/resources/list_changed.
    await manager.wait_for(
        lambda: any(r.uri == "demo://resource/session/hello.gz" for r in state.resources), 30
    )
