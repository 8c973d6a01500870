"""What was typed on the early screen (early_screen/) reaches the app: messages sent in order
(the second queued behind the first turn), the rest left in the prompt; held while the trust
question is coming (a message must not run before the folder's settings are settled); Ctrl+C
twice there quits the app as it comes up."""

from __future__ import annotations

import json
from pathlib import Path

from agent_tui.early_screen.typed import Typed
from agent_tui.ui.app import AgentApp
from tests.ui.conftest import MakeAgent
from tests.ui.helpers import wait_idle, wait_screen, wait_until


def typed(keys: bytes) -> Typed:
    result = Typed()
    result.feed(keys)
    return result


def user_texts(h_requests: list[object]) -> list[str]:
    texts = []
    for request in h_requests:
        messages = [m.to_dict() for m in request.messages]  # type: ignore[attr-defined]
        texts.append(json.dumps(messages[-1], ensure_ascii=False))
    return texts


async def test_messages_typed_early_are_sent_in_order_and_the_draft_stays(
    make_agent: MakeAgent,
) -> None:
    h = make_agent([{"text": "ANSWER-ONE"}, {"text": "ANSWER-TWO"}])
    keys = typed("first message\rsecond one\rdraft ü".encode())
    app = AgentApp(h.agent, typed_early=keys)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: len(h.provider.requests) == 2, "both messages sent")
        await wait_idle(pilot)
        assert app.prompt_input.text == "draft ü"
        assert app.prompt_input.cursor_location == (0, len("draft ü"))
    sent = user_texts(h.provider.requests)
    assert "first message" in sent[0] and "second one" not in sent[0]
    assert "second one" in sent[1]


async def test_nothing_is_sent_while_the_trust_question_is_coming(
    make_agent: MakeAgent, tmp_path: Path
) -> None:
    (tmp_path / "ws" / ".agentrc").write_text("[tools]\nauto_approve = true\n", encoding="utf-8")
    h = make_agent([{"text": "never"}])
    app = AgentApp(h.agent, typed_early=typed(b"run it\rmore"))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_screen(pilot, "TrustScreen")
        assert app.prompt_input.text == "run it\nmore"
        assert h.provider.requests == []


async def test_ctrl_c_twice_on_the_early_screen_quits_the_app(make_agent: MakeAgent) -> None:
    h = make_agent([{"text": "never"}])
    app = AgentApp(h.agent, typed_early=typed(b"abc\x03\x03"))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: app.return_code is not None, "the app to exit")
    assert app.return_code == 0
    assert h.provider.requests == []
