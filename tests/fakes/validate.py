"""Check a request body as strictly as the real APIs (and strict chat templates) would.

``anthropic_problems(body)`` follows the Messages API's rules
(https://docs.anthropic.com/en/api/messages): user and assistant alternate starting with user,
content is never empty, text is never whitespace-only, every ``tool_use`` is answered by a
``tool_result`` at the start of the very next user message, exactly once. Stricter than the API in
one respect: it merges consecutive same-role messages, many chat templates reject them, so this
counts them as errors.

``openai_problems(body)`` follows Chat Completions: system first, then user/assistant alternating,
an assistant's ``tool_calls`` answered by ``tool`` messages right after it, each id exactly once,
no assistant message without content or calls, arguments that parse as JSON.

Both return a list of problems (empty: valid).
"""

from __future__ import annotations

import json
from typing import Any


def _text_ok(text: Any) -> bool:
    return isinstance(text, str) and bool(text.strip())


def anthropic_problems(body: dict[str, Any]) -> list[str]:
    problems: list[str] = []
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return ["messages: at least one message is required"]
    seen_ids: set[str] = set()
    pending: list[str] = []  # tool_use ids of the previous assistant message
    for n, message in enumerate(messages):
        where = f"messages.{n}"
        role = message.get("role")
        expected = "user" if n % 2 == 0 else "assistant"
        if role != expected:
            problems.append(f"{where}: roles must alternate user/assistant, got {role}")
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if not isinstance(content, list) or not content:
            problems.append(f"{where}: content must be non-empty")
            content = []
        results: list[str] = []
        uses: list[str] = []
        after_other = False
        for k, block in enumerate(content):
            kind = block.get("type")
            at = f"{where}.content.{k}"
            if kind == "text":
                if not _text_ok(block.get("text")):
                    problems.append(f"{at}: text content blocks must contain non-whitespace text")
                after_other = True
            elif kind == "tool_result":
                if role != "user":
                    problems.append(f"{at}: tool_result only in user messages")
                if after_other:
                    problems.append(f"{at}: tool_result blocks must come first in the message")
                results.append(str(block.get("tool_use_id")))
            elif kind == "tool_use":
                if role != "assistant":
                    problems.append(f"{at}: tool_use only in assistant messages")
                call_id = str(block.get("id"))
                if call_id in seen_ids:
                    problems.append(f"{at}: tool_use ids must be unique ({call_id})")
                seen_ids.add(call_id)
                uses.append(call_id)
                after_other = True
            elif kind == "thinking":
                if role != "assistant" or not block.get("signature"):
                    problems.append(f"{at}: thinking needs an assistant message and a signature")
            elif kind == "image":
                if role != "user" or (block.get("source") or {}).get("type") != "base64":
                    problems.append(f"{at}: image blocks only in user messages, base64 source")
            elif kind == "redacted_thinking":
                if role != "assistant":
                    problems.append(f"{at}: redacted_thinking only in assistant messages")
            else:
                problems.append(f"{at}: unknown block type {kind!r}")
        if role == "user":
            if sorted(results) != sorted(pending) or len(set(results)) != len(results):
                problems.append(
                    f"{where}: tool_result ids {results} must answer the previous message's "
                    f"tool_use ids {pending} exactly once"
                )
            pending = []
        else:
            if pending:
                problems.append(f"{where}: tool_use ids {pending} were not answered")
            pending = uses
    if pending:
        problems.append(f"tool_use ids {pending} have no tool_result")
    if messages[-1].get("role") != "user":
        problems.append("the last message must be a user message (no prefill is used)")
    return problems


def openai_problems(body: dict[str, Any]) -> list[str]:
    problems: list[str] = []
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return ["messages: at least one message is required"]
    previous = ""  # the role of the last non-tool message, or "tool"
    open_calls: list[str] = []
    answered: set[str] = set()
    for n, message in enumerate(messages):
        where = f"messages[{n}]"
        role = message.get("role")
        content = message.get("content")
        if role in ("system", "developer"):
            if n != 0:
                problems.append(f"{where}: the system message must come first")
            continue
        if role != "tool" and open_calls:
            problems.append(f"{where}: tool_calls {open_calls} were not answered before {role}")
            open_calls = []
        if role == "user":
            if not _text_ok(content) and not (isinstance(content, list) and content):
                problems.append(f"{where}: user content must be non-empty")
            if previous == "user":
                problems.append(f"{where}: two user messages in a row")
        elif role == "assistant":
            calls = message.get("tool_calls") or []
            if not _text_ok(content) and not calls:
                problems.append(f"{where}: assistant needs content or tool_calls")
            if previous in ("assistant", ""):
                problems.append(f"{where}: assistant must follow a user or tool message")
            for call in calls:
                call_id = call.get("id")
                if not call_id or call_id in answered or call_id in open_calls:
                    problems.append(f"{where}: tool call id {call_id!r} missing or repeated")
                function = call.get("function") or {}
                try:
                    json.loads(function.get("arguments") or "")
                except ValueError:
                    problems.append(f"{where}: arguments of {call_id} are not JSON")
                open_calls.append(str(call_id))
        elif role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in open_calls:
                problems.append(f"{where}: tool message {call_id!r} answers no open tool call")
            else:
                open_calls.remove(call_id)
                answered.add(call_id)
            if not isinstance(content, str):
                problems.append(f"{where}: tool content must be a string")
        else:
            problems.append(f"{where}: unknown role {role!r}")
        previous = role
    if open_calls:
        problems.append(f"tool_calls {open_calls} have no tool message")
    if previous not in ("user", "tool"):
        problems.append("the last message must be a user or tool message")
    return problems


def problems(body: dict[str, Any], api: str) -> list[str]:
    """The problems of a request body for ``api`` ("anthropic" or "openai")."""
    return anthropic_problems(body) if api == "anthropic" else openai_problems(body)
