"""The model's real context window: what the server says, cached; else config; else known sizes.

The server is asked once per base URL and model (``providers/context_probe.py``), in the
background from ``Agent.start()`` and awaited, bounded by the probe's short timeout, before the
first request is built. Settled answers (a window, or "cannot tell" from a server that answered
every endpoint) are cached in the state dir (``context_windows.json``, 0600) for
:data:`CACHE_TTL_S`, so later runs do not ask again; a failed probe (no answer, a 5xx) is not.
A server still loading its model is asked again every few seconds for up to :data:`LOAD_WAIT_S`,
and the turn says so while it waits (:meth:`WindowDiscovery.waiting`) instead of sending a request
the server would refuse. The hosted APIs are never asked: their sizes are in :data:`KNOWN_WINDOWS`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from agent_tui.config import ModelConfig
from agent_tui.providers.retry import LOAD_POLL_S, LOAD_WAIT_S
from agent_tui.safe_read import MAX_TEXT_FILE_BYTES, read_text
from agent_tui.state_files import move_aside, write_private

if TYPE_CHECKING:  # the probe's HTTP client is imported when a probe is made
    from agent_tui.providers.context_probe import ProbeAnswer

logger = logging.getLogger(__name__)

CACHE_FILE = "context_windows.json"
CACHE_TTL_S = 24 * 3600  # a server restarted with another -c / num_ctx is seen the next day
HOSTED = ("api.anthropic.com", "api.openai.com")
# When the turn says it is still waiting for a loading server (seconds since it began waiting).
LOAD_NOTES_AT = (10.0, 30.0, 60.0)
LOAD_NOTE_EVERY_S = 60.0
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


def usable_state_dir() -> Path | None:
    """The state dir for the cache, or None when there is none to use (then nothing is cached)."""
    from agent_tui.errors import ConfigError
    from agent_tui.paths import state_dir

    try:
        return state_dir()
    except ConfigError:
        return None


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
    loading: dict[str, float] = field(default_factory=dict)  # model name -> when loading was seen
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

    async def waiting(self, model: ModelConfig) -> AsyncIterator[str]:
        """Wait as :meth:`wait` does, saying (as notice texts) that a loading server is waited for:
        once when it is seen loading, again at :data:`LOAD_NOTES_AT` and then every minute, and
        once when it has loaded."""
        self.start(model)
        task = self._tasks.get(_cache_key(model))
        if task is None:
            return
        said: list[float] = []
        while not task.done():
            await asyncio.wait({task}, timeout=1.0)  # not shielded: Esc cancels only the wait
            since = self.loading.get(model.name)
            if since is not None and not task.done():
                waited = time.monotonic() - since
                if not said or waited >= _next_note(said[-1]):
                    said.append(waited)
                    yield _loading_text(model, waited)
        if said and (since := self.loading.pop(model.name, None)) is not None:
            yield f"{model.name} is loaded ({time.monotonic() - since:.0f} s)"

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
        try:
            answer = await self._probe_until_loaded(model)
        except Exception:  # a probe must never stop a turn; the config applies instead
            logger.exception("context window probe failed")
            return
        if answer.window is not None:
            self.found[model.name] = answer.window
        if path is not None and answer.settled:
            entries = _read_cache(path)
            entries[key] = {
                "tokens": answer.window[0] if answer.window else None,
                "source": answer.window[1] if answer.window else "",
                "at": time.time(),
            }
            try:
                # No fsync: the first request waits for this, and a cache lost to a crash only
                # means one more probe (a damaged one is moved aside and asked again).
                write_private(path, json.dumps(entries, indent=1), sync=False)
            except OSError as exc:
                logger.warning("cannot write %s: %s", path, exc)

    async def _probe_until_loaded(self, model: ModelConfig) -> ProbeAnswer:
        """Ask; while the server says it is loading the model, ask again (up to LOAD_WAIT_S)."""
        from agent_tui.providers.context_probe import probe_context_window

        while True:
            answer = await probe_context_window(model.base_url, model.name, model.api_key())
            if not answer.loading:
                return answer
            since = self.loading.setdefault(model.name, time.monotonic())
            if time.monotonic() - since >= LOAD_WAIT_S:
                logger.warning("%s still loading after %.0f s", model.base_url, LOAD_WAIT_S)
                return answer
            await asyncio.sleep(LOAD_POLL_S)


def _next_note(last: float) -> float:
    """When to say "still loading" next, after saying it at ``last`` seconds."""
    later = [at for at in LOAD_NOTES_AT if at > last]
    return later[0] if later else last + LOAD_NOTE_EVERY_S


def _loading_text(model: ModelConfig, waited: float) -> str:
    took = f" · {waited:.0f} s" if waited >= 1 else ""
    return (
        f"the server at {model.base_url} is loading {model.name}; waiting for it{took} (Esc stops)"
    )
