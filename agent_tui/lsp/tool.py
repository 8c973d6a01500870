"""diagnostics: a file's errors and warnings now, from its language server (read-only).

Registered only when the session has a language server (``lsp/config.py``): never a tool with
nothing behind it.
"""

from __future__ import annotations

from typing import Any

from agent_tui.errors import ToolError
from agent_tui.events import Notice
from agent_tui.lsp.config import LspError
from agent_tui.lsp.manager import LspManager
from agent_tui.lsp.report import render
from agent_tui.tools.base import BaseTool, Manifest, Prepared, ToolContext, ToolResult


class DiagnosticsTool(BaseTool):
    """Ask the session's language servers about a file, or every file edited so far."""

    name = "diagnostics"

    def __init__(self, manifest: Manifest, manager: LspManager) -> None:
        super().__init__(manifest)
        self.manager = manager

    def prepare(self, input: dict[str, Any], ctx: ToolContext) -> Prepared:
        path = input.get("path")
        if path is None:
            return Prepared("Looking up diagnostics", "Looked up diagnostics")
        target = ctx.resolve(path)
        shown = ctx.relative(target)
        return Prepared(
            f"Looking up diagnostics of {shown}",
            f"Looked up diagnostics of {shown}",
            paths=(target,),
        )

    async def invoke(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        path = input.get("path")
        target = ctx.resolve(path) if path is not None else None
        if target is not None and not target.is_file():
            raise ToolError(f"{path} is not a file: give the path of a file in the workspace.")
        try:
            problems = await self.manager.problems(target)
        except LspError as exc:
            raise ToolError(f"No diagnostics for {path}: {exc}.") from exc
        finally:
            for notice in self.manager.take_notices():
                if ctx.on_event is not None:
                    ctx.on_event(Notice(notice, "warning"))
        if problems:
            return ToolResult(render(problems))
        if target is None and not self.manager.has_open_files():
            return ToolResult("No file has been checked yet: give a path.")
        where = ctx.relative(target) if target is not None else "the files checked so far"
        return ToolResult(f"No errors or warnings in {where}.")
