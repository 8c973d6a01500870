"""A fake LLM server speaking the Anthropic Messages, OpenAI Chat Completions and OpenAI Responses
wire formats.

It replays a script of assistant turns (agent_tui/providers/script.py describes the format) over
real HTTP on 127.0.0.1: streaming SSE with chunked transfer encoding, or plain JSON, plus injected
faults (status errors N times then success, a cut connection, malformed tool JSON, unknown events).

    python -m tests.fakes.llm_server --script FILE [--port 0] [--api-key KEY]

prints its base URL (Anthropic style, without ``/v1``) as the first line of stdout and serves until
killed. ``context_limit`` makes it refuse requests longer than that many tokens (counted as the
body's characters / ``chars_per_token``) with the error a real server sends: ``overflow_style``
"openai", "anthropic", "llamacpp" or "vllm" (see ``overflow_error``). ``GET /_requests`` returns every JSON body received; ``POST /_script`` replaces the script.
In tests use the ``fake_llm`` fixture (tests/conftest.py) instead.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import signal
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from agent_tui.providers.script import ScriptTurn, load_script, parse_turn

from . import wire_anthropic, wire_models, wire_openai, wire_responses

ANTHROPIC_PATH = "/v1/messages"
OPENAI_PATH = "/v1/chat/completions"
# Azure OpenAI: the deployment in the path, the API version in the query (chat format).
AZURE_PATH = re.compile(
    r"/openai/deployments/[A-Za-z0-9._-]+/chat/completions\?api-version=[\w.-]+"
)
RESPONSES_PATH = "/v1/responses"
COUNT_PATHS = ("/tokenize", "/v1/messages/count_tokens")
Turns = list[ScriptTurn] | list[dict[str, Any]] | str | Path


class _Exhausted(Exception):
    pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client hanging up (a cancelled stream, a closed keep-alive) is normal here.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class FakeLLM:
    """The server's state: the script, the cursor and every request received.

    Args:
        turns: the script (turn dicts, ScriptTurns, or a script file path).
        api_key: the only key accepted; ``None`` accepts any non-empty key.
        port: 0 picks a free port.
    """

    def __init__(
        self,
        turns: Turns | None = None,
        *,
        api_key: str | None = None,
        port: int = 0,
        context_limit: int | None = None,
        overflow_style: str = "openai",
        chars_per_token: float = 4,
    ) -> None:
        self.api_key = api_key
        self.context_limit = context_limit
        self.overflow_style = overflow_style
        self.chars_per_token = chars_per_token
        self.received: list[dict[str, Any]] = []
        # False: ``received`` records each request's path and headers, not its body (a long run's
        # requests of ~800 KB each would only load the test process).
        self.keep_bodies = True
        self._lock = threading.Lock()
        self._turns: list[ScriptTurn] = []
        self._cursor = 0
        self._fault_hits = 0
        # A test may hold a streamed answer part-way: after ``hold_after`` frames the server
        # waits until ``release`` is set (or 30 s pass), then sends the rest.
        self.hold_after: int | None = None
        self.release = threading.Event()
        # Recorded streams (tests/fixtures/streams/*.sse) served verbatim, in order, before the
        # script's turns: a real server's exact output through the whole client.
        self.replays: list[bytes] = []
        # Seconds between two streamed frames (a slow model); ``first_frame_delay_s`` before the
        # first one (a cold model reading the prompt).
        self.frame_delay_s = 0.0
        self.first_frame_delay_s = 0.0
        # Which local server's "how large is your context" endpoint it answers (one flavour per
        # test): "llamacpp" (GET /props), "vllm" (GET /v1/models), "lmstudio" (GET
        # /api/v0/models), "ollama" (POST /api/show); None answers none of them. ``probes``
        # lists the requests made to those endpoints ("GET /props" ...).
        self.context_flavour: str | None = None
        self.n_ctx = 8192
        self.probes: list[str] = []
        # The models the server lists (``/model``'s picker): ``GET /v1/models`` in the OpenAI
        # or the Anthropic format (by the request's headers) and Ollama's ``GET /api/tags``.
        # ``models_flavour`` "ollama": only /api/tags answers; None: neither (404).
        self.served_models: list[str] = ["test-model", "other-model"]
        self.models_flavour: str | None = "api"
        self.model_lists: list[str] = []  # the list requests made ("GET /v1/models" ...)
        # Token counting with "the model's tokenizer": llama.cpp POST /tokenize (when
        # context_flavour is "llamacpp") and Anthropic POST /v1/messages/count_tokens, both at
        # ``chars_per_token`` so a test can tell the client's chars/4 estimate from a count.
        # ``counts`` lists the paths asked; ``count_status`` answers them with that error
        # instead; ``count_delay_s`` waits before answering (a slow or hung tokenizer).
        self.counts: list[str] = []
        self.count_status: int | None = None
        self.count_delay_s = 0.0
        # A server loading its model, as llama.cpp is for a minute or more after it starts: while
        # ``loaded`` is clear every route answers 503 "Loading model" (``probes`` still lists the
        # window probes); ``loading_chats`` more model requests get that answer once loaded.
        # ``probe_status`` answers every window probe with that error (a failing server).
        self.loaded = threading.Event()
        self.loaded.set()
        self.loading_chats = 0
        self.probe_status: int | None = None
        self.set_script(turns or [])
        self._httpd = _Server(("127.0.0.1", port), _Handler)
        self._httpd.fake = self  # type: ignore[attr-defined]
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """Base URL for Anthropic-style clients (no ``/v1``)."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def openai_url(self) -> str:
        """Base URL for OpenAI-style clients (with ``/v1``)."""
        return self.url + "/v1"

    @property
    def requests(self) -> list[dict[str, Any]]:
        """The JSON bodies received, in order."""
        with self._lock:
            return [r["body"] for r in self.received]

    @property
    def turns_served(self) -> int:
        return self._cursor

    def set_script(self, turns: Turns) -> None:
        """Replace the script and rewind to its first turn."""
        if isinstance(turns, str | Path):
            parsed = load_script(turns)
        else:
            parsed = [
                t if isinstance(t, ScriptTurn) else parse_turn(t, position=n)
                for n, t in enumerate(turns)
            ]
        with self._lock:
            self._turns, self._cursor, self._fault_hits = parsed, 0, 0

    def next_turn(self) -> tuple[ScriptTurn, int, dict[str, Any] | None]:
        """The turn to answer with, its 1-based number, and a status fault to send instead."""
        with self._lock:
            if self._cursor >= len(self._turns):
                raise _Exhausted(
                    f"the script has no turn {self._cursor + 1} ({len(self._turns)} played)"
                )
            turn = self._turns[self._cursor]
            fault = turn.fault if isinstance(turn.fault, dict) else None
            if fault is not None and self._fault_hits < int(fault.get("times", 1)):
                self._fault_hits += 1
                return turn, self._cursor + 1, fault
            self._cursor += 1
            self._fault_hits = 0
            return turn, self._cursor, None

    def start(self) -> FakeLLM:
        # A short poll interval: stop() (shutdown) waits up to one interval, once per test.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def serve_forever(self) -> None:
        self._httpd.serve_forever()

    def __enter__(self) -> FakeLLM:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def overflow_error(
    style: str, limit: int | None, tokens: int, max_tokens: Any
) -> dict[str, Any] | None:
    """The body of a real server's "prompt too long" 400, or None when ``tokens`` fit.

    Shapes as the servers send them: OpenAI (``code: context_length_exceeded``), Anthropic
    (``prompt is too long: N tokens > M maximum``), llama.cpp (``exceed_context_size_error`` with
    ``n_prompt_tokens`` and ``n_ctx``; the prompt alone must fit) and vLLM (a flat object; the
    prompt plus ``max_tokens`` must fit).
    """
    completion = max_tokens if isinstance(max_tokens, int) else 0
    needed = tokens + completion if style == "vllm" else tokens
    if limit is None or needed <= limit:
        return None
    if style == "anthropic":
        message = f"prompt is too long: {tokens} tokens > {limit} maximum"
        error = {"type": "invalid_request_error", "message": message}
        return {"type": "error", "error": error, "request_id": "req_fake"}
    if style == "llamacpp":
        return {
            "error": {
                "code": 400,
                "message": "the request exceeds the available context size, try increasing it",
                "type": "exceed_context_size_error",
                "n_prompt_tokens": tokens,
                "n_ctx": limit,
            }
        }
    if style == "vllm":
        return {
            "object": "error",
            "message": (
                f"This model's maximum context length is {limit} tokens. However, you requested "
                f"{needed} tokens ({tokens} in the messages, {completion} in the completion). "
                "Please reduce the length of the messages or completion."
            ),
            "type": "BadRequestError",
            "param": None,
            "code": 400,
        }
    return {
        "error": {
            "message": (
                f"This model's maximum context length is {limit} tokens. However, your messages "
                f"resulted in {tokens} tokens. Please reduce the length of the messages."
            ),
            "type": "invalid_request_error",
            "param": "messages",
            "code": "context_length_exceeded",
        }
    }


# path -> (flavour, method) of the endpoints that tell a context window
CONTEXT_ROUTES = {
    "/props": ("llamacpp", "GET"),
    "/v1/models": ("vllm", "GET"),
    "/api/v0/models": ("lmstudio", "GET"),
    "/api/show": ("ollama", "POST"),
}


def context_answer(flavour: str, n_ctx: int, model: str) -> dict[str, Any]:
    """What each server answers (trimmed to the fields around the window, as they send them)."""
    if flavour == "llamacpp":
        return {
            "default_generation_settings": {"n_ctx": n_ctx, "params": {"n_predict": -1}},
            "total_slots": 1,
            "model_path": "/models/qwen2.5-coder-1.5b-instruct-q8_0.gguf",
            "chat_template": "{{ messages }}",
            "build_info": "b6123-4f0ea9b6",
        }
    if flavour == "vllm":
        entry = {"id": "test-model", "object": "model", "owned_by": "vllm", "root": "/m"}
        return {"object": "list", "data": [{**entry, "max_model_len": n_ctx}]}
    if flavour == "lmstudio":
        entry = {
            "id": "test-model",
            "object": "model",
            "type": "llm",
            "arch": "qwen2",
            "state": "loaded",
            "max_context_length": 32768,
            "loaded_context_length": n_ctx,
        }
        return {"object": "list", "data": [entry]}
    return {
        "modelfile": f"FROM {model}",
        "parameters": f'num_ctx                        {n_ctx}\nstop                           "<|im_end|>"',
        "template": "{{ .Prompt }}",
        "details": {"family": "qwen2", "parameter_size": "1.5B"},
        "model_info": {"general.architecture": "qwen2", "qwen2.context_length": 32768},
    }


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # chunked streaming and keep-alive, like the real APIs
    server_version = "fake-llm/1"

    @property
    def fake(self) -> FakeLLM:
        return self.server.fake  # type: ignore[attr-defined,no-any-return]

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean

    def _still_loading(self, method: str) -> bool:
        """Answer 503 "Loading model" (llama.cpp's words) while the model loads."""
        fake = self.fake
        with fake._lock:
            chat = self.path not in CONTEXT_ROUTES and method == "POST"
            if fake.loaded.is_set() and not (chat and fake.loading_chats > 0):
                return False
            if chat and fake.loaded.is_set():
                fake.loading_chats -= 1
            if self.path in CONTEXT_ROUTES:
                fake.probes.append(f"{method} {self.path}")
        loading = {"error": {"code": 503, "message": "Loading model", "type": "unavailable_error"}}
        self._send_json(503, loading)
        return True

    def do_GET(self) -> None:
        if self.path != "/_requests" and self._still_loading("GET"):
            return
        if self.path == "/_requests":
            self._send_json(200, self.fake.requests)
        elif self.path.partition("?")[0] in ("/v1/models", "/api/tags"):
            self._models_answer()
        elif self.path in CONTEXT_ROUTES:
            self._context_answer("GET")
        else:
            self._send_json(404, wire_anthropic.error_body(404, f"no route GET {self.path}"))

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"_unparsable": raw.decode("utf-8", "replace")}
        if self.path == "/_script":
            self.fake.set_script(body)
            self._send_json(200, {"turns": len(body)})
            return
        if self._still_loading("POST"):
            return
        if self.path in CONTEXT_ROUTES:
            self._context_answer("POST", body)
            return
        if self.path in COUNT_PATHS:
            self._count_answer(raw, body)
            return
        with self.fake._lock:
            self.fake.received.append(
                {
                    "path": self.path,
                    "headers": dict(self.headers),
                    "body": body if self.fake.keep_bodies else {},
                }
            )
        openai = (
            self.path.startswith(("/v1/chat", RESPONSES_PATH)) or "chat/completions" in self.path
        )
        wire: Any = wire_openai if openai else wire_anthropic
        if self.path not in (
            ANTHROPIC_PATH,
            OPENAI_PATH,
            RESPONSES_PATH,
        ) and not AZURE_PATH.fullmatch(self.path):
            self._send_json(404, wire.error_body(404, f"no route POST {self.path}"))
            return
        key = self._key(openai)
        if not key or (self.fake.api_key is not None and key != self.fake.api_key):
            # Echo the key back, as some real APIs do in part: clients must never show it.
            self._send_json(401, wire.error_body(401, f"invalid api key {key!r}"))
            return
        if not openai and not self.headers.get("anthropic-version"):
            self._send_json(400, wire.error_body(400, "anthropic-version: header is required"))
            return
        tokens = int(len(raw) / self.fake.chars_per_token)
        max_tokens = body.get("max_tokens", body.get("max_output_tokens"))
        overflow = overflow_error(
            self.fake.overflow_style, self.fake.context_limit, tokens, max_tokens
        )
        if overflow is not None:
            self._send_json(400, overflow)
            return
        with self.fake._lock:
            replay = self.fake.replays.pop(0) if self.fake.replays else None
        if replay is not None:
            self._send_stream([replay.decode()])
            return
        try:
            turn, number, fault = self.fake.next_turn()
        except _Exhausted as exc:
            self._send_json(400, wire.error_body(400, f"fake LLM server: {exc}"))
            return
        if fault is not None:
            status = int(fault["status"])
            headers = {}
            if fault.get("retry_after") is not None:
                headers["retry-after"] = str(fault["retry_after"])
            message = f"injected fault {status} (request made with key {key})"
            self._send_json(status, wire.error_body(status, message), headers)
            return
        self._answer(openai, turn, number, body, tokens)

    def _models_answer(self) -> None:
        """The model list, as the API the request speaks answers it (and vLLM's window in it)."""
        fake, path = self.fake, self.path.partition("?")[0]
        if path == "/v1/models" and fake.context_flavour == "vllm":
            self._context_answer("GET")
            return
        with fake._lock:
            if path == "/v1/models":
                fake.probes.append("GET /v1/models")  # the context probe asks it too
            fake.model_lists.append(f"GET {self.path}")
        wanted = "ollama" if path == "/api/tags" else "api"
        if fake.models_flavour != wanted:
            self._send_json(404, wire_openai.error_body(404, f"no route GET {self.path}"))
        elif path == "/api/tags":
            self._send_json(200, wire_models.ollama_tags(fake.served_models))
        elif self.headers.get("anthropic-version"):
            self._send_json(200, wire_models.anthropic_models(fake.served_models))
        else:
            self._send_json(200, wire_models.openai_models(fake.served_models))

    def _context_answer(self, method: str, body: Any = None) -> None:
        fake = self.fake
        with fake._lock:
            fake.probes.append(f"{method} {self.path}")
        route = CONTEXT_ROUTES[self.path]
        if fake.probe_status is not None:
            status = fake.probe_status
            self._send_json(status, wire_openai.error_body(status, "probe failed"))
            return
        if route != (fake.context_flavour, method):
            self._send_json(404, wire_openai.error_body(404, f"no route {method} {self.path}"))
            return
        model = str((body or {}).get("model") or "qwen2.5-coder:1.5b")
        self._send_json(200, context_answer(route[0], fake.n_ctx, model))

    def _count_answer(self, raw: bytes, body: Any) -> None:
        fake = self.fake
        with fake._lock:
            fake.counts.append(self.path)
        if fake.count_delay_s:
            time.sleep(fake.count_delay_s)
        tokenize = self.path == "/tokenize"
        if tokenize and fake.context_flavour != "llamacpp":
            self._send_json(404, wire_openai.error_body(404, "File Not Found"))
        elif fake.count_status is not None:
            wire: Any = wire_openai if tokenize else wire_anthropic
            self._send_json(fake.count_status, wire.error_body(fake.count_status, "no counting"))
        elif tokenize:
            # llama.cpp answers with the token ids; only their number matters here.
            content = str(body.get("content", "")) if isinstance(body, dict) else ""
            n = math.ceil(len(content) / fake.chars_per_token)
            self._send_json(200, {"tokens": [151643 - i % 1000 for i in range(n)]})
        else:
            self._send_json(200, {"input_tokens": int(len(raw) / fake.chars_per_token)})

    def _key(self, openai: bool) -> str:
        # Anthropic takes x-api-key (our httpx transport) or a Bearer token (its SDK since 2.x).
        auth = self.headers.get("authorization") or ""
        bearer = auth[len("Bearer ") :].strip() if auth.startswith("Bearer ") else ""
        bearer = bearer or (self.headers.get("api-key") or "").strip()  # Azure's header
        return bearer if openai else (self.headers.get("x-api-key") or "").strip() or bearer

    def _answer(
        self, openai: bool, turn: ScriptTurn, number: int, body: dict[str, Any], estimate: int
    ) -> None:
        model = str(body.get("model", "fake-model"))
        if not body.get("stream"):
            if self.path == RESPONSES_PATH:
                message = "fake LLM server: only streamed responses are served"
                self._send_json(400, wire_openai.error_body(400, message))
            elif openai:
                self._send_json(200, wire_openai.completion_json(turn, model, number, estimate))
            else:
                self._send_json(200, wire_anthropic.message_json(turn, model, number, estimate))
            return
        if self.path == RESPONSES_PATH:
            frames = wire_responses.response_stream(turn, model, number, estimate)
        elif openai:
            usage = bool((body.get("stream_options") or {}).get("include_usage"))
            frames = wire_openai.completion_stream(turn, model, number, estimate, usage)
        else:
            frames = wire_anthropic.message_stream(turn, model, number, estimate)
        self._send_stream(frames)

    def _send_stream(self, frames: list[Any]) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        for number_sent, item in enumerate(frames):
            if number_sent == self.fake.hold_after:
                self.fake.release.wait(30)
            delay = self.fake.first_frame_delay_s if number_sent == 0 else self.fake.frame_delay_s
            if delay:
                time.sleep(delay)
            if item is wire_anthropic.CUT:
                # Drop the connection without the terminating chunk: a mid-stream disconnect.
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            data = item.encode()
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.write(b"0\r\n\r\n")

    def _send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


def main(argv: list[str] | None = None) -> None:
    """Serve a script until killed; the first stdout line is the base URL."""
    parser = argparse.ArgumentParser(prog="python -m tests.fakes.llm_server")
    parser.add_argument("--script", required=True, help="JSON or JSONL script of assistant turns")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--api-key", default=None, help="accept only this key (default: any)")
    args = parser.parse_args(argv)
    fake = FakeLLM(args.script, api_key=args.api_key, port=args.port)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(fake.url, flush=True)
    try:
        fake.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        fake._httpd.server_close()


if __name__ == "__main__":
    main()
