#!/usr/bin/env python3
"""mockllm.py - a scripted, stdlib-only LLM server for benchmarking coding-agent CLIs.

Origin: copied from the project's peer benchmark harness (its ``mockllm.py``, the copy that came
with issue 13, 2026-11-24), reformatted for ruff; one change: TCP_NODELAY (Handler.setup). It is here,
rather than tests/fakes/llm_server.py, because it also speaks the OpenAI Responses wire format
that Codex CLI uses, so agent-tui and Codex can be timed against one server (bench_vs_codex.py).
Kept whole as copied (over the project's module size) so it can be compared with its source.

Speaks (with real streaming SSE wire formats) on 127.0.0.1 only:
  * Anthropic Messages:      POST /v1/messages (stream true/false), /v1/messages/count_tokens,
                             GET /v1/models (Anthropic shape when an anthropic-version header is sent)
  * OpenAI Chat Completions: POST /v1/chat/completions (stream true/false), GET /v1/models
  * OpenAI Responses:        POST /v1/responses (stream true/false)
  * Gemini (Google AI):      POST /v1beta/models/{m}:generateContent | :streamGenerateContent | :countTokens

Which reply comes back is decided by a JSON script (see script.json):
  {"default": "hello",
   "scenarios": {"hello": {"turns": [{"text": "Hello from mock."}]},
                 "tool":  {"turns": [{"shell": "echo hi", "text": "Running it."},
                                     {"text": "Done: it printed hi."}]}}}
A turn with "shell" calls whatever tool the client offered that looks like a shell tool
(bash / shell / run_shell_command / exec_command ...), with arguments built from that tool's own
JSON schema.  The turn index is the number of tool results already in the conversation, so
the server is stateless.  A request that offers no shell tool (title generation, summaries ...)
gets the turn's text (or "OK.").

The scenario is chosen per request by a path prefix:  http://127.0.0.1:PORT/s/<scenario>/v1/...
(otherwise the --scenario / script default).  An optional /p/<tag> before it
(http://127.0.0.1:PORT/p/<tag>/s/<scenario>/v1/...) is only recorded in the log ("tag"), to tell
clients and runs apart.  POST /_mock/scenario {"scenario": "tool"} changes
the default at run time.

Every request is appended to a JSONL log (--log): path, headers (auth removed), body bytes,
number of tools, chars of system prompt and of tool schemas, model, stream flag, reply kind.
--dump-dir also keeps every request body as a file for inspection.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import socket
import sys
import threading
import time
import uuid
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

try:  # optional: some clients compress request bodies with zstd
    import zstandard  # type: ignore
except Exception:  # pragma: no cover
    zstandard = None

SECRET_HEADERS = {
    "authorization",
    "x-api-key",
    "api-key",
    "x-goog-api-key",
    "cookie",
    "proxy-authorization",
    "chatgpt-account-id",
}

DEFAULT_SCRIPT = {
    "default": "hello",
    "scenarios": {
        "hello": {"turns": [{"text": "Hello from mock."}]},
        "tool": {
            "turns": [
                {"shell": "echo hi", "text": "I will run the command."},
                {"text": "Done: the command printed hi."},
            ]
        },
    },
}

SHELL_NAME_RE = re.compile(
    r"(^|[_\-.])(bash|shell|sh|terminal|exec|execute|run|command|cmd)([_\-.]|$)"
    r"|^(bash|shell|exec_command|run_shell_command|run_terminal_cmd|"
    r"shell_command|local_shell|execute_bash|execute_command|run_command)$",
    re.I,
)


def est_tokens(n_chars: int) -> int:
    return max(1, n_chars // 4)


def now_id(prefix: str) -> str:
    return prefix + uuid.uuid4().hex[:24]


# ----------------------------------------------------------------------------------------------
# Request analysis (provider-neutral view)
# ----------------------------------------------------------------------------------------------
class ToolSpec:
    def __init__(
        self, name: str, schema: dict | None, kind: str = "function", namespace: str | None = None
    ):
        self.name = name
        self.schema = schema or {}
        self.kind = kind  # function | local_shell | custom
        self.namespace = namespace


def _text_of(content) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        out = []
        for c in content:
            if isinstance(c, str):
                out.append(c)
            elif isinstance(c, dict):
                t = c.get("text")
                if isinstance(t, str):
                    out.append(t)
        return "".join(out)
    if isinstance(content, dict):
        return _text_of(content.get("parts") or content.get("text"))
    return ""


def analyze(api: str, body: dict) -> dict:
    """Return tools, system chars, tool-schema chars, count of tool results, last user text."""
    tools: list[ToolSpec] = []
    system_chars = 0
    tool_results = 0
    last_user = ""
    n_messages = 0
    raw_tools = body.get("tools") or []
    if api == "anthropic":
        sysv = body.get("system")
        system_chars = len(_text_of(sysv))
        for t in raw_tools:
            if isinstance(t, dict) and "name" in t:
                tools.append(
                    ToolSpec(
                        t["name"],
                        t.get("input_schema"),
                        "function" if "input_schema" in t else t.get("type", "server"),
                    )
                )
        msgs = body.get("messages") or []
        n_messages = len(msgs)
        for m in msgs:
            c = m.get("content")
            if isinstance(c, list):
                tool_results += sum(
                    1 for b in c if isinstance(b, dict) and b.get("type") == "tool_result"
                )
            if m.get("role") == "user":
                txt = (
                    _text_of(c)
                    if not isinstance(c, list)
                    else "".join(
                        b.get("text", "")
                        for b in c
                        if isinstance(b, dict) and b.get("type") == "text"
                    )
                )
                if txt:
                    last_user = txt
    elif api == "chat":
        for t in raw_tools:
            if isinstance(t, dict):
                f = t.get("function") or {}
                if f.get("name"):
                    tools.append(ToolSpec(f["name"], f.get("parameters")))
        for f in body.get("functions") or []:
            tools.append(ToolSpec(f.get("name", "?"), f.get("parameters")))
        msgs = body.get("messages") or []
        n_messages = len(msgs)
        for m in msgs:
            role = m.get("role")
            if role in ("system", "developer"):
                system_chars += len(_text_of(m.get("content")))
            elif role in ("tool", "function"):
                tool_results += 1
            elif role == "user":
                txt = _text_of(m.get("content"))
                if txt:
                    last_user = txt
    elif api == "responses":
        system_chars = len(body.get("instructions") or "")
        inp = body.get("input")
        # Newer Codex versions also ship tools inside the input as {"type": "additional_tools"} items.
        extra = (
            [it for it in inp if isinstance(it, dict) and it.get("type") == "additional_tools"]
            if isinstance(inp, list)
            else []
        )
        raw_tools = list(raw_tools) + [t for it in extra for t in (it.get("tools") or [])]

        def add(t, ns=None):
            if not isinstance(t, dict):
                return
            ty = t.get("type")
            if ty == "namespace":
                for sub in t.get("tools") or []:
                    add(sub, t.get("name"))
            elif ty == "function":
                tools.append(ToolSpec(t.get("name", "?"), t.get("parameters"), "function", ns))
            elif ty == "local_shell":
                tools.append(ToolSpec("local_shell", None, "local_shell"))
            elif ty == "custom":
                tools.append(ToolSpec(t.get("name", "?"), None, "custom", ns))
            else:
                tools.append(ToolSpec(t.get("name") or ty or "?", None, ty or "?"))

        for t in raw_tools:
            add(t)
        if isinstance(inp, str):
            last_user = inp
            n_messages = 1
        elif isinstance(inp, list):
            n_messages = len(inp)
            for it in inp:
                ty = it.get("type")
                role = it.get("role")
                if ty in (
                    "function_call_output",
                    "local_shell_call_output",
                    "custom_tool_call_output",
                ):
                    tool_results += 1
                elif role in ("system", "developer"):
                    system_chars += len(_text_of(it.get("content")))
                elif role == "user":
                    txt = _text_of(it.get("content"))
                    if txt:
                        last_user = txt
    elif api == "gemini":
        si = body.get("systemInstruction") or body.get("system_instruction")
        system_chars = len(_text_of(si)) if si else 0
        for t in raw_tools:
            for fd in t.get("functionDeclarations") or t.get("function_declarations") or []:
                tools.append(
                    ToolSpec(
                        fd.get("name", "?"), fd.get("parametersJsonSchema") or fd.get("parameters")
                    )
                )
        contents = body.get("contents") or []
        n_messages = len(contents)
        for c in contents:
            parts = c.get("parts") or []
            tool_results += sum(
                1
                for p in parts
                if isinstance(p, dict) and ("functionResponse" in p or "function_response" in p)
            )
            if c.get("role") == "user":
                txt = "".join(p.get("text", "") for p in parts if isinstance(p, dict))
                if txt:
                    last_user = txt
    tools_chars = len(json.dumps(raw_tools, separators=(",", ":"))) if raw_tools else 0
    return {
        "tools": tools,
        "system_chars": system_chars,
        "tools_chars": tools_chars,
        "tool_results": tool_results,
        "last_user": last_user,
        "n_messages": n_messages,
    }


def pick_shell_tool(tools: list[ToolSpec]) -> ToolSpec | None:
    for t in tools:
        if t.kind == "local_shell":
            return t
    cands = [t for t in tools if t.kind == "function" and SHELL_NAME_RE.search(t.name)]

    # Prefer tools whose schema has a command-ish property.
    def score(t: ToolSpec) -> int:
        props = (t.schema or {}).get("properties") or {}
        s = 0
        if any(k in props for k in ("command", "cmd", "commands")):
            s += 10
        if re.fullmatch(r"(?i)bash|shell|run_shell_command|exec_command|shell_command", t.name):
            s += 5
        if re.search(r"(?i)background|output|kill|status|write_stdin", t.name):
            s -= 20
        return s

    cands.sort(key=score, reverse=True)
    if cands and score(cands[0]) > 0:
        return cands[0]
    return None


def build_args(tool: ToolSpec, command: str) -> dict:
    schema = tool.schema or {}
    props = schema.get("properties") or {}
    required = list(schema.get("required") or [])
    args: dict = {}
    cmd_key = next(
        (k for k in ("command", "cmd", "commands", "script", "code") if k in props), None
    )
    if cmd_key is None and props:
        cmd_key = next(iter(props))
    if cmd_key is None:
        cmd_key = "command"
    ptype = (props.get(cmd_key) or {}).get("type")
    if ptype == "array" or (isinstance(ptype, list) and "array" in ptype):
        args[cmd_key] = ["bash", "-lc", command]
    else:
        args[cmd_key] = command
    for k in required:
        if k in args:
            continue
        p = props.get(k) or {}
        ty = p.get("type")
        if isinstance(ty, list):
            ty = next((x for x in ty if x != "null"), "string")
        if "enum" in p and p["enum"]:
            args[k] = p["enum"][0]
        elif ty in ("integer", "number"):
            args[k] = 10000 if "timeout" in k.lower() else 1
        elif ty == "boolean":
            args[k] = False
        elif ty == "array":
            args[k] = []
        elif ty == "object":
            args[k] = {}
        elif "dir" in k.lower() or "cwd" in k.lower() or "path" in k.lower():
            args[k] = os.getcwd()
        else:
            args[k] = "Print hi" if "desc" in k.lower() else command
    return args


def sample_from_schema(schema, key: str = ""):
    """A small value that satisfies a JSON schema (enough for clients' structured-output side calls)."""
    if not isinstance(schema, dict):
        return {}
    for alt in ("anyOf", "oneOf"):
        if schema.get(alt):
            return sample_from_schema(schema[alt][0], key)
    if "const" in schema:
        return schema["const"]
    enum = schema.get("enum")
    if enum:
        if "user" in enum and "speaker" in key:
            return "user"
        return enum[0]
    ty = schema.get("type")
    if isinstance(ty, list):
        ty = next((x for x in ty if str(x).lower() != "null"), "string")
    ty = str(ty or ("object" if "properties" in schema else "string")).lower()
    if ty == "object":
        props = schema.get("properties") or {}
        req = schema.get("required")
        keys = req if req is not None else list(props)
        return {k: sample_from_schema(props.get(k, {}), k) for k in keys}
    if ty == "array":
        n = schema.get("minItems") or 0
        return [sample_from_schema(schema.get("items") or {}, key) for _ in range(n)]
    if ty == "integer":
        return int(schema.get("minimum", 1))
    if ty == "number":
        return float(schema.get("minimum", 1))
    if ty == "boolean":
        return False
    return "mock"


def json_request(api: str, body: dict):
    """Return a JSON schema (or {}) when the request asks for structured JSON output, else None."""
    if api == "gemini":
        gc = body.get("generationConfig") or body.get("generation_config") or {}
        if (gc.get("responseMimeType") or gc.get("response_mime_type")) == "application/json":
            return (
                gc.get("responseJsonSchema")
                or gc.get("responseSchema")
                or gc.get("response_schema")
                or {}
            )
    elif api == "chat":
        rf = body.get("response_format") or {}
        if rf.get("type") == "json_schema":
            return (rf.get("json_schema") or {}).get("schema") or {}
        if rf.get("type") == "json_object":
            return {}
    elif api == "responses":
        fmt = (body.get("text") or {}).get("format") or {}
        if fmt.get("type") == "json_schema":
            return fmt.get("schema") or {}
        if fmt.get("type") == "json_object":
            return {}
    elif api == "anthropic":
        of = body.get("output_format") or (body.get("output_config") or {}).get("format") or {}
        if of.get("type") == "json_schema":
            return of.get("schema") or {}
    return None


def decide(script: dict, scenario: str, info: dict) -> dict:
    """Return {"text": str, "call": (ToolSpec, args) | None}."""
    if info.get("json_schema") is not None:
        return {
            "text": json.dumps(sample_from_schema(info["json_schema"])),
            "call": None,
            "turn": -1,
            "json": True,
        }
    sc = script["scenarios"].get(scenario) or script["scenarios"][script.get("default", "hello")]
    turns = sc.get("turns") or [{"text": "OK."}]
    idx = min(info["tool_results"], len(turns) - 1)
    turn = turns[idx]
    text = turn.get("text", "")
    call = None
    if turn.get("shell"):
        tool = pick_shell_tool(info["tools"])
        if tool is not None:
            call = (tool, build_args(tool, turn["shell"]))
        elif not text:
            text = "OK."
    if call is None and not text:
        text = "OK."
    return {"text": text, "call": call, "turn": idx}


def chunks(s: str, n: int = 12):
    if not s:
        return []
    return [s[i : i + n] for i in range(0, len(s), n)]


# ----------------------------------------------------------------------------------------------
# HTTP
# ----------------------------------------------------------------------------------------------
class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, addr, handler, script, log_path, dump_dir, scenario, delay):
        super().__init__(addr, handler)
        self.script = script
        self.log_path = log_path
        self.dump_dir = dump_dir
        self.scenario = scenario
        self.delay = delay
        self.lock = threading.Lock()
        self.seq = 0


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "mockllm/1.0"
    server: Server

    def log_message(self, fmt, *args):  # silence default stderr logging
        pass

    def setup(self):
        super().setup()
        # Added in this copy: as real API servers do. Without it the many small chunk writes wait
        # for a client's delayed ACK on a kept-alive connection (40 ms a request).
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    # ---- plumbing -------------------------------------------------------------------------
    def _read_body(self) -> tuple[bytes, int]:
        te = (self.headers.get("Transfer-Encoding") or "").lower()
        if "chunked" in te:
            data = bytearray()
            while True:
                line = self.rfile.readline()
                size = int(line.split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    break
                data += self.rfile.read(size)
                self.rfile.readline()
            raw = bytes(data)
        else:
            n = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(n) if n else b""
        wire = len(raw)
        enc = (self.headers.get("Content-Encoding") or "").lower()
        if enc == "gzip":
            raw = gzip.decompress(raw)
        elif enc == "deflate":
            raw = zlib.decompress(raw)
        elif enc in ("zstd", "zst"):
            if zstandard is None:
                raise RuntimeError("zstd request body but python 'zstandard' is not installed")
            raw = zstandard.ZstdDecompressor().decompressobj().decompress(raw)
        return raw, wire

    def _send_json(self, code: int, obj, extra_headers: dict | None = None):
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (extra_headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def _start_sse(self, extra_headers: dict | None = None):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        for k, v in (extra_headers or {}).items():
            self.send_header(k, v)
        self.end_headers()

    def _chunk(self, data: bytes):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()
        if self.server.delay:
            time.sleep(self.server.delay)

    def _event(self, name: str | None, obj):
        payload = obj if isinstance(obj, str) else json.dumps(obj)
        head = f"event: {name}\n" if name else ""
        self._chunk(f"{head}data: {payload}\n\n".encode())

    def _end_sse(self):
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _log(self, rec: dict):
        with self.server.lock:
            self.server.seq += 1
            rec["seq"] = self.server.seq
            if self.server.log_path:
                with open(self.server.log_path, "a") as f:
                    f.write(json.dumps(rec) + "\n")
        return rec["seq"]

    # ---- routing ----------------------------------------------------------------------------
    def _route(self, method: str):
        t0 = time.time()
        url = urlsplit(self.path)
        path = url.path
        scenario = self.server.scenario
        tag = None
        m = re.match(r"^(?:/p/([A-Za-z0-9_.\-]+))?(?:/s/([A-Za-z0-9_\-]+))?(/.*)?$", path)
        if m and (m.group(1) or m.group(2)):
            tag = m.group(1)
            scenario = m.group(2) or scenario
            path = m.group(3) or "/"
        query = parse_qs(url.query)
        try:
            raw, wire = self._read_body() if method in ("POST", "PUT") else (b"", 0)
        except Exception as e:  # noqa: BLE001
            self._send_json(400, {"error": {"message": f"bad body: {e}"}})
            return
        body = {}
        if raw:
            try:
                body = json.loads(raw)
            except Exception:
                body = {}
        headers = {k.lower(): v for k, v in self.headers.items() if k.lower() not in SECRET_HEADERS}
        rec = {
            "t": round(t0, 6),
            "method": method,
            "path": self.path,
            "route": path,
            "tag": tag,
            "scenario": scenario,
            "headers": headers,
            "body_bytes": len(raw),
            "wire_bytes": wire,
        }
        api = None
        if method == "POST":
            if path.endswith("/messages/count_tokens"):
                api = "anthropic_count"
            elif path.endswith("/messages"):
                api = "anthropic"
            elif path.endswith("/chat/completions"):
                api = "chat"
            elif path.endswith("/responses"):
                api = "responses"
            elif ":generateContent" in path or ":streamGenerateContent" in path:
                api = "gemini"
            elif ":countTokens" in path:
                api = "gemini_count"
            elif path == "/_mock/scenario":
                self.server.scenario = body.get("scenario", self.server.scenario)
                self._send_json(200, {"scenario": self.server.scenario})
                return
        rec["api"] = api or "other"
        info = None
        if api in ("anthropic", "chat", "responses", "gemini"):
            info = analyze(api, body)
            info["json_schema"] = json_request(api, body)
            rec.update(
                {
                    "model": body.get("model")
                    or (re.search(r"models/([^:/]+)", path) or [None, None])[1],
                    "stream": bool(body.get("stream")) or ":streamGenerateContent" in path,
                    "n_tools": len(info["tools"]),
                    "tool_names": [t.name for t in info["tools"]],
                    "system_chars": info["system_chars"],
                    "tools_chars": info["tools_chars"],
                    "overhead_chars": info["system_chars"] + info["tools_chars"],
                    "n_messages": info["n_messages"],
                    "tool_results": info["tool_results"],
                    "max_tokens": body.get("max_tokens")
                    or body.get("max_output_tokens")
                    or body.get("max_completion_tokens"),
                }
            )
        seq = None
        try:
            if api == "anthropic":
                d = decide(self.server.script, scenario, info)
                rec["reply"] = self._reply_kind(d)
                seq = self._log(rec)
                self._anthropic(body, info, d)
            elif api == "anthropic_count":
                seq = self._log(rec)
                n = len(raw)
                self._send_json(200, {"input_tokens": est_tokens(n)})
            elif api == "chat":
                d = decide(self.server.script, scenario, info)
                rec["reply"] = self._reply_kind(d)
                seq = self._log(rec)
                self._chat(body, info, d)
            elif api == "responses":
                d = decide(self.server.script, scenario, info)
                rec["reply"] = self._reply_kind(d)
                seq = self._log(rec)
                self._responses(body, info, d)
            elif api == "gemini":
                d = decide(self.server.script, scenario, info)
                rec["reply"] = self._reply_kind(d)
                seq = self._log(rec)
                self._gemini(path, query, body, info, d)
            elif api == "gemini_count":
                seq = self._log(rec)
                self._send_json(200, {"totalTokens": est_tokens(len(raw))})
            elif method == "GET" and path.rstrip("/").endswith("/models"):
                seq = self._log(rec)
                self._models(headers)
            elif method == "GET" and re.search(r"/models/[^/]+$", path):
                seq = self._log(rec)
                mid = path.rsplit("/", 1)[1]
                self._send_json(
                    200,
                    {
                        "id": mid,
                        "object": "model",
                        "created": 0,
                        "owned_by": "mock",
                        "type": "model",
                        "display_name": mid,
                        "created_at": "2025-01-01T00:00:00Z",
                    },
                )
            elif method in ("GET", "HEAD") and path in ("/", "/health", "/healthz"):
                seq = self._log(rec)
                self._send_json(200, {"ok": True})
            else:
                rec["unhandled"] = True
                seq = self._log(rec)
                self._send_json(
                    404,
                    {
                        "error": {
                            "type": "not_found_error",
                            "message": f"mockllm: no route {method} {path}",
                        }
                    },
                )
        except (BrokenPipeError, ConnectionResetError):
            pass
        if self.server.dump_dir and raw and seq is not None:
            with open(os.path.join(self.server.dump_dir, f"{seq:05d}.json"), "wb") as f:
                f.write(raw)

    @staticmethod
    def _reply_kind(d):
        if d.get("json"):
            return "json"
        return f"tool:{d['call'][0].name}" if d["call"] else "text"

    def do_POST(self):
        self._route("POST")

    def do_GET(self):
        self._route("GET")

    def do_HEAD(self):
        self._route("HEAD")

    def do_PUT(self):
        self._route("PUT")

    def do_DELETE(self):
        self._route("DELETE")

    # ---- /v1/models ----------------------------------------------------------------------------
    def _models(self, headers):
        ids = ["mock-model", "claude-sonnet-4-5", "gpt-5", "gemini-2.5-pro"]
        if "anthropic-version" in headers:
            data = [
                {"type": "model", "id": i, "display_name": i, "created_at": "2025-01-01T00:00:00Z"}
                for i in ids
            ]
            self._send_json(
                200, {"data": data, "has_more": False, "first_id": ids[0], "last_id": ids[-1]}
            )
        else:
            self._send_json(
                200,
                {
                    "object": "list",
                    "data": [
                        {"id": i, "object": "model", "created": 1735689600, "owned_by": "mock"}
                        for i in ids
                    ],
                },
            )

    # ---- Anthropic ------------------------------------------------------------------------------
    def _anthropic(self, body, info, d):
        model = body.get("model") or "mock-model"
        in_tok = est_tokens(info["system_chars"] + info["tools_chars"] + 200)
        mid = now_id("msg_")
        blocks = []
        if d["text"]:
            blocks.append({"type": "text", "text": d["text"]})
        if d["call"]:
            tool, args = d["call"]
            blocks.append(
                {"type": "tool_use", "id": now_id("toolu_"), "name": tool.name, "input": args}
            )
        stop = "tool_use" if d["call"] else "end_turn"
        out_tok = est_tokens(len(json.dumps(blocks)))
        usage = {
            "input_tokens": in_tok,
            "output_tokens": out_tok,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        }
        hdrs = {"request-id": now_id("req_"), "anthropic-organization-id": "mock"}
        if not body.get("stream"):
            self._send_json(
                200,
                {
                    "id": mid,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": blocks,
                    "stop_reason": stop,
                    "stop_sequence": None,
                    "usage": usage,
                },
                hdrs,
            )
            return
        self._start_sse(hdrs)
        self._event(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": mid,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {**usage, "output_tokens": 1},
                },
            },
        )
        self._event("ping", {"type": "ping"})
        for i, b in enumerate(blocks):
            if b["type"] == "text":
                self._event(
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": i,
                        "content_block": {"type": "text", "text": ""},
                    },
                )
                for c in chunks(b["text"]):
                    self._event(
                        "content_block_delta",
                        {
                            "type": "content_block_delta",
                            "index": i,
                            "delta": {"type": "text_delta", "text": c},
                        },
                    )
            else:
                self._event(
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": i,
                        "content_block": {
                            "type": "tool_use",
                            "id": b["id"],
                            "name": b["name"],
                            "input": {},
                        },
                    },
                )
                for c in chunks(json.dumps(b["input"]), 16):
                    self._event(
                        "content_block_delta",
                        {
                            "type": "content_block_delta",
                            "index": i,
                            "delta": {"type": "input_json_delta", "partial_json": c},
                        },
                    )
            self._event("content_block_stop", {"type": "content_block_stop", "index": i})
        self._event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": out_tok},
            },
        )
        self._event("message_stop", {"type": "message_stop"})
        self._end_sse()

    # ---- OpenAI Chat Completions -----------------------------------------------------------------
    def _chat(self, body, info, d):
        model = body.get("model") or "mock-model"
        cid = now_id("chatcmpl-")
        created = int(time.time())
        in_tok = est_tokens(info["system_chars"] + info["tools_chars"] + 200)
        calls = []
        if d["call"]:
            tool, args = d["call"]
            calls.append(
                {
                    "id": now_id("call_"),
                    "type": "function",
                    "function": {"name": tool.name, "arguments": json.dumps(args)},
                }
            )
        finish = "tool_calls" if calls else "stop"
        out_tok = est_tokens(len(d["text"]) + sum(len(c["function"]["arguments"]) for c in calls))
        usage = {
            "prompt_tokens": in_tok,
            "completion_tokens": out_tok,
            "total_tokens": in_tok + out_tok,
            "prompt_tokens_details": {"cached_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0},
        }
        if not body.get("stream"):
            msg = {"role": "assistant", "content": d["text"] or None}
            if calls:
                msg["tool_calls"] = calls
            self._send_json(
                200,
                {
                    "id": cid,
                    "object": "chat.completion",
                    "created": created,
                    "model": model,
                    "system_fingerprint": "mock",
                    "choices": [
                        {"index": 0, "message": msg, "logprobs": None, "finish_reason": finish}
                    ],
                    "usage": usage,
                },
            )
            return
        base = {
            "id": cid,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "system_fingerprint": "mock",
        }

        def chunk(delta, finish_reason=None):
            return {
                **base,
                "choices": [
                    {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
                ],
            }

        self._start_sse()
        self._event(None, chunk({"role": "assistant", "content": ""}))
        for c in chunks(d["text"]):
            self._event(None, chunk({"content": c}))
        for i, call in enumerate(calls):
            self._event(
                None,
                chunk(
                    {
                        "tool_calls": [
                            {
                                "index": i,
                                "id": call["id"],
                                "type": "function",
                                "function": {"name": call["function"]["name"], "arguments": ""},
                            }
                        ]
                    }
                ),
            )
            for c in chunks(call["function"]["arguments"], 16):
                self._event(
                    None, chunk({"tool_calls": [{"index": i, "function": {"arguments": c}}]})
                )
        self._event(None, chunk({}, finish))
        if (body.get("stream_options") or {}).get("include_usage"):
            self._event(None, {**base, "choices": [], "usage": usage})
        self._event(None, "[DONE]")
        self._end_sse()

    # ---- OpenAI Responses ---------------------------------------------------------------------------
    def _responses(self, body, info, d):
        model = body.get("model") or "mock-model"
        rid = now_id("resp_")
        created = int(time.time())
        in_tok = est_tokens(info["system_chars"] + info["tools_chars"] + 200)
        items = []
        if d["text"]:
            items.append(
                {
                    "id": now_id("msg_"),
                    "type": "message",
                    "status": "completed",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": d["text"], "annotations": []}],
                }
            )
        if d["call"]:
            tool, args = d["call"]
            if tool.kind == "local_shell":
                items.append(
                    {
                        "id": now_id("lsh_"),
                        "type": "local_shell_call",
                        "status": "completed",
                        "call_id": now_id("call_"),
                        "action": {
                            "type": "exec",
                            "command": [
                                "bash",
                                "-lc",
                                args.get("command")
                                if isinstance(args.get("command"), str)
                                else "echo hi",
                            ],
                            "env": {},
                            "timeout_ms": 10000,
                        },
                    }
                )
            else:
                fc = {
                    "id": now_id("fc_"),
                    "type": "function_call",
                    "status": "completed",
                    "call_id": now_id("call_"),
                    "name": tool.name,
                    "arguments": json.dumps(args),
                }
                if tool.namespace:
                    fc["namespace"] = tool.namespace
                items.append(fc)
        out_tok = est_tokens(len(json.dumps(items)))
        usage = {
            "input_tokens": in_tok,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": out_tok,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": in_tok + out_tok,
        }
        resp = {
            "id": rid,
            "object": "response",
            "created_at": created,
            "status": "in_progress",
            "error": None,
            "incomplete_details": None,
            "instructions": None,
            "model": model,
            "output": [],
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "usage": None,
            "metadata": {},
        }
        final = {**resp, "status": "completed", "output": items, "usage": usage}
        if not body.get("stream"):
            self._send_json(200, final)
            return
        seqn = [0]

        def ev(name, obj):
            obj = {"type": name, "sequence_number": seqn[0], **obj}
            seqn[0] += 1
            self._event(name, obj)

        self._start_sse({"x-request-id": now_id("req_")})
        ev("response.created", {"response": resp})
        ev("response.in_progress", {"response": resp})
        for oi, it in enumerate(items):
            if it["type"] == "message":
                ev(
                    "response.output_item.added",
                    {"output_index": oi, "item": {**it, "status": "in_progress", "content": []}},
                )
                part0 = {"type": "output_text", "text": "", "annotations": []}
                ev(
                    "response.content_part.added",
                    {"item_id": it["id"], "output_index": oi, "content_index": 0, "part": part0},
                )
                text = it["content"][0]["text"]
                for c in chunks(text):
                    ev(
                        "response.output_text.delta",
                        {
                            "item_id": it["id"],
                            "output_index": oi,
                            "content_index": 0,
                            "delta": c,
                            "logprobs": [],
                        },
                    )
                ev(
                    "response.output_text.done",
                    {
                        "item_id": it["id"],
                        "output_index": oi,
                        "content_index": 0,
                        "text": text,
                        "logprobs": [],
                    },
                )
                ev(
                    "response.content_part.done",
                    {
                        "item_id": it["id"],
                        "output_index": oi,
                        "content_index": 0,
                        "part": it["content"][0],
                    },
                )
            elif it["type"] == "function_call":
                ev(
                    "response.output_item.added",
                    {"output_index": oi, "item": {**it, "status": "in_progress", "arguments": ""}},
                )
                for c in chunks(it["arguments"], 16):
                    ev(
                        "response.function_call_arguments.delta",
                        {"item_id": it["id"], "output_index": oi, "delta": c},
                    )
                ev(
                    "response.function_call_arguments.done",
                    {"item_id": it["id"], "output_index": oi, "arguments": it["arguments"]},
                )
            else:
                ev("response.output_item.added", {"output_index": oi, "item": it})
            ev("response.output_item.done", {"output_index": oi, "item": it})
        ev("response.completed", {"response": final})
        self._end_sse()

    # ---- Gemini ----------------------------------------------------------------------------------------
    def _gemini(self, path, query, body, info, d):
        parts = []
        if d["text"]:
            parts.append({"text": d["text"]})
        if d["call"]:
            tool, args = d["call"]
            parts.append({"functionCall": {"name": tool.name, "args": args}})
        in_tok = est_tokens(info["system_chars"] + info["tools_chars"] + 200)
        out_tok = est_tokens(len(json.dumps(parts)))
        usage = {
            "promptTokenCount": in_tok,
            "candidatesTokenCount": out_tok,
            "totalTokenCount": in_tok + out_tok,
        }
        model = (re.search(r"models/([^:/]+)", path) or [None, "mock-model"])[1]
        rid = now_id("")

        def cand(ps, finish=None):
            c = {"content": {"parts": ps, "role": "model"}, "index": 0}
            if finish:
                c["finishReason"] = finish
            return c

        if ":streamGenerateContent" not in path:
            self._send_json(
                200,
                {
                    "candidates": [cand(parts, "STOP")],
                    "usageMetadata": usage,
                    "modelVersion": model,
                    "responseId": rid,
                },
            )
            return
        sse = (query.get("alt") or [""])[0] == "sse"
        events = []
        text_chunks = chunks(d["text"], 12)
        for c in text_chunks:
            events.append(
                {"candidates": [cand([{"text": c}])], "modelVersion": model, "responseId": rid}
            )
        if d["call"]:
            events.append(
                {"candidates": [cand([parts[-1]])], "modelVersion": model, "responseId": rid}
            )
        if not events:
            events.append(
                {"candidates": [cand([{"text": ""}])], "modelVersion": model, "responseId": rid}
            )
        events[-1]["candidates"][0]["finishReason"] = "STOP"
        events[-1]["usageMetadata"] = usage
        if sse:
            self._start_sse()
            for e in events:
                self._event(None, e)
            self._end_sse()
        else:  # JSON array streaming
            self._send_json(200, events)


def main(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0, help="0 = pick a free port")
    ap.add_argument("--script", help="JSON script file (default: built-in hello/tool)")
    ap.add_argument("--scenario", help="default scenario when no /s/<name>/ prefix is used")
    ap.add_argument("--log", help="append one JSON line per request here")
    ap.add_argument("--dump-dir", help="keep each request body as DIR/<seq>.json")
    ap.add_argument(
        "--delay", type=float, default=0.0, help="seconds to sleep after each SSE chunk"
    )
    ap.add_argument("--port-file", help="write the bound port number here once listening")
    a = ap.parse_args(argv)
    if a.host not in ("127.0.0.1", "localhost", "::1"):
        ap.error("mockllm only binds to loopback")
    script = DEFAULT_SCRIPT
    if a.script:
        with open(a.script) as f:
            script = json.load(f)
    scenario = a.scenario or script.get("default", "hello")
    if a.dump_dir:
        os.makedirs(a.dump_dir, exist_ok=True)
    srv = Server((a.host, a.port), Handler, script, a.log, a.dump_dir, scenario, a.delay)
    port = srv.server_address[1]
    if a.port_file:
        with open(a.port_file + ".tmp", "w") as f:
            f.write(str(port))
        os.replace(a.port_file + ".tmp", a.port_file)
    print(
        f"mockllm listening on http://{a.host}:{port} (scenario={scenario})",
        file=sys.stderr,
        flush=True,
    )
    try:
        srv.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        srv.server_close()


if __name__ == "__main__":
    main()
