"""``sessions/export.py`` and ``export_html.py``: a saved session written out as it stands.

The session is written through the real ``SessionRecorder``: an edit with its diff that ``/undo``
put back, a hostile answer (``<script>``, ``</details>``, an external image, an ESC), a turn
``/rewind`` cut off, and a turn the app was closed in during a call. The HTML is parsed by
headless Chromium when it is installed (``chromium-headless-shell`` or ``chromium``), and by lxml
in every run.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import lxml.html

from agent_tui import events as ev
from agent_tui.conversation import Message, TextBlock, ToolResultBlock, ToolUseBlock, user_text
from agent_tui.sessions import load
from agent_tui.sessions.export import INTERRUPTED, UNDONE, render, to_json
from agent_tui.tools.base import Prepared, ToolResult
from tests.helpers import missing
from tests.sessions.test_timeline import Log

HOSTILE = (
    "Done.</details></section><script>document.title='PWNED'</script>"
    '<img src="https://evil.example/t.png" onerror="x()"> ![t](https://evil.example/i.png) '
    "\x1b]0;owned\x07 ```` and a fence"
)
DIFF = "--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-old line\n+new line"


def _edit_turn(log: Log, prompt: str, answer: str) -> int:
    """A turn with one edit call (its diff as the display) and ``answer``; returns the index of
    its prompt message (what /undo names)."""
    index = len(log.conv.messages)
    log.recorder.record(ev.TurnStarted(prompt), log.conv)
    log.conv.append_user(user_text(prompt))
    call = ToolUseBlock("e1", "replace_string_in_file", {"path": "app.py", "old": "</details>"})
    log.conv.append(Message("assistant", [TextBlock("Editing app.py."), call]))
    prepared = Prepared("Editing app.py", "Edited app.py")
    log.recorder.record(ev.ToolCallStarted("e1", call.name, {}, prepared, "edit"), log.conv)
    result = ToolResult("edited app.py", display=DIFF)
    log.recorder.record(ev.ToolCallFinished("e1", call.name, result, "Edited app.py"), log.conv)
    log.conv.append_user(Message("user", [ToolResultBlock("e1", "edited app.py")]))
    log.conv.append(Message("assistant", [TextBlock(answer)]))
    log.recorder.record(ev.TurnFinished(answer, "end_turn", 2, ev.Usage()), log.conv)
    return index


def _session(tmp_path: Path) -> Path:
    log = Log(tmp_path)
    first = _edit_turn(log, "fix app.py\nplease, carefully", HOSTILE)
    log.command("undo", ev.CheckpointRestored(("app.py",), None, (first,)))
    kept = len(log.conv.messages)
    log.turn("a rewound question")
    log.conv.truncate(kept)
    log.command("rewind", ev.ConversationRewound(kept))
    log.turn("then this one", calls=2, finish=False)  # closed during its first call
    log.recorder.close()
    return log.recorder.writer.path


def test_markdown_folds_calls_and_says_what_was_undone_and_interrupted(tmp_path: Path) -> None:
    text = render(load(_session(tmp_path)), "md")
    assert "a rewound question" not in text  # the log as it stands: the rewound turn is gone
    assert text.count("## ") == 2 and "fix app.py\nplease, carefully" in text
    lines = text.splitlines()
    assert lines.count("<details>") == lines.count("</details>") == 2  # one per call
    assert '"old": "</details>"' in text  # an input's, inside its fence
    assert "Done.&lt;/details>&lt;/section>&lt;script>" in text
    assert "<summary>Edited app.py (undone)</summary>" in text
    assert "```diff\n" + DIFF + "\n```" in text
    assert "(interrupted)</summary>" in text
    assert f"> {UNDONE}" in text and f"> {INTERRUPTED}" in text
    assert "\x1b" not in text and "␛]0;owned" in text  # cat-ing the file is safe
    # An input holding a fence is fenced by a longer one.
    assert "`````" not in text.split("Input:")[0]


def _chromium() -> str | None:
    for name in ("chromium-headless-shell", "chromium", "chromium-browser"):
        if path := shutil.which(name):
            return path
    return None


def _check_dom(root: lxml.html.HtmlElement) -> None:
    """What the hostile session must not do to the page, whoever parsed it."""
    assert root.xpath("//script") == [] and root.xpath("//img") == []
    attrs = [v for el in root.iter() if isinstance(el.tag, str) for v in el.attrib.values()]
    assert not [v for v in attrs if "evil.example" in v or v.startswith("http")]
    assert not [el for el in root.iter() if any(a.startswith("on") for a in el.attrib)]
    details = root.xpath("//details")
    assert len(details) == 2  # one per call: the answer's </details> closed nothing
    assert len(root.xpath("//section")) == 2
    answer = root.xpath("//section[1]//div[@class='answer']")[-1].text_content()
    assert "</details></section><script>document.title='PWNED'</script>" in answer
    assert root.xpath("//title")[0].text_content() != "PWNED"
    [interrupted] = root.xpath("//details[contains(@class, 'status-interrupted')]")
    assert "(interrupted)" in interrupted.xpath("summary")[0].text_content()
    assert "+new line" in details[0].text_content()
    assert "(undone)" in details[0].xpath("summary")[0].text_content()
    notes = [n.text_content() for n in root.xpath("//p[@class='note']")]
    assert notes == [UNDONE, INTERRUPTED]


def test_html_is_one_file_where_session_text_cannot_break_out(tmp_path: Path) -> None:
    page = render(load(_session(tmp_path)), "html")
    assert "<link" not in page and "<script" not in page and "@import" not in page
    _check_dom(lxml.html.document_fromstring(page))


def test_html_in_headless_chromium(tmp_path: Path) -> None:
    browser = _chromium()
    if browser is None:
        missing("no chromium (apt-get install chromium-headless-shell); lxml alone checked it")
    page = tmp_path / "export.html"
    page.write_text(render(load(_session(tmp_path)), "html"), encoding="utf-8")
    dumped = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    # The DOM as the browser built it, after any script would have run.
    _check_dom(lxml.html.document_fromstring(dumped))


def test_json_holds_the_messages_and_metadata(tmp_path: Path) -> None:
    loaded = load(_session(tmp_path))
    body = json.loads(to_json(loaded))
    assert body["id"] == loaded.id and body["model"] == "m"
    said = [m.to_dict() for m in loaded.conversation.messages]
    assert body["messages"] == json.loads(json.dumps(said))
    assert body["messages"][0]["content"][0]["text"] == "fix app.py\nplease, carefully"
