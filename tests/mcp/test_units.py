"""Pure pieces: tool names, result conversion, prompt arguments, resource templates."""

from __future__ import annotations

import pytest

from agent_tui.errors import UsageError
from agent_tui.mcp.prompts import MissingPromptArguments, parse_arguments, render_prompt
from agent_tui.mcp.resources import expand_template, split_reference, template_variables
from agent_tui.mcp.tools import MAX_NAME, build_manifest, to_tool_result, tool_name
from agent_tui.mcp.types import (
    CallOutcome,
    Part,
    PromptArg,
    PromptInfo,
    PromptMessage,
    PromptResult,
    ToolInfo,
)


def test_tool_names_are_sanitised_and_bounded() -> None:
    assert tool_name("everything", "get-sum") == "mcp_everything_get-sum"
    assert tool_name("my server", "do.it/now") == "mcp_my_server_do_it_now"
    long_a = tool_name("s", "x" * 80 + "a")
    long_b = tool_name("s", "x" * 80 + "b")
    assert len(long_a) == MAX_NAME and len(long_b) == MAX_NAME
    assert long_a != long_b  # shortened names stay distinct


def test_manifest_kind_follows_read_only_hint() -> None:
    read = build_manifest("s", ToolInfo("look", "Looks.", {"type": "object"}, read_only_hint=True))
    write = build_manifest("s", ToolInfo("poke", "", {}, title="Poke it"))
    assert (read.kind, read.read_only, read.source) == ("read", True, "mcp:s")
    assert (write.kind, write.read_only, write.display_name) == ("execute", False, "Poke it")
    assert write.input_schema["type"] == "object"  # {} becomes an object schema for the APIs
    assert "poke" in write.model_description


def test_results_render_every_content_kind() -> None:
    outcome = CallOutcome(
        parts=(
            Part("text", text="hello"),
            Part("image", mime="image/png", size=12, binary=True),
            Part("resource", uri="demo://a", mime="text/plain", text="inside"),
            Part("resource", uri="demo://b", mime="application/gzip", size=7, binary=True),
            Part("link", uri="demo://c", name="C"),
        )
    )
    content = to_tool_result(outcome).content
    assert "hello" in content
    assert "[image: image/png, 12 bytes]" in content
    assert "[resource demo://a (text/plain)]\ninside" in content
    assert "[resource demo://b: application/gzip, 7 bytes]" in content
    assert "[resource link: C <demo://c>]" in content


def test_structured_content_is_kept_and_shown_when_no_text() -> None:
    only = to_tool_result(CallOutcome(parts=(), structured={"t": 1}))
    assert only.content == '{"t": 1}' and only.data["structured_content"] == {"t": 1}
    mirrored = to_tool_result(
        CallOutcome(parts=(Part("text", text='{"t":1}'),), structured={"t": 1})
    )
    assert mirrored.content == '{"t":1}'  # the server's own text mirror is not duplicated
    error = to_tool_result(CallOutcome(parts=(), is_error=True))
    assert error.is_error and error.content


PROMPT = PromptInfo(
    "weather", arguments=(PromptArg("city", "Name of the city", True), PromptArg("state", ""))
)


def test_prompt_arguments_key_value_and_positional() -> None:
    assert parse_arguments(PROMPT, "city=Paris state=IDF") == {"city": "Paris", "state": "IDF"}
    assert parse_arguments(PROMPT, "Paris IDF") == {"city": "Paris", "state": "IDF"}
    assert parse_arguments(PROMPT, 'state=IDF "New York"') == {"city": "New York", "state": "IDF"}
    # Extra words go to the last free argument.
    assert parse_arguments(PROMPT, "Paris Ile de France") == {
        "city": "Paris",
        "state": "Ile de France",
    }


def test_prompt_missing_required_arguments_are_listed() -> None:
    with pytest.raises(MissingPromptArguments) as caught:
        parse_arguments(PROMPT, "state=IDF", command="mcp.w.weather")
    assert [a.name for a in caught.value.missing] == ["city"]
    assert "`city` (Name of the city)" in str(caught.value)


@pytest.mark.parametrize(
    ("prompt", "text", "message"),
    [
        (PROMPT, "town=Paris", "no argument `town`"),
        (PROMPT, 'city="Paris', "No closing quotation"),
        (PromptInfo("plain"), "anything", "too many values"),
    ],
)
def test_prompt_bad_arguments(prompt: PromptInfo, text: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        parse_arguments(prompt, text)


def test_render_prompt_single_and_multiple_messages() -> None:
    one = PromptResult("", (PromptMessage("user", (Part("text", text="Hi"),)),))
    assert render_prompt(one) == "Hi"
    two = PromptResult(
        "",
        (
            PromptMessage("user", (Part("text", text="Q"),)),
            PromptMessage("assistant", (Part("text", text="A"),)),
        ),
    )
    assert render_prompt(two) == "**user:** Q\n\n**assistant:** A"


def test_uri_templates() -> None:
    assert template_variables("demo://x/{id}/{+path}{?q,page}") == ["id", "path", "q", "page"]
    filled = expand_template(
        "demo://x/{id}/{+path}{?q,page}", {"id": "a b", "path": "d/e", "q": "x&y", "page": "2"}
    )
    assert filled == "demo://x/a%20b/d/e?q=x%26y&page=2"
    with pytest.raises(UsageError, match="needs: id"):
        expand_template("demo://x/{id}", {})


def test_split_reference() -> None:
    assert split_reference("mcp:srv/demo://r/{id} id=3") == ("srv", "demo://r/{id}", ["id=3"])
    assert split_reference("srv/file:///a b") == ("srv", "file:///a", ["b"])
    for bad in ("mcp:srv", "mcp:/demo://x", "mcp:srv/"):
        with pytest.raises(UsageError, match="#mcp:<server>/<resource uri>"):
            split_reference(bad)


def test_structured_content_goes_to_the_model_after_the_content_unless_mirrored() -> None:
    summary = Part("text", text="21 degrees in Oslo")
    both = to_tool_result(CallOutcome(parts=(summary,), structured={"city": "Oslo", "c": 21}))
    assert both.content == '21 degrees in Oslo\n{"city": "Oslo", "c": 21}'
    # The SDK's servers wrap a plain return value as {"result": value} and send it as the text.
    wrapped = to_tool_result(
        CallOutcome(parts=(Part("text", text="agent-tui"),), structured={"result": "agent-tui"})
    )
    assert wrapped.content == "agent-tui"


def test_image_content_reaches_the_model_only_when_it_is_an_image() -> None:
    """A server's image content goes to the model as an image only when its bytes are a PNG,
    JPEG, GIF or WebP within 5 MB; anything else (bad base64, a script labelled image/png, an
    oversized image) stays the ``[image: …]`` text (issue 14.2)."""
    import base64

    png = b"\x89PNG\r\n\x1a\n" + b"\0" * 20
    good = Part("image", mime="image/png", size=len(png), binary=True,
                data=base64.b64encode(png).decode())  # fmt: skip
    result = to_tool_result(CallOutcome(parts=(Part("text", text="here"), good)))
    assert [(i.media_type, base64.b64decode(i.data)) for i in result.images] == [("image/png", png)]
    assert result.content == "here"
    hostile = [
        Part("image", mime="image/png", size=3, binary=True, data="not base64!!"),
        Part(
            "image",
            mime="image/png",
            size=9,
            binary=True,
            data=base64.b64encode(b"#!/bin/sh\nrm -rf ~\n").decode(),
        ),  # fmt: skip
        Part(
            "image",
            mime="image/gif",
            size=6 * 1024 * 1024,
            binary=True,
            data=base64.b64encode(b"GIF89a" + b"\0" * (6 * 1024 * 1024)).decode(),
        ),  # fmt: skip
    ]
    for part in hostile:
        refused = to_tool_result(CallOutcome(parts=(part,)))
        assert refused.images == ()
        assert refused.content == f"[image: {part.mime}, {part.size} bytes]"
