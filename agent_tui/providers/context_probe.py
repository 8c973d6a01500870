"""Ask an OpenAI-compatible server how large its context window is.

Each local server says it in its own place; the first that answers wins:

- llama.cpp: ``GET {root}/props`` -> ``default_generation_settings.n_ctx`` (older builds: ``n_ctx``);
- vLLM: ``GET {base_url}/models`` -> the model's ``max_model_len``;
- LM Studio: ``GET {root}/api/v0/models`` -> the model's ``loaded_context_length`` or
  ``max_context_length``;
- Ollama: ``POST {root}/api/show`` -> ``num_ctx`` in ``parameters`` (what it runs with), else
  ``model_info["<arch>.context_length"]``.

``root`` is the base URL without its ``/v1``. Every request has a short timeout and any failure
means "cannot tell": the caller falls back to config. The answers are the server's, so only a
plain positive integer below a sane bound is taken.

A server still loading its model (llama.cpp answers every route ``503 Loading model`` for as long
as a cold load takes, a minute or more) is told apart from one that cannot tell: the caller waits
for it. Only an answer every endpoint gave is ``settled`` (worth keeping): a timeout, a refused
connection or a 5xx says nothing about the window.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

from agent_tui.providers.retry import is_loading
from agent_tui.providers.side_requests import SideRequestFailed, server_root, side_requests

logger = logging.getLogger(__name__)

PROBE_TIMEOUT_S = 2.0
MAX_WINDOW = 100_000_000  # larger than any model's: a bigger number is a broken answer
MIN_WINDOW = 1000  # as model.context_window: below it no request fits, so the answer is not used


@dataclass(frozen=True)
class ProbeAnswer:
    """What one probe learned: the window (tokens, where it was found), or why not."""

    window: tuple[int, str] | None = None
    loading: bool = False  # a 503 that says the model is loading: ask again soon
    settled: bool = True  # every request was answered (not a timeout, a refusal, a 5xx)


def _positive(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        if isinstance(value, str) and value.strip().isdigit():
            value = int(value.strip())
        else:
            return None
    number = int(value)
    return number if MIN_WINDOW <= number <= MAX_WINDOW else None


def _models(body: Any) -> list[dict[str, Any]]:
    data = body.get("data") if isinstance(body, dict) else None
    return [m for m in data if isinstance(m, dict)] if isinstance(data, list) else []


def _pick(models: list[dict[str, Any]], model: str) -> dict[str, Any] | None:
    """The entry for ``model``, or the only one a single-model server lists."""
    for entry in models:
        if entry.get("id") == model:
            return entry
    return models[0] if len(models) == 1 else None


def from_llamacpp_props(body: Any) -> int | None:
    if not isinstance(body, dict):
        return None
    settings = body.get("default_generation_settings")
    if isinstance(settings, dict) and _positive(settings.get("n_ctx")):
        return _positive(settings.get("n_ctx"))
    return _positive(body.get("n_ctx"))


def from_vllm_models(body: Any, model: str) -> int | None:
    entry = _pick(_models(body), model)
    return _positive(entry.get("max_model_len")) if entry else None


def from_lmstudio_models(body: Any, model: str) -> int | None:
    entry = _pick(_models(body), model)
    if entry is None:
        return None
    return _positive(entry.get("loaded_context_length")) or _positive(
        entry.get("max_context_length")
    )


def from_ollama_show(body: Any) -> int | None:
    if not isinstance(body, dict):
        return None
    parameters = body.get("parameters")
    if isinstance(parameters, str):
        for line in parameters.splitlines():
            name, _, value = line.strip().partition(" ")
            if name == "num_ctx" and (found := _positive(value.strip())):
                return found
    info = body.get("model_info")
    if isinstance(info, dict):
        arch = info.get("general.architecture")
        if isinstance(arch, str):
            return _positive(info.get(f"{arch}.context_length"))
    return None


async def probe_context_window(
    base_url: str, model: str, key: str | None, timeout: float | None = None
) -> ProbeAnswer:
    """The context window the server at ``base_url`` states for ``model``, if it states one."""
    base, root = base_url.rstrip("/"), server_root(base_url)
    headers = {"authorization": f"Bearer {key}"} if key else {}
    # Read at call time, not bound as a default: the in-process tests lengthen it (a loaded test
    # machine can take longer than 2 s to answer even on loopback).
    limit = PROBE_TIMEOUT_S if timeout is None else timeout
    heard = {"loading": False, "unsettled": False}
    async with side_requests(base_url, headers, limit) as fetch:

        async def get_json(method: str, url: str, body: Any = None) -> Any:
            """The parsed answer of a 200, else None: any failure means "cannot tell"."""
            try:
                status, raw = await fetch(method, url, body)
            except SideRequestFailed as exc:
                logger.debug("context probe %s %s: %s", method, url, exc)
                heard["unsettled"] = True
                return None
            if status >= 500:
                heard["unsettled"] = True
                heard["loading"] = heard["loading"] or is_loading(status, raw)
            try:
                return json.loads(raw) if status == 200 else None
            except ValueError:
                return None

        found = await _ask_each(get_json, base, root, model)
        if found is None and heard["loading"]:
            return ProbeAnswer(loading=True, settled=False)
    return ProbeAnswer(found, settled=found is not None or not heard["unsettled"])


async def _ask_each(get_json: Any, base: str, root: str, model: str) -> tuple[int, str] | None:
    """Each server flavour's endpoint in turn; the first that states a window wins."""
    if (n := from_llamacpp_props(await get_json("GET", f"{root}/props"))) is not None:
        return n, "llama.cpp /props"
    if (n := from_vllm_models(await get_json("GET", f"{base}/models"), model)) is not None:
        return n, "/v1/models"
    lmstudio = await get_json("GET", f"{root}/api/v0/models")
    if (n := from_lmstudio_models(lmstudio, model)) is not None:
        return n, "LM Studio /api/v0/models"
    show = await get_json("POST", f"{root}/api/show", {"model": model})
    if (n := from_ollama_show(show)) is not None:
        return n, "Ollama /api/show"
    return None
