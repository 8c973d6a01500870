"""MCP tools as agent tools: ``mcp_<server>_<tool>`` with a manifest and a Tool object (DESIGN §4).

The loop validates the input against the server's ``inputSchema`` (the manifest's input_schema),
asks the approval engine (``readOnlyHint`` tools are kind ``read``, so they skip confirmation), then
calls ``invoke``, which forwards to the server through the manager.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import TYPE_CHECKING, Any

from agent_tui.conversation import ImageBlock
from agent_tui.errors import McpError, ToolError
from agent_tui.images import ImageError, image_from_base64
from agent_tui.mcp.types import CallOutcome, Part, ToolInfo
from agent_tui.tools.base import Confirmation, Manifest, Prepared, ToolContext, ToolResult

if TYPE_CHECKING:
    from agent_tui.mcp.manager import McpManager

MAX_NAME = 64  # the tool-name limit of the Anthropic and OpenAI APIs
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def source_of(server: str) -> str:
    """The Manifest.source of a server's tools (what a whole-server grant should key on)."""
    return f"mcp:{server}"


def tool_name(server: str, tool: str) -> str:
    """``mcp_<server>_<tool>`` sanitised to ``[A-Za-z0-9_-]`` and at most 64 characters.

    A name that has to be shortened keeps its start and gets a hash of the full name, so two long
    tools of one server still get distinct names.
    """
    name = _UNSAFE.sub("_", f"mcp_{server}_{tool}")
    if len(name) <= MAX_NAME:
        return name
    digest = hashlib.sha1(name.encode()).hexdigest()[:8]
    return f"{name[: MAX_NAME - 9]}_{digest}"


def _object_schema(schema: dict[str, Any]) -> dict[str, Any]:
    # The model APIs require an object schema at the top; some servers send {} for "no input".
    if schema.get("type") != "object":
        return {
            "type": "object",
            "properties": {},
            **{k: v for k, v in schema.items() if k != "type"},
        }
    return schema


def build_manifest(server: str, tool: ToolInfo) -> Manifest:
    name = tool_name(server, tool.name)
    description = tool.description or f"The `{tool.name}` tool of the MCP server `{server}`."
    return Manifest(
        name=name,
        display_name=tool.title or tool.name,
        tool_reference_name=name,
        user_description=description.splitlines()[0] if description else "",
        model_description=description,
        input_schema=_object_schema(tool.input_schema),
        kind="read" if tool.read_only_hint else "execute",
        tags=("mcp", server),
        read_only_hint=tool.read_only_hint,
        source=source_of(server),
        title=tool.title,
    )


def to_tool_result(outcome: CallOutcome) -> ToolResult:
    """Turn a server's answer into what the model sees; ``structuredContent`` is kept in ``data``."""
    texts: list[str] = []
    images: list[ImageBlock] = []
    for part in outcome.parts:
        image = _image(part)
        if image is not None:
            images.append(image)
        else:
            texts.append(part.render())
    data: dict[str, Any] = {}
    if outcome.structured is not None:
        # Checked against the tool's outputSchema by the SDK (a mismatch is an error result).
        data["structured_content"] = outcome.structured
        # Servers are asked to mirror structuredContent as text; added after the content unless
        # a text block already holds exactly it (no need to send it twice).
        if not any(_same_json(part.text, outcome.structured) for part in outcome.parts):
            texts.append(json.dumps(outcome.structured, ensure_ascii=False))
    content = "\n".join(texts) or (
        "(the tool reported an error)" if outcome.is_error else "(no output)"
    )
    if images and not texts:
        content = f"({len(images)} image{'s' if len(images) > 1 else ''} attached)"
    return ToolResult(content=content, is_error=outcome.is_error, data=data, images=tuple(images))


def _image(part: Part) -> ImageBlock | None:
    """An image part the model can be shown (a known type within the size limit), else None:
    the part then goes as its ``[image: …]`` text."""
    if part.kind != "image" or not part.data:
        return None
    try:
        return image_from_base64(part.data, part.mime)
    except ImageError:
        return None


def _same_json(text: str, value: Any) -> bool:
    """Whether ``text`` already says ``value``: the same JSON, or the one value of a wrapper
    (the SDK's servers send a tool's plain return value as ``{"result": value}``)."""
    if isinstance(value, dict) and len(value) == 1:
        [only] = value.values()
        if text == (only if isinstance(only, str) else json.dumps(only)):
            return True
    if not text.lstrip().startswith(("{", "[")):
        return False
    try:
        return bool(json.loads(text) == value)
    except ValueError:
        return False


class McpTool:
    """One server tool, invoked through the manager (which owns the connection)."""

    def __init__(self, manifest: Manifest, manager: McpManager, server: str, tool: str) -> None:
        self.manifest = manifest
        self.manager = manager
        self.server = server
        self.tool = tool

    def prepare(self, input: dict[str, Any], ctx: ToolContext) -> Prepared:
        label = self.manifest.display_name
        arguments = json.dumps(input, indent=2, ensure_ascii=False)
        return Prepared(
            invocation_message=f"Running {label} ({self.server})",
            past_tense_message=f"Ran {label} ({self.server})",
            confirmation=Confirmation(
                title=f"Run `{self.tool}` from MCP server `{self.server}`?",
                message=(
                    f"**Server:** `{self.server}`  \n**Tool:** `{self.tool}`\n\n"
                    f"```json\n{arguments}\n```"
                ),
            ),
        )

    async def invoke(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        try:
            outcome = await self.manager.call_tool(
                self.server, self.tool, input, on_progress=ctx.on_progress
            )
        except McpError as exc:
            raise ToolError(
                f"The MCP server `{self.server}` failed: {exc}. The user can restart it with "
                f"`/mcp restart {self.server}`; do not retry until then."
            ) from exc
        return to_tool_result(outcome)
