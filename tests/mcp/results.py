"""Helpers for tests that run ``agent-tui`` with the results server (tests/mcp/servers)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

RESULTS_SERVER = Path(__file__).parent / "servers" / "results_server.py"


def results_agentrc(home: Path, *, env: dict[str, str] | None = None, extra: str = "") -> None:
    """Write ``home/.agentrc`` with the results server as ``[mcp.servers.results]``.

    Args:
        env: the server's environment (``RESULTS_TOOLS``, ``RESULTS_DIR``).
        extra: more lines after the server's table (other sections).
    """
    home.mkdir(parents=True, exist_ok=True)
    inline = ", ".join(f"{k} = {json.dumps(v)}" for k, v in (env or {}).items())
    (home / ".agentrc").write_text(
        f"[mcp.servers.results]\ncommand = {json.dumps(sys.executable)}\n"
        f"args = [{json.dumps(str(RESULTS_SERVER))}]\nenv = {{ {inline} }}\n\n{extra}"
    )
