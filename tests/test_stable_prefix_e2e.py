"""A local server's prompt cache (issue 28.5): the system message and the tools are the same for
every folder and every turn; what changes (the workspace root, its instructions, this turn's tool
hints) comes after them. Real `agent-tui -p` runs against the fake server speaking llama.cpp."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from tests.fakes.llm_server import FakeLLM
from tests.helpers import run_on_api


def run_in(folder: Path, fake: FakeLLM, prompt: str) -> subprocess.CompletedProcess[str]:
    folder.mkdir(parents=True, exist_ok=True)
    proc: subprocess.CompletedProcess[str] = run_on_api(
        folder, fake, "openai", "-p", prompt, key="k"
    )
    assert proc.returncode == 0, proc.stderr
    return proc


def text_of(message: dict[str, Any]) -> str:
    content = message["content"]
    if isinstance(content, str):
        return content
    return "\n".join(part.get("text", "") for part in content)


def prefix(body: dict[str, Any]) -> tuple[str, str]:
    """The request's cached prefix: the system message and the tool schemas."""
    system = body["messages"][0]
    assert system["role"] == "system"
    return text_of(system), json.dumps(body["tools"], sort_keys=True)


def test_the_prefix_is_the_same_in_every_folder_and_round(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    fake_llm.context_flavour = "llamacpp"  # a local server: it states its window
    one, two = tmp_path / "one" / "ws", tmp_path / "two" / "project"
    (two / "AGENTS.md").parent.mkdir(parents=True)
    (two / "AGENTS.md").write_text("Always answer in French.\n")
    fake_llm.set_script(
        [
            {"tool_calls": [{"id": "c1", "name": "list_dir", "input": {"path": "."}}]},
            {"text": "done one"},
            {"text": "done two"},
        ]
    )
    run_in(one, fake_llm, "look around")
    run_in(two, fake_llm, "say hi #read_file")
    first, follow_up, other_folder = fake_llm.requests
    assert prefix(first) == prefix(follow_up) == prefix(other_folder)
    system = prefix(first)[0]
    assert str(one) not in system and "Workspace root" not in system
    # The folder's part leads the conversation's first request, marked as context.
    opening = text_of(first["messages"][1])
    assert opening.startswith("<context>\n# Environment\nWorkspace root: ")
    assert str(one.resolve()) in opening and opening.endswith("look around")
    assert text_of(follow_up["messages"][1]) == opening  # the next round shares it too
    other = text_of(other_folder["messages"][1])
    assert str(two.resolve()) in other and "Always answer in French." in other
    # This turn's tool hint comes with this turn's request, after the folder's part.
    assert "# This turn\nThe user asked you to use these tools in this turn: `read_file`" in other
    assert other.index("# Environment") < other.index("# This turn")


def test_a_hosted_server_keeps_the_environment_in_the_system_prompt(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    fake_llm.set_script([{"text": "hi"}])  # no window stated: not treated as a local server
    run_in(tmp_path / "ws", fake_llm, "hello")
    (request,) = fake_llm.requests
    system, _ = prefix(request)
    assert "Workspace root: " in system
    assert text_of(request["messages"][1]) == "hello"
