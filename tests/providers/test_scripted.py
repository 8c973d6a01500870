"""The scripted provider, --record, and the provider registry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.config import ModelConfig
from agent_tui.errors import ConfigError, ProviderError, ProviderRateLimitError, StreamInterrupted
from agent_tui.providers import PROVIDERS, make_provider
from agent_tui.providers.anthropic import AnthropicProvider
from agent_tui.providers.base import (
    Stop,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
)
from agent_tui.providers.openai import OpenAIProvider
from agent_tui.providers.recording import RecordingProvider
from agent_tui.providers.scripted import ScriptedProvider
from tests.fakes.llm_server import FakeLLM

from .conftest import KEY_ENV, collect, collect_error, simple_request
from .test_streaming import text_of, tool_calls

TURNS = [
    {
        "thinking": "Look first.",
        "signature": "sig-9",
        "redacted_thinking": "EncBlob==",
        "text": "Let me read the file for you.",
        "tool_calls": [{"id": "c1", "name": "read_file", "input": {"path": "main.py"}}],
        "usage": {"input_tokens": 50, "output_tokens": 9},
    },
    {"text": "It prints hello."},
]


def scripted_config(script: Path | None) -> ModelConfig:
    return ModelConfig("scripted", "scripted", "", "", script=str(script) if script else None)


async def test_replays_turns_in_order_with_the_real_event_shapes(tmp_path: Path) -> None:
    script = tmp_path / "s.jsonl"
    script.write_text("\n".join(json.dumps(t) for t in TURNS) + "\n")
    provider = make_provider(scripted_config(script))
    assert isinstance(provider, ScriptedProvider)
    first = [e async for e in provider.stream(simple_request("what does main.py do?"))]
    assert len([e for e in first if isinstance(e, TextDelta)]) > 1  # chunked like a stream
    assert text_of(first) == "Let me read the file for you."
    assert ThinkingDelta("", "sig-9") in first
    assert tool_calls(first) == {
        0: {"id": "c1", "name": "read_file", "args": '{"path": "main.py"}', "ended": True}
    }
    assert first[-2:] == [Usage(input_tokens=50, output_tokens=9), Stop("tool_use")]
    second = await collect(provider)
    assert text_of(second) == "It prints hello." and second[-1] == Stop("end_turn")
    assert provider.requests[0].messages[0].text == "what does main.py do?"


async def test_running_out_of_turns_is_a_clear_error(tmp_path: Path) -> None:
    provider = ScriptedProvider([{"text": "only one"}])
    await collect(provider)
    _, error = await collect_error(provider)
    assert "no more turns (1 played)" in str(error) and "--record" in str(error)


async def test_scripted_faults() -> None:
    provider = ScriptedProvider(
        [
            {"text": "cut in the middle of this sentence please", "fault": "cut"},
            {
                "tool_calls": [{"name": "read_file", "input": {"a": 1}}],
                "fault": "malformed_tool_json",
            },
            {"text": "after a 429", "fault": {"status": 429, "times": 1}},
        ]
    )
    events, error = await collect_error(provider)
    assert isinstance(error, StreamInterrupted)
    assert error.partial_text == text_of(events) and error.partial_text
    malformed = await collect(provider)
    assert "".join(e.arguments for e in malformed if isinstance(e, ToolCallDelta)) == '{"a": 1'
    _, limited = await collect_error(provider)
    assert isinstance(limited, ProviderRateLimitError)
    assert text_of(await collect(provider)) == "after a 429"


def test_script_errors_name_the_file_and_key(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"txet": "typo"}]))
    with pytest.raises(ConfigError) as info:
        make_provider(scripted_config(bad))
    assert str(bad) in str(info.value) and "turn 1" in str(info.value) and "txet" in str(info.value)
    with pytest.raises(ConfigError, match="not valid JSON"):
        bad.write_text("[{")
        ScriptedProvider(bad)
    with pytest.raises(ConfigError, match="cannot read"):
        ScriptedProvider(tmp_path / "missing.json")
    with pytest.raises(ConfigError, match="needs a script"):
        make_provider(scripted_config(None))
    with pytest.raises(ConfigError, match="unknown fault"):
        ScriptedProvider([{"fault": "explode"}])


def test_registry_builds_each_provider_and_refuses_unknown_names() -> None:
    anthropic = make_provider(ModelConfig("anthropic", "m", "https://api.anthropic.com", "K"))
    openai = make_provider(ModelConfig("openai", "m", "https://api.openai.com/v1", "K"))
    assert isinstance(anthropic, AnthropicProvider) and isinstance(openai, OpenAIProvider)
    assert set(PROVIDERS) >= {"anthropic", "openai", "scripted"}
    with pytest.raises(ConfigError) as info:
        make_provider(ModelConfig("gemini", "m", "", ""))
    assert info.value.key == "model.provider" and "anthropic" in str(info.value)


@pytest.mark.parametrize("api", ["anthropic", "openai"])
async def test_record_then_replay_gives_the_same_turns(
    fake_llm: FakeLLM, tmp_path: Path, api_key: str, api: str
) -> None:
    malformed = {
        "tool_calls": [{"id": "c9", "name": "read_file", "input": {"p": 1}}],
        "fault": "malformed_tool_json",
    }
    fake_llm.set_script(
        [*TURNS, {"text": "partial answer that breaks off", "fault": "cut"}, malformed]
    )
    url = fake_llm.url if api == "anthropic" else fake_llm.openai_url
    record = tmp_path / "rec" / "session.jsonl"
    live = make_provider(ModelConfig(api, "m", url, KEY_ENV), record=record)
    assert isinstance(live, RecordingProvider)
    live_events = [await collect(live), await collect(live)]
    _, cut = await collect_error(live)
    live_events.append(await collect(live))
    assert isinstance(cut, StreamInterrupted)

    text = record.read_text()
    assert api_key not in text
    lines = [json.loads(line) for line in text.splitlines()]
    assert len(lines) == 4
    assert lines[0]["tool_calls"] == [
        {"id": "c1", "name": "read_file", "input": {"path": "main.py"}}
    ]
    assert lines[2]["fault"] == "cut" and lines[2]["text"]
    assert lines[3]["tool_calls"][0]["input"] == '{"p": 1'  # the model's bad JSON, verbatim

    replay = make_provider(scripted_config(record))
    for live_turn in live_events[:2]:
        replayed = await collect(replay)
        assert text_of(replayed) == text_of(live_turn)
        assert tool_calls(replayed) == tool_calls(live_turn)
        assert [e for e in replayed if isinstance(e, Stop)] == [
            e for e in live_turn if isinstance(e, Stop)
        ]
        if api == "anthropic":
            assert [
                e.signature for e in replayed if isinstance(e, ThinkingDelta) and e.signature
            ] == [e.signature for e in live_turn if isinstance(e, ThinkingDelta) and e.signature]
            assert [
                e.redacted for e in replayed if isinstance(e, ThinkingDelta) and e.redacted
            ] == [e.redacted for e in live_turn if isinstance(e, ThinkingDelta) and e.redacted]
    _, replayed_cut = await collect_error(replay)
    assert isinstance(replayed_cut, StreamInterrupted)
    bad_json = await collect(replay)
    assert "".join(e.arguments for e in bad_json if isinstance(e, ToolCallDelta)) == '{"p": 1'
    assert [type(e) for e in bad_json if isinstance(e, ToolCallStart | ToolCallEnd)] == [
        ToolCallStart,
        ToolCallEnd,
    ]


async def test_recording_an_error_before_any_output_writes_nothing(tmp_path: Path) -> None:
    record = tmp_path / "r.jsonl"
    provider = RecordingProvider(ScriptedProvider([]), record)
    _, error = await collect_error(provider)
    assert type(error) is ProviderError
    assert record.read_text() == ""


async def test_a_second_recorder_on_the_same_file_appends(tmp_path: Path) -> None:
    # /model builds a new provider mid-session: the turns recorded so far must survive.
    record = tmp_path / "session.jsonl"
    record.write_text('{"text": "a stale session"}\n')
    first = RecordingProvider(ScriptedProvider([{"text": "one"}]), record)
    await collect(first)
    second = RecordingProvider(ScriptedProvider([{"text": "two"}]), record)
    await collect(second)
    assert [json.loads(line)["text"] for line in record.read_text().splitlines()] == ["one", "two"]


def test_chunk_delay_comes_from_the_model_config(tmp_path: Path) -> None:
    # The demo and anyone watching a replay set it in [model]; tests leave it at 0.
    script = tmp_path / "s.json"
    script.write_text(json.dumps(TURNS))
    paced = ModelConfig("scripted", "scripted", "", "", script=str(script), chunk_delay_s=0.01)
    assert ScriptedProvider.from_config(paced).chunk_delay == 0.01
    assert ScriptedProvider.from_config(scripted_config(script)).chunk_delay == 0
