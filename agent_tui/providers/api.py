"""What the Anthropic and OpenAI providers share.

The retry loop, the httpx SSE transport, the frame for the SDK transport, and the mapping of HTTP
failures to ``errors.py`` with messages that name the key's variable, never the key.

Each API subclass of :class:`ApiProvider` supplies: ``path`` (appended to the base URL),
``build_body()``, ``auth_headers()``, ``new_reducer()`` and ``sdk_events()``.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sys
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol

from agent_tui import __version__
from agent_tui.errors import (
    ContextOverflow,
    ProviderAuthError,
    ProviderError,
    ProviderNotFoundError,
    ProviderRateLimitError,
    StreamInterrupted,
)
from agent_tui.plural import plural
from agent_tui.providers import http11
from agent_tui.providers.base import ProviderEvent, ProviderRequest, TextDelta
from agent_tui.providers.image_limits import fit_images
from agent_tui.providers.overflow import parse_overflow
from agent_tui.providers.retry import (
    LOAD_POLL_S,
    LOAD_WAIT_S,
    RetryPolicy,
    is_loading,
    is_retryable_status,
    parse_retry_after,
)
from agent_tui.providers.sse import SSEResponse, aiter_sse

if TYPE_CHECKING:
    import httpx

    from agent_tui.config import ModelConfig

logger = logging.getLogger(__name__)


def import_httpx() -> ModuleType:
    """Import httpx without its command-line module.

    ``httpx/__init__`` imports ``httpx._main`` (click, rich, pygments) whenever those are installed,
    which they are here (Textual, uvicorn): 0.14 s of the 0.4 s budget for ``agent-tui -p``. A
    ``None`` in ``sys.modules`` makes that optional import fail fast; httpx then skips it.
    """
    if "httpx" not in sys.modules and "httpx._main" not in sys.modules:
        sys.modules["httpx._main"] = None  # type: ignore[assignment]
        try:
            import httpx
        finally:
            del sys.modules["httpx._main"]
    import httpx

    return httpx


class HttpFailure(Exception):
    """The server answered with an error status (the transports raise it; stream() maps it)."""

    def __init__(
        self, status: int, message: str, retry_after: float | None = None, body: Any = None
    ) -> None:
        super().__init__(f"HTTP {status}: {message}")
        self.status = status
        self.message = message
        self.retry_after = retry_after
        self.body = body  # the parsed JSON error body, when it was JSON (codes, n_ctx ...)


class Disconnected(Exception):
    """The connection failed or broke before the response was complete."""


@dataclass(frozen=True)
class _Failed:
    """A failed attempt to stream a response (see ``ApiProvider._failed``)."""

    retry: bool
    why: str
    retry_after: float | None
    error: ProviderError
    finished: list[ProviderEvent] | None = None
    loading: bool = False  # a 503 "Loading model": the server is up, its model not yet


class Reducer(Protocol):
    complete: bool

    def feed(self, event: dict[str, Any]) -> list[ProviderEvent]: ...

    def finish(self) -> list[ProviderEvent]: ...


def error_message(body: Any) -> str:
    """The human part of an API error body (both APIs nest it as ``error.message``)."""
    if body is None:
        return "no details"
    if isinstance(body, bytes | str):
        try:
            body = json.loads(body)
        except ValueError:
            text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
            return text.strip()[:300] or "no details"
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
        for key in ("message", "detail", "error"):
            if isinstance(body.get(key), str):
                return str(body[key])
    return json.dumps(body)[:300]


def error_json(body: Any) -> Any:
    """The error body parsed as JSON, or None."""
    if isinstance(body, bytes | str):
        try:
            return json.loads(body)
        except ValueError:
            return None
    return body


def describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


class ApiProvider:
    """A provider for one HTTP API, over the built-in HTTP/1.1 client (``transport = "httpx"``,
    the default; httpx behind a proxy) or the official SDK.

    Args:
        model_config: the model section (``transport``, ``max_retries``, ``timeout_s`` ...).
        retry: the retry policy; defaults to ``model_config.max_retries`` with 0.5 s backoff.
    """

    name = ""
    path = ""  # appended to base_url
    official_host = ""  # a key is required there; local servers may need none

    def __init__(self, model_config: ModelConfig, *, retry: RetryPolicy | None = None) -> None:
        self.config = model_config
        self.retry = retry or RetryPolicy(max_retries=model_config.max_retries)
        self._http: httpx.AsyncClient | None = None
        self._http11: http11.Client | None = None
        self._sdk_client: Any = None

    # -- per-API hooks -------------------------------------------------------------------------
    def build_body(self, request: ProviderRequest) -> dict[str, Any]:
        raise NotImplementedError

    def auth_headers(self, key: str | None) -> dict[str, str]:
        raise NotImplementedError

    def new_reducer(self) -> Reducer:
        raise NotImplementedError

    def sdk_events(self, body: dict[str, Any], key: str | None) -> AsyncIterator[dict[str, Any]]:
        raise NotImplementedError

    # -- the shared part -------------------------------------------------------------------------
    @property
    def endpoint(self) -> str:
        return self.config.base_url.rstrip("/") + self.path

    def _key(self) -> str | None:
        key = self.config.api_key()
        if not key and self.official_host in self.config.base_url:
            raise ProviderAuthError(
                f"no API key: set ${self.config.api_key_env} (or model.api_key_env), "
                f"or point --base-url at a local server"
            )
        return key or None

    async def stream(self, request: ProviderRequest) -> AsyncIterator[ProviderEvent]:
        """Stream one response, retrying failures that happen before any of it arrived.

        Raises:
            ProviderAuthError: 401/403, or no key for the official API.
            ProviderNotFoundError: 404, or the server says the model does not exist.
            ProviderRateLimitError: 429/5xx/529 persisted through the retries.
            StreamInterrupted: the stream broke after some of it arrived (already yielded).
            ProviderError: anything else the server refused, or the server is unreachable.
        """
        key = self._key()
        body = self.build_body(fit_images(request, vision=self.config.vision))
        attempt, load_started = 0, None
        while True:
            reducer = self.new_reducer()
            partial: list[str] = []
            started = False
            try:
                async for wire_event in self._wire_events(body, key):
                    for event in reducer.feed(wire_event):
                        started = True
                        if isinstance(event, TextDelta):
                            partial.append(event.text)
                        yield event
                for event in reducer.finish():
                    yield event
                if not reducer.complete:
                    raise Disconnected("the stream ended before the response was complete")
                return
            except (HttpFailure, Disconnected, ProviderError) as exc:
                failed = self._failed(exc, reducer, key, started, "".join(partial), attempt)
            if failed.finished is not None:
                for event in failed.finished:
                    yield event
                return
            # Raised outside the except blocks so that no exception that held the raw server
            # text (which may echo the key) hangs on as __context__.
            if failed.loading and await self._wait_loading(load_started):
                load_started = load_started or time.monotonic()
                continue  # a cold model load takes minutes: not one of the few retries
            if not failed.retry or attempt >= self.retry.max_retries:
                raise failed.error
            await self._wait(attempt, failed.retry_after, self._redact(failed.why, key))
            attempt += 1

    def _failed(
        self,
        exc: HttpFailure | Disconnected | ProviderError,
        reducer: Reducer,
        key: str | None,
        started: bool,
        partial: str,
        attempt: int,
    ) -> _Failed:
        """What a failed attempt means: retry it?, the error to raise otherwise, or (a cut
        after the whole response) the rest of the events."""
        if isinstance(exc, HttpFailure):
            error = self._status_error(exc, key, attempt)
            return _Failed(
                is_retryable_status(exc.status),
                f"HTTP {exc.status}",
                exc.retry_after,
                error,
                loading=is_loading(exc.status, exc.message),
            )
        if isinstance(exc, Disconnected):
            tail = [] if reducer.complete else reducer.finish()
            # All of the response had arrived and only the end of the connection was lost.
            finished = tail if reducer.complete else None
            why = str(exc)
            return _Failed(
                not started, why, None, self._cut_error(why, key, started, partial), finished
            )
        # An error event inside the stream.
        why = str(exc)
        error = self._cut_error(why, key, started, partial)
        return _Failed(exc.retryable and not started, why, None, error)

    async def _wait_loading(self, started: float | None) -> bool:
        """Wait a little for a server loading its model; False once LOAD_WAIT_S have passed."""
        if started is not None and time.monotonic() - started >= LOAD_WAIT_S:
            return False
        logger.info("%s: the server is loading the model; asking again", self.endpoint)
        await self.retry.sleep(LOAD_POLL_S)
        return True

    async def _wait(self, attempt: int, retry_after: float | None, why: str) -> None:
        delay = self.retry.delay(attempt, retry_after)
        logger.info(
            "%s: %s; retry %d of %d in %.2f s",
            self.endpoint,
            why,
            attempt + 1,
            self.retry.max_retries,
            delay,
        )
        await self.retry.sleep(delay)

    def _wire_events(self, body: dict[str, Any], key: str | None) -> AsyncIterator[dict[str, Any]]:
        if self.config.transport == "sdk":
            return self.sdk_events(body, key)
        return self._httpx_events(body, key)

    async def _httpx_events(
        self, body: dict[str, Any], key: str | None
    ) -> AsyncIterator[dict[str, Any]]:
        headers = {"accept": "text/event-stream", **self.auth_headers(key)}
        if self._http is None and http11.suits(self.endpoint):
            # The plain case (no proxy): our own HTTP/1.1 client, without httpx's import cost.
            if self._http11 is None:
                self._http11 = http11.Client(
                    timeout_s=self.config.timeout_s,
                    connect_timeout_s=min(10.0, self.config.timeout_s),
                    headers={"user-agent": f"agent-tui/{__version__}"},
                )
            try:
                async with self._http11.stream_post(self.endpoint, body, headers) as resp:
                    async for payload in _payloads(resp):
                        yield payload
            except http11.Timeout as exc:
                raise self._no_data(exc) from None
            except http11.TransportError as exc:
                raise Disconnected(describe(exc)) from None
            return
        httpx = import_httpx()
        if self._http is None:
            timeout = httpx.Timeout(self.config.timeout_s, connect=min(10.0, self.config.timeout_s))
            user_agent = {"user-agent": f"agent-tui/{__version__}"}
            self._http = httpx.AsyncClient(timeout=timeout, headers=user_agent)
        try:
            async with self._http.stream("POST", self.endpoint, json=body, headers=headers) as resp:
                async for payload in _payloads(resp):
                    yield payload
        except httpx.TimeoutException as exc:
            raise self._no_data(exc) from None
        except httpx.TransportError as exc:
            raise Disconnected(describe(exc)) from None

    def _no_data(self, exc: Exception) -> Disconnected:
        """The stream went quiet for longer than the timeout (either transport)."""
        return Disconnected(f"no data for {self.config.timeout_s:g} s ({describe(exc)})")

    def _redact(self, text: str, key: str | None) -> str:
        return text.replace(key, "[redacted]") if key else text

    def _status_error(self, failure: HttpFailure, key: str | None, retries: int) -> ProviderError:
        status, base = failure.status, self.config.base_url
        detail = self._redact(failure.message, key)
        if status in (401, 403):
            env = f"${self.config.api_key_env}"
            what = (
                f"the API key in {env}" if key else f"the request without a key ({env} is not set)"
            )
            # The 401 body is left out: some APIs echo part of the key in it.
            extra = f": {detail}" if status == 403 else ""
            message = f"{what} was refused by {base} (HTTP {status}{extra})"
            return ProviderAuthError(message, status=status)
        overflow = parse_overflow(status, failure.body, failure.message)
        if overflow is not None:
            return ContextOverflow(
                f"the request is longer than the model's context window (HTTP {status}: {detail})",
                status=status,
                limit=overflow.limit,
                prompt_tokens=overflow.prompt_tokens,
            )
        model_missing = status == 400 and "model" in detail.lower() and "not" in detail.lower()
        if status == 404 or model_missing:
            message = (
                f"model {self.config.name!r} or endpoint {self.endpoint} not found "
                f"(HTTP {status}: {detail}){self.base_url_hint()}"
            )
            return ProviderNotFoundError(message, status=status)
        if is_retryable_status(status):
            what = {429: "rate limited", 529: "overloaded"}.get(status, "failing")
            message = f"{base} is {what} (HTTP {status}: {detail}); gave up after {plural(retries, 'retry', 'retries')}"
            return ProviderRateLimitError(message, status=status, retryable=True)
        return ProviderError(f"{base} refused the request (HTTP {status}: {detail})", status=status)

    def base_url_hint(self) -> str:
        """A hint for a 404 when the base URL breaks this API's convention (DESIGN §3)."""
        return ""

    def _cut_error(self, why: str, key: str | None, started: bool, partial: str) -> ProviderError:
        why = self._redact(why, key)
        if started:
            message = (
                f"the response from {self.config.base_url} broke off ({why}); "
                "what arrived was kept, send the message again to retry"
            )
            return StreamInterrupted(message, partial_text=partial)
        return ProviderError(f"cannot reach {self.endpoint} ({why})", retryable=True)

    async def aclose(self) -> None:
        """Close the HTTP client and the SDK client, if they were ever created."""
        if self._http11 is not None:
            await self._http11.aclose()
            self._http11 = None
        if self._http is not None:
            await self._http.aclose()
            self._http = None
        if self._sdk_client is not None:
            await self._sdk_client.close()
            self._sdk_client = None


async def _payloads(resp: SSEResponse) -> AsyncIterator[dict[str, Any]]:
    """The JSON objects of a streamed answer; an error status is raised as HttpFailure."""
    if resp.status_code >= 400:
        await resp.aread()
        retry_after = parse_retry_after(resp.headers)
        raise HttpFailure(
            resp.status_code, error_message(resp.content), retry_after, error_json(resp.content)
        )
    async for sse in aiter_sse(resp):
        if sse.data.strip() == "[DONE]":
            return
        try:
            payload = json.loads(sse.data)
        except ValueError:
            logger.warning("skipped an event that is not JSON: %.80r", sse.data)
            continue
        if isinstance(payload, dict):
            yield payload


def sdk_kwargs(create: Any, body: dict[str, Any]) -> dict[str, Any]:
    """``body`` as keyword arguments for an SDK ``create()``; keys it does not know (the SDKs
    drop parameters between versions, e.g. anthropic 2.x and ``temperature``) go in ``extra_body``.
    """
    import inspect

    known = set(inspect.signature(create).parameters)
    kwargs = {k: v for k, v in body.items() if k in known}
    extra = {k: v for k, v in body.items() if k not in known}
    if extra:
        kwargs["extra_body"] = extra
    return kwargs


async def translate_sdk_errors(
    sdk: ModuleType,
    events: AsyncIterator[Any],
    error_event: Callable[[Any], dict[str, Any]],
) -> AsyncIterator[dict[str, Any]]:
    """Yield SDK stream events as wire dicts, mapping SDK errors to HttpFailure / Disconnected.

    Both SDKs share the Stainless error classes (``APIStatusError``, ``APIConnectionError``); a
    broken stream surfaces as the underlying HTTP library's ``TransportError``. An error *event*
    inside a 200 stream (which the SDKs raise as ``APIError``) goes to the reducer as the wire
    dict ``error_event(body)`` builds, so both transports end in the same ProviderError.
    """
    transport_errors = tuple(
        module.TransportError
        for module in (sys.modules.get("httpx"), sys.modules.get("httpx2"))
        if module is not None
    )
    failure: Exception | None = None
    in_stream_error: Any = None
    async with contextlib.aclosing(events):  # type: ignore[type-var]
        try:
            async for event in events:
                # warnings=False: the Responses helper's parsed models trip pydantic's checks.
                yield event.to_dict(warnings=False)
        except sdk.APIStatusError as exc:
            if exc.status_code < 400:
                in_stream_error = exc.body
            else:
                retry_after = parse_retry_after(exc.response.headers)
                failure = HttpFailure(
                    exc.status_code, error_message(exc.body), retry_after, error_json(exc.body)
                )
        except (sdk.APIConnectionError, *transport_errors) as exc:
            failure = Disconnected(describe(exc))
        except sdk.APIError as exc:
            in_stream_error = exc.body
    if failure is not None:
        raise failure  # outside the except blocks: the SDK error (and its text) is not kept
    if in_stream_error is not None:
        yield error_event(in_stream_error)
