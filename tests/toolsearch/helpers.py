"""Helpers for the tool-search tests and benchmark: the catalog server in an ``.agentrc``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

CATALOG_SERVER = Path(__file__).parent / "catalog_server.py"


def catalog_agentrc(tools: int, marks: Path, extra: str = "") -> str:
    """An ``.agentrc`` with the catalog server (``tools`` tools) as ``[mcp.servers.catalog]``."""
    env = f'CATALOG_TOOLS = "{tools}", CATALOG_DIR = {json.dumps(str(marks))}'
    return (
        f"[mcp.servers.catalog]\ncommand = {json.dumps(sys.executable)}\n"
        f"args = [{json.dumps(str(CATALOG_SERVER))}]\nenv = {{ {env} }}\n\n{extra}"
    )


def offered(request: dict[str, Any]) -> list[str]:
    """The tool names a request (either API) offered."""
    return [tool.get("name") or tool["function"]["name"] for tool in request.get("tools", [])]


def system_text(request: dict[str, Any]) -> str:
    """The system prompt of a request in either API's shape."""
    system = request.get("system", "")
    if isinstance(system, list):
        system = "".join(part.get("text", "") for part in system)
    if system:
        return str(system)
    return next(
        (str(m["content"]) for m in request.get("messages", []) if m["role"] == "system"), ""
    )


def prompt_chars(request: dict[str, Any]) -> int:
    """The instructions and tool schemas of a request, in characters (bench_rounds' measure)."""
    return len(system_text(request)) + len(json.dumps(request.get("tools", [])))
