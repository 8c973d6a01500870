"""``/mcp add`` and ``/mcp remove`` in the app (issue 27 §8): the same code as ``agent-tui mcp
add``, then the server starts (or stops) in this session.

A real stdio MCP server (``tests/mcp/servers/env_server.py``) is added to the user's ``.agentrc``
while the app runs, with no MCP server configured before; its tools arrive; removing it stops it.
The file keeps its comments, and refused words leave it byte for byte as it was.
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

from agent_tui.commands.mcp_cmds import register_mcp_commands
from agent_tui.ui.app import AgentApp
from agent_tui.ui.widgets.notes import Note
from tests.ui.conftest import Harness, MakeAgent
from tests.ui.helpers import send, wait_idle, wait_until

ENV_SERVER = Path(__file__).parents[1] / "mcp" / "servers" / "env_server.py"
USER_RC = '# my settings, kept\n[ui]\ntheme = "dark"  # and this one\n'


def without_servers(make_agent: MakeAgent) -> Harness:
    """An agent with no MCP server and ``/mcp`` registered, as ``build.py`` makes it."""
    h = make_agent([{"text": "hello"}])
    register_mcp_commands(h.agent.deps.commands, None)
    assert h.agent.deps.mcp is None
    return h


def notes(app: AgentApp) -> list[str]:
    return [note.text for note in app.query(Note)]


async def test_mcp_add_starts_the_server_and_remove_stops_it(
    make_agent: MakeAgent, tmp_path: Path
) -> None:
    rc = tmp_path / "home" / ".agentrc"
    rc.write_text(USER_RC, encoding="utf-8")
    h = without_servers(make_agent)
    app = AgentApp(h.agent)
    try:
        async with app.run_test(size=(100, 32)) as pilot:
            await send(pilot, f"/mcp add envy -- {sys.executable} {ENV_SERVER} --flag")
            await wait_idle(pilot)
            await wait_until(pilot, lambda: h.agent.deps.mcp is not None, "a manager")
            manager = h.agent.deps.mcp
            assert manager is not None
            await wait_until(
                pilot, lambda: manager.servers["envy"].status == "running", "envy to start"
            )
            assert {t.name for t in manager.servers["envy"].tools} == {"getenv", "argv"}
            assert f"Added MCP server envy to {rc}" in notes(app)
            assert "Starting MCP server envy." in notes(app)
            text = rc.read_text(encoding="utf-8")
            assert text.startswith(USER_RC)  # the comments stay
            entry = tomllib.loads(text)["mcp"]["servers"]["envy"]
            assert entry == {"command": sys.executable, "args": [str(ENV_SERVER), "--flag"]}

            await send(pilot, "/mcp remove envy")
            await wait_idle(pilot)
            await wait_until(pilot, lambda: "envy" not in manager.servers, "envy removed")
            assert f"Removed MCP server envy from {rc}" in notes(app)
            assert "Stopped MCP server envy." in notes(app)
            assert rc.read_text(encoding="utf-8").startswith(USER_RC)
            assert "envy" not in rc.read_text(encoding="utf-8")
    finally:
        if h.agent.deps.mcp is not None:
            await h.agent.deps.mcp.aclose()


async def test_refused_words_show_an_error_and_leave_the_file_as_it_was(
    make_agent: MakeAgent, tmp_path: Path
) -> None:
    rc = tmp_path / "home" / ".agentrc"
    rc.write_text(USER_RC, encoding="utf-8")
    before = rc.read_bytes()
    h = without_servers(make_agent)
    app = AgentApp(h.agent)
    async with app.run_test(size=(100, 32)) as pilot:
        for words, error in [
            ("add nothing", "give the server's command after -- or its --url"),
            ("add x --bogus -- cmd", "/mcp add: unrecognized arguments: --bogus"),
            ("add x --env NOEQUALS -- cmd", "--env"),
            ('add-json x \'{"type": "carrier-pigeon"}\'', "carrier-pigeon"),
            ("add 'bad name' -- cmd", "server name 'bad name'"),
            ("remove ghost", "ghost"),
            ('add x -- sh -c "unclosed', "No closing quotation"),
        ]:
            await send(pilot, f"/mcp {words}")
            await wait_idle(pilot)
            shown = [n for n in app.query(Note) if n.level == "error"]
            assert shown and error in shown[-1].text, (words, [n.text for n in shown])
            assert rc.read_bytes() == before, words
            await shown[-1].remove()
        assert h.agent.deps.mcp is None
