"""In the app, a pasted image path attaches the image (a chip shows it) and `#file:` of an image
sends it as an image (issue 14.2): a real Agent talking HTTP to the fake LLM server."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from textual import events

from agent_tui.ui.image_paste import ImageChips
from agent_tui.ui.widgets.notes import Note
from agent_tui.ui.widgets.prompt_input import PromptInput
from tests.agent.conftest import fake_agent, fake_agent_workspace
from tests.fakes.llm_server import FakeLLM
from tests.test_images_e2e import tiny_png
from tests.ui.app_helpers import running_app
from tests.ui.helpers import send, wait_idle


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return fake_agent_workspace(tmp_path, monkeypatch)


def sent_images(body: dict[str, object]) -> list[bytes]:
    return [
        base64.b64decode(block["source"]["data"])
        for message in body["messages"]  # type: ignore[attr-defined]
        for block in message["content"]
        if isinstance(block, dict) and block.get("type") == "image"
    ]


async def test_pasted_image_paths_attach_with_a_chip(workspace: Path, tmp_path: Path) -> None:
    outside = tmp_path / "my shot.png"  # dragged from elsewhere: a space, escaped by the terminal
    outside.write_bytes(tiny_png(1))
    (workspace / "in.png").write_bytes(tiny_png(2))
    (workspace / "fake.png").write_text("not an image\n")
    with FakeLLM([{"text": "I see two images."}]) as fake:
        async with running_app(fake_agent(workspace, fake, "anthropic")) as (app, pilot):
            prompt = app.query_one(PromptInput)
            chips = app.query_one(ImageChips)
            prompt.focus()
            for pasted in (str(outside).replace(" ", "\\ "), "'in.png'", "in.png"):
                app.post_message(events.Paste(pasted))  # as the terminal sends it
                await pilot.pause()
            assert prompt.text == ""  # attached, not typed
            assert [i.name for i in chips.images] == ["my shot.png", "in.png", "in.png"]
            assert "🖼 my shot.png (PNG" in str(chips.render()) and chips.display
            await pilot.press("backspace")  # in the empty prompt: drops the last chip
            assert [i.name for i in chips.images] == ["my shot.png", "in.png"]
            # Not an image by content, or not one file: pasted as text.
            for pasted in ("fake.png", "in.png\nin.png"):
                app.post_message(events.Paste(pasted))  # as the terminal sends it
                await pilot.pause()
            assert prompt.text == "fake.pngin.png\nin.png"
            assert len(chips.images) == 2
            await send(pilot, "what are these?")
            await wait_idle(pilot)
            assert chips.images == [] and not chips.display
            assert any("attached: my shot.png, in.png" in n.text for n in app.query(Note))
        body = fake.requests[0]
    assert sent_images(body) == [tiny_png(1), tiny_png(2)]
    assert "what are these?" in json.dumps(body)


async def test_file_reference_to_an_image_sends_the_image(workspace: Path) -> None:
    (workspace / "diagram.webp").write_bytes(b"RIFF\x10\0\0\0WEBPVP8 " + b"\0" * 8)
    with FakeLLM([{"text": "A diagram."}]) as fake:
        async with running_app(fake_agent(workspace, fake, "anthropic")) as (app, pilot):
            await send(pilot, "explain #file:diagram.webp")
            await wait_idle(pilot)
        body = fake.requests[0]
    images = [
        block["source"] for block in body["messages"][0]["content"] if block.get("type") == "image"
    ]
    assert [i["media_type"] for i in images] == ["image/webp"]
    assert "<attachment" not in json.dumps(body["messages"])  # the image is not inlined as text
