"""The OpenAI Responses API wire format of the openai provider (``POST {base_url}/responses``).

``[model] wire_api = "responses"`` (the default for api.openai.com; ``"chat"`` elsewhere). OpenAI's
coding models (the gpt-5-codex class) are served only here. Requests are stateless: ``store:
false``, the whole conversation in ``input`` each time, and reasoning items carried back with their
``encrypted_content`` (``include: ["reasoning.encrypted_content"]``), as Codex does.
The SDK transport uses ``client.responses.stream``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from agent_tui.conversation import (
    ImageBlock,
    Message,
    ServerToolBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from agent_tui.identity_cache import IdentityCache
from agent_tui.providers.api import Reducer, sdk_kwargs, translate_sdk_errors
from agent_tui.providers.base import ProviderRequest
from agent_tui.providers.openai import OpenAIProvider
from agent_tui.providers.responses_reduce import ResponsesReducer
from agent_tui.providers.web_search import RESPONSES_SOURCES


def image_url(image: ImageBlock) -> str:
    return f"data:{image.media_type};base64,{image.data}"


def _input_image(image: ImageBlock) -> dict[str, Any]:
    return {"type": "input_image", "image_url": image_url(image), "detail": "auto"}


def _tool_output(block: ToolResultBlock) -> dict[str, Any]:
    # Responses has no is_error flag either: say it in the output.
    text = f"Error: {block.content}" if block.is_error else block.content
    output: str | list[dict[str, Any]] = text
    if block.images:
        output = [{"type": "input_text", "text": text}, *map(_input_image, block.images)]
    return {"type": "function_call_output", "call_id": block.tool_use_id, "output": output}


def input_items(message: Message) -> list[dict[str, Any]]:
    """One conversation message as Responses ``input`` items."""
    items: list[dict[str, Any]] = []
    if message.role == "assistant":
        for block in message.content:
            if isinstance(block, ThinkingBlock) and block.encrypted:
                # No id: with store false the server keeps nothing to look it up by (Codex
                # leaves it out too); the encrypted content is the reasoning itself.
                summary = [{"type": "summary_text", "text": block.text}] if block.text else []
                items.append(
                    {"type": "reasoning", "summary": summary, "encrypted_content": block.encrypted}
                )
            elif isinstance(block, TextBlock) and block.text.strip():
                said = [{"type": "output_text", "text": block.text}]
                items.append({"type": "message", "role": "assistant", "content": said})
            elif isinstance(block, ServerToolBlock) and block.api == "responses":
                items.append(dict(block.raw))  # a web_search_call, as it came
            elif isinstance(block, ToolUseBlock):
                arguments = json.dumps(block.input)
                items.append(
                    {
                        "type": "function_call",
                        "call_id": block.id,
                        "name": block.name,
                        "arguments": arguments,
                    }
                )
        return items
    items.extend(_tool_output(b) for b in message.content if isinstance(b, ToolResultBlock))
    content: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, TextBlock) and block.text.strip():
            content.append({"type": "input_text", "text": block.text})
        elif isinstance(block, ImageBlock):
            content.append(_input_image(block))
    if content:
        items.append({"type": "message", "role": "user", "content": content})
    return items


# Each message's input items, built once: every round sends the whole conversation again. The
# dicts are shared by the requests that carry the message, so nothing may change them once built.
_ITEMS: IdentityCache[Message, list[dict[str, Any]]] = IdentityCache()


def responses_body(request: ProviderRequest) -> dict[str, Any]:
    """The streaming request body for ``/responses``."""
    items: list[dict[str, Any]] = []
    for message in request.messages:
        items.extend(_ITEMS.get(message, input_items))
    body: dict[str, Any] = {
        "model": request.model,
        "input": items,
        "stream": True,
        "store": False,
        "include": ["reasoning.encrypted_content"],
        "max_output_tokens": request.max_tokens,
    }
    if request.system:
        body["instructions"] = request.system
    tools: list[dict[str, Any]] = [
        {
            "type": "function",
            "name": t.name,
            "description": t.description,
            "parameters": t.input_schema,
            "strict": False,  # strict needs every property required: our schemas are not
        }
        for t in request.tools
    ]
    if request.web_search_uses:  # the Responses tool has no per-request limit
        tools.append({"type": "web_search"})
        body["include"].append(RESPONSES_SOURCES)
    if tools:
        body["tools"] = tools
        body["tool_choice"] = "auto"
        body["parallel_tool_calls"] = True
    if request.temperature is not None:
        body["temperature"] = request.temperature
    if request.reasoning_effort:
        # Only when configured: models without reasoning reject the parameter.
        body["reasoning"] = {"effort": request.reasoning_effort, "summary": "auto"}
    return body


class ResponsesProvider(OpenAIProvider):
    """Streams from the OpenAI Responses API (or a server speaking it)."""

    path = "/responses"
    server_web_search = True  # the web_search tool

    def build_body(self, request: ProviderRequest) -> dict[str, Any]:
        return responses_body(request)

    def new_reducer(self) -> Reducer:
        return ResponsesReducer()

    async def sdk_events(
        self, body: dict[str, Any], key: str | None
    ) -> AsyncIterator[dict[str, Any]]:
        import openai  # only when transport = "sdk"

        client = self._openai_client(openai, key)
        stream_body = {k: v for k, v in body.items() if k != "stream"}  # stream() sets it

        async def raw_events() -> AsyncIterator[Any]:
            manager = client.responses.stream(**sdk_kwargs(client.responses.stream, stream_body))
            async with manager as stream:
                async for event in stream:
                    yield event

        def error_event(body: Any) -> dict[str, Any]:
            message = body.get("message") if isinstance(body, dict) else None
            return {"type": "error", "message": str(message or body)}

        async for event in translate_sdk_errors(openai, raw_events(), error_event):
            yield event
