"""The conformance suite's client command for the sign-in end-to-end test (test_oauth_cli.py).

    python -m tests.mcp.conformance_login <server-url>

Drives the installed CLI as a user would, against the suite's protected server: writes the user's
config naming the server ``conf``, runs ``agent-tui mcp login conf`` (the browser is
``tests/mcp/fake_browser.py`` through ``$BROWSER``), then ``agent-tui -p`` with the scripted model
calling the server's tool: the background start must use the stored token without a browser.
Everything else (where the config and state live) comes from the test's environment.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def agent_tui(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "agent_tui", *args]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60, check=False)
    print(f"$ agent-tui {' '.join(args)} -> {done.returncode}\n{done.stdout}{done.stderr}")
    return done


def main() -> int:
    url = sys.argv[-1]
    work = Path(os.environ["LOGIN_E2E_DIR"])
    Path(os.environ["AGENT_TUI_USER_CONFIG"]).write_text(f'[mcp.servers.conf]\nurl = "{url}"\n')
    script = work / "script.json"
    script.write_text(
        json.dumps(
            [
                {"tool_calls": [{"id": "c1", "name": "mcp_conf_test-tool", "input": {}}]},
                {"text": "done"},
            ]
        )
    )
    env = {**os.environ, "BROWSER": f"{sys.executable} -m tests.mcp.fake_browser %s"}
    login = agent_tui("mcp", "login", "conf", env=env)
    (work / "login.out").write_text(login.stdout + login.stderr)
    if login.returncode != 0:
        return 1
    env.pop("BROWSER")  # a background start must not need one
    run = agent_tui(
        "-p",
        "call the tool",
        "--script",
        str(script),
        "--allow-tool",
        "mcp_conf_test-tool",
        "--output-format",
        "json",
        "-C",
        str(work),
        env=env,
    )
    (work / "run.out").write_text(run.stdout + run.stderr)
    return run.returncode


if __name__ == "__main__":
    sys.exit(main())
