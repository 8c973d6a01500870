"""Does a run fit a dense-token server? (issue 11.4: chars/4 undercounts numeric text.)

A llama.cpp-style fake server with ``n_ctx`` 8192 counts 2.5 characters a token; the user's
``.agentrc`` says ``context_window = 8192``. The model reads a numeric file four times. Prints the
exit code, the tokens the server counted for each request, and what was pruned, for the agent-tui
source tree given (default: this one), so a tree before and after a change can be compared:

    .venv/bin/python bench/bench_context_fit.py [SOURCE_TREE]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fakes.llm_server import FakeLLM  # noqa: E402

CHARS_PER_TOKEN = 2.5
N_CTX = 8192


def main() -> None:
    source = sys.argv[1] if len(sys.argv) > 1 else str(ROOT)
    tmp = Path(tempfile.mkdtemp(prefix="agent-tui-bench-"))
    ws, home = tmp / "ws", tmp / "home"
    ws.mkdir()
    home.mkdir()
    (ws / "data.txt").write_text("".join(f"{n},{n * 7}\n" for n in range(400)))
    (home / ".agentrc").write_text(f"[model]\ncontext_window = {N_CTX}\nmax_tokens = 256\n")
    read = {"name": "read_file", "input": {"path": "data.txt"}}
    script = [{"tool_calls": [{"id": f"r{n}", **read}]} for n in range(4)] + [{"text": "done"}]
    env = {
        **os.environ,
        "PYTHONPATH": source,
        "HOME": str(home),
        "AGENT_TUI_USER_CONFIG": str(home / ".agentrc"),
        "AGENT_TUI_STATE_DIR": str(tmp / "state"),
        "OPENAI_API_KEY": "sk-bench",
    }
    with FakeLLM(
        script, context_limit=N_CTX, overflow_style="llamacpp", chars_per_token=CHARS_PER_TOKEN
    ) as fake:
        url = fake.openai_url
        args = [
            "--provider",
            "openai",
            "--base-url",
            url,
            "--model",
            "m",
            "--output-format",
            "json",
        ]
        proc = subprocess.run(
            [sys.executable, "-m", "agent_tui", *args, "-p", "read data.txt four times"],
            cwd=ws,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        counted = [int(len(json.dumps(body)) / CHARS_PER_TOKEN) for body in fake.requests]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    print(f"source: {source}")
    print(f"exit code: {proc.returncode}; n_ctx {N_CTX}; server-counted tokens: {counted}")
    print(f"pruned: {result['pruned']}; errors: {[e[:80] for e in result['errors']]}")


if __name__ == "__main__":
    main()
