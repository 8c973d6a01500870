"""`/status`, `/context`, `/cost` and `[agent] max_cost` through `agent-tui -p` against the fake
LLM server (issue 27 item 3)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.fakes.llm_server import FakeLLM
from tests.helpers import last_json, new_workspace, run_on_api, run_on_fake
from tests.mcp.conftest import everything_home, everything_js  # noqa: F401  (fixture)

# gpt-4.1-mini's list price (agent/pricing.py): $0.40 in, $1.60 out per million tokens.
PRICED = "gpt-4.1-mini"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return new_workspace(tmp_path, {"main.py": 'print("hi")\n', "AGENTS.md": "Use tabs.\n" * 50})


def run(
    ws: Path, fake: FakeLLM, *args: str, model: str = PRICED, rc: str | None = None
) -> subprocess.CompletedProcess[str]:
    return run_on_api(ws, fake, "openai", *args, key="sk-test", model=model, rc=rc)


def _read_twice(usage: dict[str, int]) -> list[dict[str, object]]:
    """Two rounds: a read_file call (with ``usage``), then an answer."""
    call = {"id": "c1", "name": "read_file", "input": {"path": "main.py"}}
    return [{"tool_calls": [call], "usage": usage}, {"text": "It prints hi."}]


def test_status_names_model_endpoint_mode_sandbox_workspace_session_and_mcp(
    tmp_path: Path,
    fake_llm: FakeLLM,
    everything_js: Path,  # noqa: F811
) -> None:
    home = everything_home(tmp_path / "home", everything_js)
    ws = new_workspace(tmp_path)
    proc = run_on_fake(
        ws,
        fake_llm,
        "-p",
        "/status",
        "--output-format",
        "json",
        "--model",
        "test-model",
        "--mode",
        "plan",
        home=home,
        state=tmp_path / "state",
    )
    assert proc.returncode == 0, proc.stderr
    result = last_json(proc)
    text = str(result["result"])
    port = fake_llm.url.rsplit(":", 1)[1].rstrip("/")
    assert "**Model:** `test-model` (anthropic)" in text
    assert f"**Endpoint:** `127.0.0.1:{port}`" in text
    assert "**Mode:** plan" in text
    assert "**Sandbox:**" in text
    assert f"**Workspace:** `{ws.resolve()}`" in text
    assert f"**Session:** `{result['session_id']}`" in text
    assert str(tmp_path / "state") in text  # the session file lives in the state dir
    assert re.search(r"`everything`: running, \d+ tools", text), text
    assert fake_llm.requests == []  # answered without the model


def test_context_counts_instructions_tools_and_the_room_left(ws: Path, fake_llm: FakeLLM) -> None:
    proc = run(ws, fake_llm, "-p", "/context")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert re.search(r"\| system: instructions files \(AGENTS\.md\) \| 1[0-9]{2} \|", out), out
    assert re.search(
        r"\| tools: built-in tool schemas \(\d+; \d+ more found with tool_search\) \| [\d,]+ \|",
        out,
    )
    assert "tokens are left before automatic compaction" in out
    assert fake_llm.requests == []


def test_context_with_compaction_off_says_what_is_left_before_pruning(
    ws: Path, fake_llm: FakeLLM
) -> None:
    proc = run(ws, fake_llm, "-p", "/context", rc="[agent]\ncompact_at = 0\n")
    assert proc.returncode == 0, proc.stderr
    assert "Automatic compaction is off" in proc.stdout
    assert "left before older turns are pruned" in proc.stdout


def test_cost_under_p_is_a_table_and_its_figures_are_the_commands_data(
    ws: Path, fake_llm: FakeLLM
) -> None:
    proc = run(ws, fake_llm, "-p", "/cost", "--output-format", "stream-json", "--max-cost", "2")
    assert proc.returncode == 0, proc.stderr
    handled = [
        json.loads(line)
        for line in proc.stdout.splitlines()
        if json.loads(line).get("type") == "command_handled"
    ]
    assert len(handled) == 1
    data = handled[0]["data"]
    assert data["model"] == PRICED and data["max_cost_usd"] == 2.0
    assert data["session"]["input_tokens"] == 0 and data["session_cost_usd"] == 0.0
    assert "| session | 0 | 0 | 0 | 0 | $0.0000 |" in handled[0]["message"]


def test_json_result_carries_the_runs_tokens_cached_and_cost(ws: Path, fake_llm: FakeLLM) -> None:
    usage = {"input_tokens": 60_000, "output_tokens": 10_000, "cache_read_tokens": 40_000}
    fake_llm.set_script([{"text": "done", "usage": usage}])
    proc = run_on_api(
        ws,
        fake_llm,
        "anthropic",
        "-p",
        "go",
        "--output-format",
        "json",
        key="k",
        model="claude-haiku-4-5",
    )
    assert proc.returncode == 0, proc.stderr
    result = last_json(proc)
    assert result["usage"]["input_tokens"] == 60_000
    assert result["usage"]["output_tokens"] == 10_000
    assert result["usage"]["cache_read_tokens"] == 40_000
    # $1 in, $5 out per million; cached tokens count as input (as /cost says).
    assert result["cost_usd"] == pytest.approx((100_000 * 1.0 + 10_000 * 5.0) / 1e6)


@pytest.mark.parametrize("how", ["flag", "config"])
def test_max_cost_stops_before_the_request_that_would_pass_it(
    ws: Path, fake_llm: FakeLLM, how: str
) -> None:
    # The first answer costs $0.40 + output: the second request would pass $0.30.
    fake_llm.set_script(_read_twice({"input_tokens": 1_000_000, "output_tokens": 10}))
    limit = ("--max-cost", "0.3") if how == "flag" else ()
    rc = "[agent]\nmax_cost = 0.3\n" if how == "config" else None
    proc = run(ws, fake_llm, "-p", "read main.py", *limit, "--output-format", "json", rc=rc)
    assert proc.returncode == 4, proc.stderr
    assert len(fake_llm.requests) == 1  # stopped before the second request
    result = last_json(proc)
    assert "would pass max_cost $0.3" in result["errors"][0]
    assert "--max-cost" in result["errors"][0]
    assert result["cost_usd"] == pytest.approx(0.400016)


def test_max_cost_within_the_budget_lets_the_run_finish(ws: Path, fake_llm: FakeLLM) -> None:
    fake_llm.set_script(_read_twice({"input_tokens": 1_000, "output_tokens": 10}))
    proc = run(ws, fake_llm, "-p", "read main.py", "--max-cost", "0.3")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "It prints hi.\n"
    assert len(fake_llm.requests) == 2


def test_max_cost_on_a_model_without_a_price_says_it_is_not_enforced(
    ws: Path, fake_llm: FakeLLM
) -> None:
    fake_llm.set_script(_read_twice({"input_tokens": 1_000_000, "output_tokens": 10}))
    proc = run(ws, fake_llm, "-p", "read main.py", "--max-cost", "0.3", model="test-model")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count("max_cost $0.3 is not enforced: no price is known") == 1
    assert len(fake_llm.requests) == 2


def test_an_untrusted_workspace_cannot_set_max_cost(ws: Path, fake_llm: FakeLLM) -> None:
    (ws / ".agentrc").write_text("[agent]\nmax_cost = 0.3\n")
    fake_llm.set_script(_read_twice({"input_tokens": 1_000_000, "output_tokens": 10}))
    proc = run(ws, fake_llm, "-p", "read main.py")
    assert proc.returncode == 0, proc.stderr
    assert "agent.max_cost" in proc.stderr  # named among the settings ignored until trusted
    assert len(fake_llm.requests) == 2
