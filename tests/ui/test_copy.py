"""``/copy``: the last answer, entry N, or one picked with the keyboard, written as OSC 52."""

from __future__ import annotations

import base64

from agent_tui.ui.widgets.notes import Note
from tests.ui.app_helpers import running_app
from tests.ui.conftest import MakeAgent
from tests.ui.helpers import send, wait_idle, wait_screen

ANSWER = "Run this:\n\n```sh\nmake test\n```\n\nthen\n\n```py\nprint(1)\n```"


def _osc52(text: str) -> str:
    return f"\x1b]52;c;{base64.b64encode(text.encode()).decode()}\a"


async def test_copy_writes_the_last_answer_and_code_blocks_as_osc52(make_agent: MakeAgent) -> None:
    h = make_agent([{"text": "older answer"}, {"text": ANSWER}])
    async with running_app(h.agent) as (app, pilot):
        written: list[str] = []
        driver = app._driver
        assert driver is not None
        real_write = driver.write
        driver.write = lambda data: (written.append(data), real_write(data))[1]  # type: ignore[method-assign]
        for prompt in ("first", "second"):
            await send(pilot, prompt)
            await wait_idle(pilot)
        await send(pilot, "/copy")
        await wait_idle(pilot)
        assert app.clipboard == ANSWER and _osc52(ANSWER) in "".join(written)
        await send(pilot, "/copy 2")  # newest first: the answer, its two code blocks, the older
        await wait_idle(pilot)
        assert app.clipboard == "make test"
        await send(pilot, "/copy 4")
        await wait_idle(pilot)
        assert app.clipboard == "older answer"
        await send(pilot, "/copy 9")
        await wait_idle(pilot)
        assert "pick 1 to 4" in app.query(Note).last().text
        await send(pilot, "/copy pick")
        await wait_screen(pilot, "CopyPickerScreen")
        await pilot.press("down", "down", "enter")
        await wait_idle(pilot)
        assert app.clipboard == "print(1)" and _osc52("print(1)") in "".join(written)


async def test_copy_with_no_answer_says_so(make_agent: MakeAgent) -> None:
    h = make_agent([])
    async with running_app(h.agent) as (app, pilot):
        await send(pilot, "/copy")
        await wait_idle(pilot)
        assert "Nothing to copy yet" in app.query(Note).last().text
        assert app.clipboard == ""
