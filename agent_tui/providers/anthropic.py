"""The Anthropic Messages API provider (``POST {base_url}/v1/messages``, streaming).

The base URL leaves out ``/v1`` (``https://api.anthropic.com``), as the ``anthropic`` SDK expects.
Thinking blocks go back to the API with their signatures: with extended thinking on, the API
requires them in the assistant turns of a tool-use loop. The SDK is imported only by
:meth:`AnthropicProvider.sdk_events` (``transport = "sdk"``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from agent_tui.conversation import (
    Block,
    ImageBlock,
    Message,
    ServerToolBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from agent_tui.identity_cache import IdentityCache
from agent_tui.providers.anthropic_reduce import AnthropicReducer
from agent_tui.providers.api import ApiProvider, Reducer, sdk_kwargs, translate_sdk_errors
from agent_tui.providers.base import ProviderRequest
from agent_tui.providers.web_search import anthropic_tool

API_VERSION = "2023-06-01"
_CACHE = {"type": "ephemeral"}
# Each message's wire blocks, built once: every round sends the whole conversation again. The
# dicts are shared by the requests that carry the message, so nothing may change them once built.
_WIRE_BLOCKS: IdentityCache[Message, tuple[dict[str, Any], ...]] = IdentityCache()


def wire_block(block: Block) -> dict[str, Any] | None:
    """One conversation block as an Anthropic content block (None: leave it out)."""
    if isinstance(block, TextBlock):
        # The API rejects empty and whitespace-only text blocks (e.g. after a cancelled turn).
        return {"type": "text", "text": block.text} if block.text.strip() else None
    if isinstance(block, ThinkingBlock):
        if block.redacted:
            return {"type": "redacted_thinking", "data": block.redacted}
        # Unsigned thinking cannot be verified by the API; it would reject the request.
        if not block.signature:
            return None
        return {"type": "thinking", "thinking": block.text, "signature": block.signature}
    if isinstance(block, ImageBlock):
        return _image(block)
    if isinstance(block, ServerToolBlock):  # web search: back as it came, to this API only
        return dict(block.raw) if block.api == "anthropic" else None
    if isinstance(block, ToolUseBlock):
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
    if isinstance(block, ToolResultBlock):
        content: str | list[dict[str, Any]] = block.content
        if block.images:  # the API takes image blocks inside a tool_result
            text = [{"type": "text", "text": block.content}] if block.content.strip() else []
            content = [*text, *map(_image, block.images)]
        result: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": block.tool_use_id,
            "content": content,
        }
        if block.is_error:
            result["is_error"] = True
        return result
    return None


def _image(image: ImageBlock) -> dict[str, Any]:
    source = {"type": "base64", "media_type": image.media_type, "data": image.data}
    return {"type": "image", "source": source}


def wire_messages(messages: list[Message]) -> list[dict[str, Any]]:
    """The conversation as Anthropic messages; messages left with no content are dropped."""
    out = []
    for message in messages:
        # A fresh list around the shared blocks: the last one is swapped for its cached copy.
        blocks = list(_WIRE_BLOCKS.get(message, _wire_blocks))
        if blocks:
            out.append({"role": message.role, "content": blocks})
    return out


def _wire_blocks(message: Message) -> tuple[dict[str, Any], ...]:
    return tuple(b for b in map(wire_block, message.content) if b is not None)


def messages_body(request: ProviderRequest) -> dict[str, Any]:
    """The streaming request body for ``/v1/messages``.

    Prompt-cache breakpoints go on the system prompt, the last tool and the last message block, so
    each round of a tool loop re-reads the previous prefix from the cache.
    """
    messages = wire_messages(request.messages)
    if messages and "thinking" not in messages[-1]["content"][-1]["type"]:
        messages[-1]["content"][-1] = {**messages[-1]["content"][-1], "cache_control": _CACHE}
    body: dict[str, Any] = {
        "model": request.model,
        "max_tokens": request.max_tokens,
        "messages": messages,
        "stream": True,
    }
    if request.system:
        body["system"] = [{"type": "text", "text": request.system, "cache_control": _CACHE}]
    # The server tool first: the cache breakpoint stays on the last function tool.
    tools = [anthropic_tool(request.web_search_uses)] if request.web_search_uses else []
    tools += [
        {"name": t.name, "description": t.description, "input_schema": t.input_schema}
        for t in request.tools
    ]
    if tools:
        tools[-1]["cache_control"] = _CACHE
        body["tools"] = tools
    if request.thinking_budget:
        body["thinking"] = {"type": "enabled", "budget_tokens": request.thinking_budget}
        # The API needs room for an answer after the thinking, and no temperature with it.
        body["max_tokens"] = max(request.max_tokens, request.thinking_budget + 4096)
    elif request.temperature is not None:
        body["temperature"] = request.temperature
    return body


class AnthropicProvider(ApiProvider):
    """Streams from the Anthropic Messages API (or a server speaking it)."""

    name = "anthropic"
    path = "/v1/messages"
    server_web_search = True  # web_search_20250305
    official_host = "api.anthropic.com"

    def build_body(self, request: ProviderRequest) -> dict[str, Any]:
        return messages_body(request)

    def auth_headers(self, key: str | None) -> dict[str, str]:
        headers = {"anthropic-version": API_VERSION}
        if key:
            headers["x-api-key"] = key
        return headers

    def new_reducer(self) -> Reducer:
        return AnthropicReducer()

    def base_url_hint(self) -> str:
        if self.config.base_url.rstrip("/").endswith("/v1"):
            return "; Anthropic-style base URLs leave out /v1 (https://api.anthropic.com)"
        return ""

    async def sdk_events(
        self, body: dict[str, Any], key: str | None
    ) -> AsyncIterator[dict[str, Any]]:
        import anthropic  # 1.9 s on our machine: only when transport = "sdk"

        if self._sdk_client is None:
            self._sdk_client = anthropic.AsyncAnthropic(
                api_key=key or "no-key-set",
                base_url=self.config.base_url,
                max_retries=0,  # our retry loop applies to both transports alike
                timeout=self.config.timeout_s,
            )
        client = self._sdk_client

        async def raw_events() -> AsyncIterator[Any]:
            stream = await client.messages.create(**sdk_kwargs(client.messages.create, body))
            async with stream:
                async for event in stream:
                    yield event

        def error_event(body: Any) -> dict[str, Any]:
            return (
                body
                if isinstance(body, dict)
                else {"type": "error", "error": {"message": str(body)}}
            )

        async for event in translate_sdk_errors(anthropic, raw_events(), error_event):
            yield event
