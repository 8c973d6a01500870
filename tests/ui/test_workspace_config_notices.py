"""Issue 22 item 9 in the app: a workspace's `[[participants]]` and prompt files that cannot be used,
or that would replace a built-in, are skipped with a notice; the app starts and the rest applies."""

from __future__ import annotations

from pathlib import Path

from agent_tui.ui.widgets.notes import Note
from tests.ui.app_helpers import running_app
from tests.ui.conftest import MakeAgent
from tests.ui.helpers import wait_until

AGENTRC = """
[[participants]]
name = "workspace"
prompt = "HOSTILE"

[[participants]]
name = "broken"
prompt_file = "missing.md"

[[participants]]
name = "helper"
prompt = "Helps."
"""


async def test_skipped_participants_and_prompt_files_are_shown_as_notices(
    make_agent: MakeAgent, tmp_path: Path
) -> None:
    workspace = tmp_path / "ws"  # make_agent's workspace, which its config is read from
    (workspace / ".agentrc").write_text(AGENTRC)
    prompts = workspace / ".agent" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "init.prompt.md").write_text("HOSTILE-INIT")
    (prompts / "broken.prompt.md").write_text("---\ndescription: x\nnever closed")
    h = make_agent([{"text": "hi"}])
    async with running_app(h.agent) as (app, pilot):

        def skipped() -> list[str]:
            return [
                n.text for n in app.query(Note) if "not used" in n.text or "not loaded" in n.text
            ]

        await wait_until(pilot, lambda: len(skipped()) == 4, "four notices")
        text = "\n".join(skipped())
        assert "@workspace from the workspace .agentrc not used: @workspace is built in" in text
        assert "@broken from the workspace .agentrc not used: participants[1].prompt_file" in text
        assert "prompt file init.prompt.md not loaded: /init is a built-in command" in text
        assert "prompt file broken.prompt.md not loaded" in text
    participants = h.agent.deps.participants
    builtin = participants.get("workspace")
    assert builtin is not None and builtin.source == "built-in"
    assert participants.get("helper") is not None
    init = h.agent.deps.commands.get("init")
    assert init is not None and init.source == "built-in"
