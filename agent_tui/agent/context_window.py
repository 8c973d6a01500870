"""The model's real context window: what the server says, cached; else config; else known sizes.

The server is asked once per base URL and model (``providers/context_probe.py``), in the
background from ``Agent.start()`` and awaited, bounded by the probe's short timeout, before the
first request is built. Answers (and "cannot tell") are cached in the state dir
(``context_windows.json``, 0600) for :data:`CACHE_TTL_S`, so later runs do not ask again. The
hosted APIs are never asked: their sizes are in :data:`KNOWN_WINDOWS`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from agent_tui.config import ModelConfig
from agent_tui.safe_read import MAX_TEXT_FILE_BYTES, read_text
from agent_tui.state_files import move_aside, write_private

logger = logging.getLogger(__name__)

CACHE_FILE = "context_windows.json"
CACHE_TTL_S = 24 * 3600  # a server restarted with another -c / num_ctx is seen the next day
HOSTED = ("api.anthropic.com", "api.openai.com")
# Published context windows of hosted models, by name prefix (longest prefix wins).
KNOWN_WINDOWS: dict[str, int] = {
    "claude-": 200_000,
    "gpt-4.1": 1_047_576,
    "gpt-4o": 128_000,
    "gpt-5": 400_000,
    "o1": 200_000,
    "o3": 200_000,
    "o4-mini": 200_000,
}


def known_window(name: str) -> int | None:
    """The published window of a hosted model, by the longest matching name prefix."""
    matches = [prefix for prefix in KNOWN_WINDOWS if name.startswith(prefix)]
    return KNOWN_WINDOWS[max(matches, key=len)] if matches else None


def should_probe(model: ModelConfig) -> bool:
    """Only OpenAI-compatible servers other than OpenAI's own say their window."""
    host = (urlsplit(model.base_url).hostname or "").lower()
    return model.provider == "openai" and bool(host) and host not in HOSTED


def _cache_key(model: ModelConfig) -> str:
    return f"{model.base_url.rstrip('/')} {model.name}"


def _read_cache(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(read_text(path, MAX_TEXT_FILE_BYTES, errors="strict"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        move_aside(path, f"not JSON: {exc}")
        return {}
    if not isinstance(data, dict):
        move_aside(path, "not a JSON object")
        return {}
    return data


@dataclass
class WindowDiscovery:
    """The served windows of one session; ``state`` is the state dir (None: no cache)."""

    state: Path | None
    found: dict[str, tuple[int, str]] = field(default_factory=dict)  # model name -> (n, source)
    _tasks: dict[str, asyncio.Task[None]] = field(default_factory=dict)

    def start(self, model: ModelConfig) -> None:
        """Begin finding ``model``'s window in the background (inside the running loop)."""
        if should_probe(model) and _cache_key(model) not in self._tasks:
            self._tasks[_cache_key(model)] = asyncio.create_task(self._discover(model))

    async def wait(self, model: ModelConfig) -> tuple[int, str] | None:
        """The served window of ``model`` (asked now if ``start`` was not called), or None."""
        self.start(model)
        task = self._tasks.get(_cache_key(model))
        if task is not None:
            await asyncio.shield(task)
        return self.found.get(model.name)

    def cancel(self) -> None:
        """Stop the probes still running (the session is closing)."""
        for task in self._tasks.values():
            task.cancel()

    async def _discover(self, model: ModelConfig) -> None:
        key = _cache_key(model)
        path = self.state / CACHE_FILE if self.state is not None else None
        cached = _read_cache(path).get(key) if path is not None else None
        if isinstance(cached, dict) and time.time() - float(cached.get("at") or 0) < CACHE_TTL_S:
            tokens = cached.get("tokens")
            if isinstance(tokens, int) and tokens > 0:
                self.found[model.name] = (tokens, f"{cached.get('source', 'server')}, cached")
            return
        from agent_tui.providers.context_probe import probe_context_window

        try:
            answer = await probe_context_window(model.base_url, model.name, model.api_key())
        except Exception:  # a probe must never stop a turn; the config applies instead
            logger.exception("context window probe failed")
            return
        if answer is not None:
            self.found[model.name] = answer
        if path is not None:
            entries = _read_cache(path)
            entries[key] = {
                "tokens": answer[0] if answer else None,
                "source": answer[1] if answer else "",
                "at": time.time(),
            }
            try:
                # No fsync: the first request waits for this, and a cache lost to a crash only
                # means one more probe (a damaged one is moved aside and asked again).
                write_private(path, json.dumps(entries, indent=1), sync=False)
            except OSError as exc:
                logger.warning("cannot write %s: %s", path, exc)
