"""Images reach the model (issue 14.2): `-p --image`, read_file of a PNG, MCP image content, over
Anthropic, OpenAI Chat Completions and the OpenAI Responses API, both transports; a model without
vision gets the text placeholder instead. Real `agent-tui -p` processes against the fake server.
"""

from __future__ import annotations

import base64
import json
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.llm_server import FakeLLM
from tests.fakes.validate import problems
from tests.helpers import new_workspace, run_on_api
from tests.mcp.conftest import everything_home, everything_js  # noqa: F401  (fixture)

KEY = "sk-test-images"
APIS = ["anthropic", "openai", "responses"]
COMBOS = [(api, transport) for api in APIS for transport in ("httpx", "sdk")]


def tiny_png(seed: int = 0) -> bytes:
    """A real 1x1 PNG (its pixel varies with ``seed``, so two images differ)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(bytes([0, seed % 256, 120, 200]))
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return new_workspace(tmp_path)


def run(
    ws: Path, fake: FakeLLM, combo: tuple[str, str], *args: str, home: Path | None = None
) -> Any:
    api, transport = combo
    provider = "anthropic" if api == "anthropic" else "openai"
    flags = ["--transport", transport]
    if provider == "openai":
        flags += ["--wire-api", "chat" if api == "openai" else "responses"]
    env = {"HOME": str(home)} if home else None
    output = () if "--output-format" in args else ("--output-format", "json")
    return run_on_api(
        ws, fake, provider, *flags, *args, *output, key=KEY, model="m", env=env, timeout=90
    )


def user_images(body: dict[str, Any], api: str) -> list[str]:
    """The base64 data of every image in the request's user turns, where each API wants them."""
    found = []
    if api == "anthropic":
        for message in body["messages"]:
            for block in message["content"] if isinstance(message["content"], list) else []:
                if block["type"] == "image":
                    found.append(block["source"]["data"])
                if block["type"] == "tool_result" and isinstance(block["content"], list):
                    found += [b["source"]["data"] for b in block["content"] if b["type"] == "image"]
    elif api == "openai":
        for message in body["messages"]:
            if message["role"] == "user" and isinstance(message["content"], list):
                for part in message["content"]:
                    if part["type"] == "image_url":
                        found.append(part["image_url"]["url"].split("base64,", 1)[1])
    else:
        for item in body["input"]:
            parts = item.get("content") if item["type"] == "message" else item.get("output")
            for part in parts if isinstance(parts, list) else []:
                if part["type"] == "input_image":
                    found.append(part["image_url"].split("base64,", 1)[1])
    return found


def check_valid(body: dict[str, Any], api: str) -> None:
    if api != "responses":
        assert problems(body, api) == []


@pytest.mark.parametrize("combo", COMBOS, ids=["-".join(c) for c in COMBOS])
def test_prompt_with_images_sends_them(ws: Path, fake_llm: FakeLLM, combo: tuple[str, str]) -> None:
    first, second = tiny_png(1), tiny_png(2)
    (ws.parent / "a.png").write_bytes(first)
    (ws.parent / "b.png").write_bytes(second)
    fake_llm.set_script([{"text": "Two squares."}])
    proc = run(ws, fake_llm, combo, "-p", "what is in these?", "--image", "../a.png", "--image",
               str(ws.parent / "b.png"))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    body = fake_llm.requests[0]
    check_valid(body, combo[0])
    sent = [base64.b64decode(d) for d in user_images(body, combo[0])]
    assert sent == [first, second]
    assert "what is in these?" in json.dumps(body)


@pytest.mark.parametrize("combo", COMBOS, ids=["-".join(c) for c in COMBOS])
def test_read_file_of_a_png_returns_the_image(
    ws: Path, fake_llm: FakeLLM, combo: tuple[str, str]
) -> None:
    png = tiny_png(7)
    (ws / "shot.png").write_bytes(png)
    call = {"id": "r1", "name": "read_file", "input": {"path": "shot.png"}}
    fake_llm.set_script([{"tool_calls": [call]}, {"text": "A blue pixel."}])
    proc = run(ws, fake_llm, combo, "-p", "look at shot.png")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.splitlines()[-1])["result"] == "A blue pixel."
    body = fake_llm.requests[1]
    check_valid(body, combo[0])
    assert [base64.b64decode(d) for d in user_images(body, combo[0])] == [png]
    text = json.dumps(body)
    assert "shot.png is an image (PNG" in text
    if combo[0] == "openai":  # the image part follows the tool message, in a user message
        roles = [m["role"] for m in body["messages"]]
        assert roles[-2:] == ["tool", "user"]


@pytest.mark.parametrize("api", APIS)
def test_model_without_vision_gets_the_placeholder(ws: Path, fake_llm: FakeLLM, api: str) -> None:
    png = tiny_png(3)
    (ws / "shot.png").write_bytes(png)
    (ws / ".agentrc").write_text("[model]\nvision = false\n")
    call = {"id": "r1", "name": "read_file", "input": {"path": "shot.png"}}
    fake_llm.set_script([{"tool_calls": [call]}, {"text": "I cannot see it."}])
    (ws.parent / "c.png").write_bytes(png)
    proc = run(ws, fake_llm, (api, "httpx"), "-p", "look", "--image", str(ws.parent / "c.png"))
    assert proc.returncode == 0, proc.stderr
    for body in fake_llm.requests:
        check_valid(body, api)
        assert user_images(body, api) == []
        assert base64.b64encode(png).decode() not in json.dumps(body)
    assert f"[image: c.png, image/png, {len(png)} bytes]" in json.dumps(fake_llm.requests[0])
    assert f"[image: shot.png, image/png, {len(png)} bytes]" in json.dumps(fake_llm.requests[1])


@pytest.mark.parametrize("name", ["notes.txt", "fake.png", "huge.png", "missing.png"])
def test_image_flag_refuses_what_is_not_an_image(ws: Path, fake_llm: FakeLLM, name: str) -> None:
    path = ws.parent / name
    if name == "notes.txt":
        path.write_text("just text")
    elif name == "fake.png":
        path.write_bytes(b"#!/bin/sh\necho not an image\n")
    elif name == "huge.png":
        path.write_bytes(tiny_png() + b"\0" * (5 * 1024 * 1024))
    proc = run(ws, fake_llm, ("anthropic", "httpx"), "-p", "look", "--image", str(path))
    assert proc.returncode == 2
    assert "--image:" in proc.stderr
    assert fake_llm.requests == []  # nothing was sent


@pytest.mark.parametrize("api", APIS)
def test_mcp_image_content_reaches_the_model(
    tmp_path: Path,
    ws: Path,
    fake_llm: FakeLLM,
    api: str,
    everything_js: Path,  # noqa: F811
) -> None:
    home = everything_home(tmp_path / "home", everything_js)
    tool = "mcp_everything_get-tiny-image"
    fake_llm.set_script([{"tool_calls": [{"id": "m1", "name": tool, "input": {}}]}, {"text": "ok"}])
    proc = run(ws, fake_llm, (api, "httpx"), "-p", "show me", "--allow-tool", tool, home=home)
    assert proc.returncode == 0, proc.stderr
    body = fake_llm.requests[1]
    check_valid(body, api)
    images = user_images(body, api)
    assert len(images) == 1 and base64.b64decode(images[0]).startswith(b"\x89PNG")
    assert "[image: image/png" not in json.dumps(body)


def test_stream_json_names_the_image_without_its_data(ws: Path, fake_llm: FakeLLM) -> None:
    png = tiny_png(9)
    (ws / "shot.png").write_bytes(png)
    call = {"id": "r1", "name": "read_file", "input": {"path": "shot.png"}}
    fake_llm.set_script([{"tool_calls": [call]}, {"text": "seen"}])
    proc = run(ws, fake_llm, ("anthropic", "httpx"), "-p", "look", "--output-format", "stream-json")
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    finished = next(e for e in events if e["type"] == "tool_call_finished")
    assert finished["result"]["images"] == [
        {"media_type": "image/png", "name": "shot.png", "type": "image"}
    ]
    assert base64.b64encode(png).decode() not in proc.stdout
