"""The OpenAI Chat Completions provider (``POST {base_url}/chat/completions``, streaming).

Also the provider for OpenAI-compatible servers (Ollama, llama.cpp, vLLM, LM Studio): the base URL
includes ``/v1`` (``http://localhost:11434/v1``), as the ``openai`` SDK expects. Tool results become
``role: "tool"`` messages; thinking blocks are dropped (Chat Completions has no place for them).
The SDK is imported only by :meth:`OpenAIProvider.sdk_events` (``transport = "sdk"``).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from agent_tui.conversation import ImageBlock, Message, TextBlock, ToolResultBlock, ToolUseBlock
from agent_tui.identity_cache import IdentityCache
from agent_tui.providers.api import ApiProvider, Reducer, sdk_kwargs, translate_sdk_errors
from agent_tui.providers.base import ProviderRequest
from agent_tui.providers.openai_reduce import OpenAIReducer

# A call's arguments as JSON, serialised once per block rather than once per request.
_ARGUMENTS: IdentityCache[ToolUseBlock, str] = IdentityCache()
# Each message's wire form, built once: every round sends the whole conversation again. The dicts
# are shared by the requests that carry the message, so nothing may change them once built.
_WIRE: IdentityCache[Message, list[dict[str, Any]]] = IdentityCache()


def _arguments(block: ToolUseBlock) -> str:
    return json.dumps(block.input)


def wire_message(message: Message) -> list[dict[str, Any]]:
    """One conversation message as Chat Completions messages (a user turn may become several)."""
    text = "".join(b.text for b in message.content if isinstance(b, TextBlock))
    if message.role == "assistant":
        out: dict[str, Any] = {"role": "assistant", "content": text if text.strip() else None}
        calls = [
            {
                "id": b.id,
                "type": "function",
                "function": {"name": b.name, "arguments": _ARGUMENTS.get(b, _arguments)},
            }
            for b in message.content
            if isinstance(b, ToolUseBlock)
        ]
        if calls:
            out["tool_calls"] = calls
        return [out] if out["content"] or calls else []
    # Tool results must directly follow the assistant message that made the calls.
    wire: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, ToolResultBlock):
            # Chat Completions has no is_error flag: say it in the content.
            content = f"Error: {block.content}" if block.is_error else block.content
            wire.append({"role": "tool", "tool_call_id": block.tool_use_id, "content": content})
    # Attachments and requests are separate blocks: glued together, "</attachment>" or a first
    # request would run into the next one's first word.
    user_text = "\n\n".join(b.text for b in message.content if isinstance(b, TextBlock) and b.text)
    # Chat Completions takes images only in user messages: a tool's images follow the results.
    images = [i for b in message.content if isinstance(b, ToolResultBlock) for i in b.images]
    images += [b for b in message.content if isinstance(b, ImageBlock)]
    if images:
        parts: list[dict[str, Any]] = [{"type": "text", "text": user_text}] if user_text else []
        parts += [_image_part(i) for i in images]
        wire.append({"role": "user", "content": parts})
    elif user_text.strip():
        wire.append({"role": "user", "content": user_text})
    return wire


def _image_part(image: ImageBlock) -> dict[str, Any]:
    url = f"data:{image.media_type};base64,{image.data}"
    return {"type": "image_url", "image_url": {"url": url}}


def completions_body(request: ProviderRequest, *, official: bool) -> dict[str, Any]:
    """The streaming request body for ``/chat/completions``.

    Args:
        request: what to send.
        official: talking to api.openai.com, which wants ``max_completion_tokens`` (its reasoning
            models reject ``max_tokens``); compatible servers mostly know only ``max_tokens``.
    """
    messages: list[dict[str, Any]] = []
    if request.system:
        messages.append({"role": "system", "content": request.system})
    for message in request.messages:
        messages.extend(_WIRE.get(message, wire_message))
    body: dict[str, Any] = {
        "model": request.model,
        "messages": messages,
        "stream": True,
        "stream_options": {"include_usage": True},
        ("max_completion_tokens" if official else "max_tokens"): request.max_tokens,
    }
    if request.tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.input_schema,
                },
            }
            for t in request.tools
        ]
    if request.temperature is not None:
        body["temperature"] = request.temperature
    if request.reasoning_effort:
        # Only when configured: models without reasoning (and many local servers) reject it.
        body["reasoning_effort"] = request.reasoning_effort
    return body


class OpenAIProvider(ApiProvider):
    """Streams from OpenAI Chat Completions or any OpenAI-compatible server."""

    name = "openai"
    path = "/chat/completions"
    official_host = "api.openai.com"

    def build_body(self, request: ProviderRequest) -> dict[str, Any]:
        return completions_body(request, official=self.official_host in self.config.base_url)

    def auth_headers(self, key: str | None) -> dict[str, str]:
        return {"authorization": f"Bearer {key}"} if key else {}

    def new_reducer(self) -> Reducer:
        return OpenAIReducer()

    def base_url_hint(self) -> str:
        if not self.config.base_url.rstrip("/").endswith("/v1"):
            return "; OpenAI-style base URLs usually end in /v1 (http://localhost:11434/v1)"
        return ""

    def _openai_client(self, openai: Any, key: str | None) -> Any:
        if self._sdk_client is None:
            self._sdk_client = openai.AsyncOpenAI(
                api_key=key or "no-key-set",  # local servers take any; the SDK insists on one
                base_url=self.config.base_url,
                max_retries=0,  # our retry loop applies to both transports alike
                timeout=self.config.timeout_s,
            )
        return self._sdk_client

    async def sdk_events(
        self, body: dict[str, Any], key: str | None
    ) -> AsyncIterator[dict[str, Any]]:
        import openai  # 0.8 s on our machine: only when transport = "sdk"

        client = self._openai_client(openai, key)

        async def raw_events() -> AsyncIterator[Any]:
            stream = await client.chat.completions.create(
                **sdk_kwargs(client.chat.completions.create, body)
            )
            async with stream:
                async for chunk in stream:
                    yield chunk

        def error_event(body: Any) -> dict[str, Any]:
            # The SDK hands over the inner error object; the reducer expects the chunk.
            return {"error": body if isinstance(body, dict) else {"message": str(body)}}

        async for chunk in translate_sdk_errors(openai, raw_events(), error_event):
            yield chunk


def make_openai(model_config: Any) -> ApiProvider:
    """The openai provider in the wire format ``model.wire_api`` names (see :func:`wire_api`)."""
    if wire_api(model_config) == "responses":
        from agent_tui.providers.responses import ResponsesProvider

        return ResponsesProvider(model_config)
    return OpenAIProvider(model_config)


def wire_api(model_config: Any) -> str:
    """``model.wire_api``, defaulting to ``responses`` for api.openai.com and ``chat`` elsewhere
    (OpenAI-compatible servers mostly speak only Chat Completions)."""
    chosen = getattr(model_config, "wire_api", None)
    if chosen:
        return str(chosen)
    return "responses" if OpenAIProvider.official_host in model_config.base_url else "chat"
