"""What a real `agent-tui -p` process imports (issue 13 item 7): no UI, no SDK, no jsonschema.

Each run is a real subprocess against the fake LLM server with ``PYTHONPROFILEIMPORTTIME=1`` (the
environment form of ``python -X importtime``), whose report on stderr lists every module imported.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.fakes.llm_server import FakeLLM
from tests.helpers import run_cli

# A UI toolkit or an SDK on the -p path costs 0.1-3 s; jsonschema ~57 ms (valid input needs none);
# httpx ~45 ms (without a proxy the providers' own HTTP/1.1 client does the request).
FORBIDDEN = {
    "textual",
    "prompt_toolkit",
    "anthropic",
    "openai",
    "jsonschema",
    "rich",
    "pydantic",
    "httpx",
    "httpcore",
    "anyio",
}
NO_PROXY_ENV = {name: "" for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")} | {
    name.lower(): "" for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")
}
APIS = ["anthropic", "openai"]


def imported_modules(stderr: str) -> set[str]:
    names = set()
    for line in stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip())
    return names


def run_p(
    tmp_path: Path, fake: FakeLLM, api: str, prompt: str, *extra: str
) -> subprocess.CompletedProcess[str]:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    (ws / "main.py").write_text('print("marker-7f3a")\n')
    url = fake.url if api == "anthropic" else fake.openai_url
    key = "ANTHROPIC_API_KEY" if api == "anthropic" else "OPENAI_API_KEY"
    env = {
        "HOME": str(tmp_path / "home"),
        "AGENT_TUI_STATE_DIR": str(tmp_path / "state"),
        key: "test-key",
        "PYTHONPROFILEIMPORTTIME": "1",
        **NO_PROXY_ENV,
    }
    flags = ["--provider", api, "--base-url", url, "--model", "test-model"]
    return run_cli(ws, *flags, *extra, "-p", prompt, env=env, timeout=60)


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize(
    "with_config", [False, True], ids=["no-config", "user-and-workspace-config"]
)
def test_p_hello_imports_no_ui_no_sdk_and_no_jsonschema(
    tmp_path: Path, fake_llm: FakeLLM, api: str, with_config: bool
) -> None:
    if with_config:
        (tmp_path / "home").mkdir()
        (tmp_path / "home" / ".agentrc").write_text(
            '[model]\nmax_tokens = 4096\n[agent]\nmax_rounds = 30\n[ui]\ntheme = "light"\n'
        )
        (tmp_path / "ws").mkdir()
        (tmp_path / "ws" / ".agentrc").write_text("[model]\ntemperature = 0.5\n")
    fake_llm.set_script([{"text": "Hello there."}])
    proc = run_p(tmp_path, fake_llm, api, "hello")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Hello there." in proc.stdout
    modules = imported_modules(proc.stderr)
    assert "agent_tui.headless" in modules  # the report is there and covers our own modules
    assert FORBIDDEN & modules == set()


@pytest.mark.parametrize("api", APIS)
def test_a_tool_round_imports_no_jsonschema_for_valid_input(
    tmp_path: Path, fake_llm: FakeLLM, api: str
) -> None:
    fake_llm.set_script(
        [
            {"tool_calls": [{"id": "c1", "name": "read_file", "input": {"path": "main.py"}}]},
            {"text": "It prints hello."},
        ]
    )
    proc = run_p(tmp_path, fake_llm, api, "what does main.py do?")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "It prints hello." in proc.stdout
    assert "marker-7f3a" in str(fake_llm.requests[-1])  # the tool ran and its output was sent
    assert FORBIDDEN & imported_modules(proc.stderr) == set()


# Imported where they are used, never on the way to `-p hello`'s answer: uuid (with platform,
# ~1.5 ms) names remembered approvals and text-written calls, html (~1 ms) decodes entities in shown
# Markdown, difflib (~1 ms) makes edit diffs; bashlex is for terminal commands. Issue 23 item 3:
# tempfile (+ random, ~3 ms) makes a command's temp files (state files use os.open); logging.handlers
# (+ pickle, queue) was the log's rotation (logs.py has its own); tomllib (+ datetime, ~2 ms)
# reads an .agentrc, none here; secrets (+ hmac) named sessions (os.urandom does); ctypes.util
# finds a libc the interpreter lacks; hashlib (OpenSSL's digests, ~2 ms) hashes files and counts:
# the workspace's folder name takes SHA-256 from the interpreter's own module; mimetypes names a
# binary file; sessions.timeline (~2 ms) is for a resumed session only.
DEFERRED = {"uuid", "platform", "html", "difflib", "bashlex"} | {
    "tempfile",
    "random",
    "logging.handlers",
    "pickle",
    "queue",
    "tomllib",
    "datetime",
    "secrets",
    "hmac",
    "ctypes.util",
    "hashlib",
    "mimetypes",
    "agent_tui.sessions.timeline",
}


@pytest.mark.parametrize("api", APIS)
def test_p_hello_imports_none_of_the_deferred_modules(
    tmp_path: Path, fake_llm: FakeLLM, api: str
) -> None:
    fake_llm.set_script([{"text": "Hello there."}])
    proc = run_p(tmp_path, fake_llm, api, "hello")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Hello there." in proc.stdout
    modules = imported_modules(proc.stderr)
    assert "agent_tui.tools.terminal_process" in modules  # where uuid was imported
    assert DEFERRED & modules == set()


def test_a_terminal_command_round_imports_no_uuid(tmp_path: Path, fake_llm: FakeLLM) -> None:
    """A command's marker is random hex from os.urandom, as uuid4().hex[:12] was."""
    call = {"id": "c1", "name": "run_in_terminal", "input": {"command": "python3 main.py"}}
    fake_llm.set_script([{"tool_calls": [call]}, {"text": "It printed the marker."}])
    proc = run_p(tmp_path, fake_llm, "openai", "run main.py", "--yolo")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "marker-7f3a" in str(fake_llm.requests[-1])  # the command ran, its output was sent
    modules = imported_modules(proc.stderr)
    assert "bashlex.parser" in modules and {"uuid", "platform"} & modules == set()


def test_a_bad_config_value_still_exits_2_naming_file_key_and_reason(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    (tmp_path / "ws").mkdir()
    agentrc = tmp_path / "ws" / ".agentrc"
    for text, key, reason in [
        ('[model]\nmax_tokens = "lots"\n', "model.max_tokens", "is not of type 'integer'"),
        ("[model]\nmax_tokens = true\n", "model.max_tokens", "is not of type 'integer'"),
        ('[model]\nnmae = "x"\n', "model.nmae", "unknown key"),
        ("[agent]\nmax_rounds = 0\n", "agent.max_rounds", "less than the minimum"),
    ]:
        agentrc.write_text(text)
        proc = run_p(tmp_path, fake_llm, "openai", "hello")
        assert proc.returncode == 2, text
        message = proc.stderr.splitlines()[-1]
        assert str(agentrc) in message and key in message and reason in message, message
    assert fake_llm.requests == []


def test_the_app_paints_its_first_frame_without_jsonschema_or_httpx(tmp_path: Path) -> None:
    """The TUI's start (to the first frame) validates the config and builds the agent too."""
    import os
    import pty
    import select
    import sys

    ws = tmp_path / "ws"
    ws.mkdir()
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / ".agentrc").write_text('[ui]\ntheme = "light"\n')
    frame = tmp_path / "first_frame"
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("AGENT_TUI_") and not k.endswith(("_API_KEY", "_BASE_URL"))
    }
    env |= {
        "HOME": str(tmp_path / "home"),
        "AGENT_TUI_STATE_DIR": str(tmp_path / "state"),
        "AGENT_TUI_FIRST_FRAME_FILE": str(frame),
        "TERM": "xterm-256color",
        "PYTHONPROFILEIMPORTTIME": "1",
        **NO_PROXY_ENV,
    }
    master, slave = pty.openpty()
    report = tmp_path / "importtime.txt"
    with report.open("w") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "agent_tui"],
            cwd=ws,
            env=env,
            stdin=slave,
            stdout=slave,
            stderr=err,
        )
        os.close(slave)
        while proc.poll() is None:  # drain the terminal so the app never blocks writing to it
            if select.select([master], [], [], 0.05)[0]:
                try:
                    os.read(master, 65536)
                except OSError:
                    break
        proc.wait(timeout=60)
    os.close(master)
    assert frame.exists(), "the app never painted"
    modules = imported_modules(report.read_text(errors="replace"))
    assert "textual" in modules and "agent_tui.ui.app" in modules
    assert {"jsonschema", "httpx", "anthropic", "openai"} & modules == set()
