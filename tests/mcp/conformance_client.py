"""agent-tui's MCP client as the conformance suite's client command.

    python -m tests.mcp.conformance_client <server-url>

``@modelcontextprotocol/conformance client --command ...`` starts one test server per scenario and
runs this with the server's URL; the scenario name is in ``MCP_CONFORMANCE_SCENARIO`` and any
pre-registered credentials in ``MCP_CONFORMANCE_CONTEXT`` (JSON). Everything goes through
agent-tui's own code: ``mcp.adapter.connect`` (the transport, the handshake, the OAuth provider and
token store) and, for auth scenarios, ``mcp.login.loopback_sign_in`` (the one-shot redirect server
on 127.0.0.1). Only the browser is replaced: the authorization URL is fetched and its redirects
followed, which is what a browser does with an authorization server that needs no login page.
The token store lives in ``AGENT_TUI_STATE_DIR`` (a fresh temp dir per run, see the test).
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import sys
from pathlib import Path
from typing import Any

import httpx

from agent_tui.mcp.adapter import connect
from agent_tui.mcp.config import OAuthSettings, ServerConfig
from agent_tui.mcp.login import QuietHandlers, loopback_sign_in
from agent_tui.mcp.types import ElicitAnswer

CALL_TIMEOUT_S = (
    30.0  # a scenario's tool answers at once; the bound only keeps a fault from hanging
)

# The tool each non-auth scenario expects to be called, with its arguments.
TOOL_CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "tools_call": ("add_numbers", {"a": 5, "b": 3}),
    "sse-retry": ("test_reconnection", {}),
    "elicitation-sep1034-client-defaults": ("test_client_elicitation_defaults", {}),
}


class Handlers(QuietHandlers):
    """Accepts elicitation forms with the schema's defaults (what SEP-1034 checks); logs to stderr.

    Otherwise quiet, as a sign-in's handshake: URL elicitations declined, no sampling, no roots.
    """

    async def elicit(self, message: str, schema: dict[str, Any]) -> ElicitAnswer:
        properties = schema.get("properties", {})
        defaults = {k: v["default"] for k, v in properties.items() if "default" in v}
        return ElicitAnswer("accept", defaults)

    def log(self, text: str) -> None:
        print(text, file=sys.stderr)


async def fetch_like_a_browser(url: str) -> None:
    async with httpx.AsyncClient(follow_redirects=True, timeout=10) as client:
        await client.get(url)


def _oauth_settings(scenario: str) -> OAuthSettings:
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    if scenario.startswith("auth/client-credentials-"):
        key_file = ""
        if context.get("private_key_pem"):
            key_path = Path(os.environ["AGENT_TUI_STATE_DIR"]) / "client-key.pem"
            key_path.parent.mkdir(parents=True, exist_ok=True)
            key_path.write_text(context["private_key_pem"])
            key_file = str(key_path)
        return OAuthSettings(
            client_id=context.get("client_id", ""),
            client_secret=context.get("client_secret", ""),
            grant="client_credentials",
            private_key_file=key_file,
            signing_algorithm=context.get("signing_algorithm", "RS256"),
        )
    return OAuthSettings(
        client_id=context.get("client_id", ""),
        client_secret=context.get("client_secret", ""),
        # The suite's CIMD scenario expects this URL as the client ID (it fetches nothing).
        client_metadata_url="https://conformance-test.local/client-metadata.json",
    )


async def run(scenario: str, url: str) -> None:
    config = ServerConfig(name="conformance", type="http", url=url, oauth=_oauth_settings(scenario))
    errlog = io.StringIO()
    async with loopback_sign_in(lambda u: None, fetch_like_a_browser) as browser:
        async with connect(
            config, Handlers(), errlog=errlog, workspace=Path.cwd(), sign_in=browser
        ) as connection:
            tools = await connection.list_tools()
            if scenario in TOOL_CALLS:
                name, arguments = TOOL_CALLS[scenario]
                print(await connection.call_tool(name, arguments, timeout=CALL_TIMEOUT_S))
            elif scenario.startswith("auth/") and tools:
                # Auth scenarios check that an authorized request goes through (step-up: a call).
                print(await connection.call_tool(tools[0].name, {}, timeout=CALL_TIMEOUT_S))


def main() -> None:
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    asyncio.run(run(scenario, sys.argv[-1]))


if __name__ == "__main__":
    main()
