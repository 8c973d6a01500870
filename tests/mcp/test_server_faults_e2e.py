"""Servers that misbehave, through `agent-tui -p` and `agent-tui mcp` (issue 22 §6, §10).

Real stdio servers (tests/mcp/servers/noisy_server.py, env_server.py): one that prints lines that
are not JSON-RPC to stdout gives one note on stderr (the lines go to its log), not a traceback per
line; one whose entry is wrong (an undeclared ``${input:ID}``, an unset ``${VAR}``) fails alone
while the others start; one that exits says its exit status and the end of its stderr, with
control characters made visible.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tests.fakes.llm_server import FakeLLM
from tests.helpers import run_cli, run_on_fake
from tests.mcp.conftest import ENV_SERVER

NOISY_SERVER = Path(__file__).parent / "servers" / "noisy_server.py"


def stdio_entry(script: Path, env: dict[str, str] | None = None, **more: Any) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(script)], "env": env or {}, **more}


def agentrc(home: Path, servers: dict[str, dict[str, Any]], extra: str = "") -> None:
    """``home/.agentrc`` with ``servers`` as ``[mcp.servers.NAME]`` tables."""
    home.mkdir(parents=True, exist_ok=True)
    lines = [extra]
    for name, entry in servers.items():
        lines.append(f"[mcp.servers.{name}]")
        lines += [f"{key} = {json.dumps(value)}" for key, value in entry.items() if key != "env"]
        env = ", ".join(f"{k} = {json.dumps(v)}" for k, v in entry.get("env", {}).items())
        lines.append(f"env = {{ {env} }}")
    (home / ".agentrc").write_text("\n".join(lines) + "\n")


def mcp_cli(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> Any:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    full = {"HOME": str(tmp_path / "home"), "AGENT_TUI_STATE_DIR": str(tmp_path / "state")}
    return run_cli(ws, "mcp", *args, env={**full, **(env or {})})


def run_p(tmp_path: Path, fake_llm: FakeLLM, *extra: str, env: dict[str, str] | None = None) -> Any:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    return run_on_fake(
        ws,
        fake_llm,
        "-p",
        "go",
        "--output-format",
        "json",
        *extra,
        home=tmp_path / "home",
        state=tmp_path / "state",
        env=env,
    )


def echo_then_done(tool: str, text: str) -> list[dict[str, Any]]:
    return [
        {"tool_calls": [{"id": "c1", "name": tool, "input": {"text": text}}]},
        {"text": "done"},
    ]


def test_stray_stdout_lines_give_one_note_per_server_not_tracebacks(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    agentrc(tmp_path / "home", {"noisy": stdio_entry(NOISY_SERVER, {"NOISY_JUNK": "10"})})
    fake_llm.set_script(echo_then_done("mcp_noisy_echo", "still-works-551"))
    proc = run_p(tmp_path, fake_llm, "--allow-tool", "mcp_noisy_echo")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and "pydantic" not in proc.stderr
    notes = [line for line in proc.stderr.splitlines() if "noisy" in line]
    assert len(notes) == 1, proc.stderr
    assert "wrote 10 lines to stdout that are not JSON-RPC" in notes[0]
    assert "still-works-551" in json.dumps(fake_llm.requests[-1]["messages"][-1])
    log = (tmp_path / "state" / "logs" / "mcp-noisy.log").read_text()
    assert log.count("stdout line that is not JSON-RPC, ignored: starting up, step") == 10

    listed = mcp_cli(tmp_path, "list")
    assert listed.returncode == 0, listed.stderr
    assert "noisy" in listed.stdout and "running" in listed.stdout
    assert "Traceback" not in listed.stderr
    assert listed.stderr.count("wrote 10 lines to stdout") == 1, listed.stderr


def test_an_undeclared_input_fails_only_its_server(tmp_path: Path, fake_llm: FakeLLM) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / ".mcp.json").write_text(
        json.dumps(
            {"mcpServers": {"keyed": stdio_entry(ENV_SERVER, {"KEY": "${input:never-declared}"})}}
        )
    )
    agentrc(tmp_path / "home", {"good": stdio_entry(NOISY_SERVER)})
    fake_llm.set_script(echo_then_done("mcp_good_echo", "good-one-662"))
    proc = run_p(tmp_path, fake_llm, "--trust", "--allow-tool", "mcp_good_echo")
    assert proc.returncode == 0, proc.stderr
    assert "good-one-662" in json.dumps(fake_llm.requests[-1]["messages"][-1])
    offered = [tool["name"] for tool in fake_llm.requests[0]["tools"]]
    assert "mcp_good_echo" in offered and not any("keyed" in name for name in offered)
    [note] = [line for line in proc.stderr.splitlines() if "keyed" in line]
    assert "MCP server keyed failed: not started:" in note
    assert ".mcp.json: servers.keyed: uses ${input:never-declared}" in note

    listed = mcp_cli(tmp_path, "list", "--trust")
    assert listed.returncode == 0, listed.stderr
    rows = {line.split()[0]: line for line in listed.stdout.splitlines()}
    assert "running" in rows["good"] and "failed (not started:" in rows["keyed"]


def test_a_server_that_exits_says_its_status_and_stderr_made_visible(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    stderr = "loading\nline two\nError: \x1b]0;pwned\x07 config file missing\n"
    agentrc(
        tmp_path / "home",
        {"dead": stdio_entry(NOISY_SERVER, {"NOISY_EXIT": "3", "NOISY_STDERR": stderr})},
    )
    proc = mcp_cli(tmp_path, "tools", "dead")
    assert proc.returncode == 1
    assert "\x1b" not in proc.stderr and "\x07" not in proc.stderr
    assert "exited with status 3" in proc.stderr
    assert '"loading" | "line two" | "Error: ␛]0;pwned␇ config file missing"' in proc.stderr

    fake_llm.set_script([{"text": "ok"}])
    headless = run_p(tmp_path, fake_llm)
    assert headless.returncode == 0, headless.stderr
    [note] = [line for line in headless.stderr.splitlines() if "dead" in line]
    assert "exited with status 3" in note and "config file missing" in note
    assert "\x1b" not in headless.stderr


def test_claude_code_variables_expand_in_mcp_json(tmp_path: Path) -> None:
    """``.mcp.json`` written for Claude Code: ``${VAR}`` and ``${VAR:-default}`` expand (they were
    passed on literally, and the server got no credentials); ``${env:VAR}`` and ``${input:ID}`` still
    work; an unset ``${VAR}`` without a default fails that server alone, saying which."""
    ws = tmp_path / "ws"
    ws.mkdir()
    keyed = stdio_entry(
        ENV_SERVER,
        {
            "TOKEN": "${CC_TOKEN}",
            "REGION": "${CC_REGION:-eu-west}",
            "VSCODE_STYLE": "${env:CC_TOKEN}",
            "ASKED": "${input:asked}",
        },
    )
    keyed["args"].append("--user=${CC_USER:-nobody}")
    servers = {"keyed": keyed, "unset": stdio_entry(ENV_SERVER, {"K": "${CC_MISSING}"})}
    inputs = [{"id": "asked", "type": "promptString"}]
    (ws / ".mcp.json").write_text(json.dumps({"mcpServers": servers, "inputs": inputs}))
    env = {
        "HOME": str(tmp_path / "home"),
        "AGENT_TUI_STATE_DIR": str(tmp_path / "state"),
        "CC_TOKEN": "tok-773",
        "AGENT_TUI_INPUT_ASKED": "given-884",
    }

    def getenv(name: str) -> str:
        proc = run_cli(
            ws,
            "mcp",
            "call",
            "--trust",
            "keyed",
            "getenv",
            json.dumps({"name": name}),
            env=env,
        )
        assert proc.returncode == 0, proc.stderr
        return str(proc.stdout.strip())

    assert getenv("TOKEN") == "tok-773"
    assert getenv("REGION") == "eu-west"
    assert getenv("VSCODE_STYLE") == "tok-773"
    assert getenv("ASKED") == "given-884"
    argv = run_cli(ws, "mcp", "call", "--trust", "keyed", "argv", env=env)
    assert argv.stdout.strip() == "--user=nobody"

    listed = run_cli(ws, "mcp", "list", "--trust", env=env)
    rows = {line.split()[0]: line for line in listed.stdout.splitlines()}
    assert "running" in rows["keyed"]
    assert "servers.unset.env.K: ${CC_MISSING} is not set in the environment" in rows["unset"]
