"""``--record FILE``: a provider wrapper that saves each assistant turn in the script format.

The file is JSONL (one turn a line, appended as each turn completes, so a crash loses at most the
turn in flight) and replays with ``--provider scripted``. Only what the model produced is written:
never the request, its headers or the key. A turn that broke off is saved with ``"fault": "cut"``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from agent_tui.errors import StreamInterrupted
from agent_tui.providers.base import (
    Provider,
    ProviderEvent,
    ProviderRequest,
    Stop,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallStart,
    Usage,
)
from agent_tui.providers.script import ScriptToolCall, ScriptTurn

_STARTED: set[Path] = set()  # files this process has begun recording to


class _TurnRecorder:
    def __init__(self) -> None:
        self.text: list[str] = []
        self.thinking: list[str] = []
        self.signature = ""
        self.redacted = ""  # replays as one redacted block after the thinking
        self.calls: dict[int, tuple[str, str, list[str]]] = {}
        self.usage: dict[str, int] = {}
        self.stop_reason: str | None = None

    def add(self, event: ProviderEvent) -> None:
        if isinstance(event, TextDelta):
            self.text.append(event.text)
        elif isinstance(event, ThinkingDelta):
            self.thinking.append(event.text)
            self.signature = event.signature or self.signature
            self.redacted = event.redacted or self.redacted
        elif isinstance(event, ToolCallStart):
            self.calls[event.index] = (event.id, event.name, [])
        elif isinstance(event, ToolCallDelta) and event.index in self.calls:
            self.calls[event.index][2].append(event.arguments)
        elif isinstance(event, Usage):
            fields = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
            self.usage = {f: getattr(event, f) for f in fields if getattr(event, f)}
        elif isinstance(event, Stop):
            self.stop_reason = event.reason

    def turn(self, fault: Any = None) -> ScriptTurn:
        calls = []
        for index in sorted(self.calls):
            call_id, name, fragments = self.calls[index]
            arguments = "".join(fragments)
            tool_input: dict[str, Any] | str
            try:
                tool_input = json.loads(arguments or "{}")
            except ValueError:
                tool_input = arguments  # kept verbatim: replays the model's mistake exactly
            if not isinstance(tool_input, dict):
                tool_input = arguments
            calls.append(ScriptToolCall(call_id, name, tool_input))
        return ScriptTurn(
            text="".join(self.text),
            thinking="".join(self.thinking),
            signature=self.signature,
            redacted_thinking=self.redacted,
            tool_calls=tuple(calls),
            usage=self.usage,
            stop_reason=self.stop_reason,
            fault=fault,
        )


class RecordingProvider:
    """Wraps a provider; passes its events through and appends each finished turn to ``path``.

    Args:
        inner: the provider that talks to the model.
        path: the script file to write. Emptied the first time this process records to it; a
            later wrapper for the same file (after ``/model`` switches provider) appends.
    """

    def __init__(self, inner: Provider, path: str | Path) -> None:
        self.inner = inner
        self.name = inner.name
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.resolve() not in _STARTED:
            self.path.write_text("", encoding="utf-8")
            _STARTED.add(self.path.resolve())

    async def stream(self, request: ProviderRequest) -> AsyncIterator[ProviderEvent]:
        """Stream from the inner provider, recording the turn."""
        recorder = _TurnRecorder()
        try:
            async for event in self.inner.stream(request):
                recorder.add(event)
                if isinstance(event, Stop):
                    # Written before the Stop goes out: a consumer may stop iterating at Stop.
                    self._append(recorder.turn())
                yield event
        except StreamInterrupted:
            self._append(recorder.turn(fault="cut"))
            raise

    def _append(self, turn: ScriptTurn) -> None:
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(turn.to_dict()) + "\n")

    async def aclose(self) -> None:
        """Close the inner provider."""
        await self.inner.aclose()
