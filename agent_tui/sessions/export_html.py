"""A session as one self-contained HTML file: inline CSS, no script, nothing fetched.

Every string from the session is escaped (``html.escape``) after ``visible`` (control characters
shown); answers are Markdown rendered by markdown-it with raw HTML, images and links turned off,
so a model's ``<script>``, ``</details>`` or ``![](https://…)`` is text on the page and the file
loads nothing from anywhere.
"""

from __future__ import annotations

import time
from html import escape

from agent_tui.sessions.export import INTERRUPTED, UNDONE, Call, Transcript, call_input
from agent_tui.sessions.loader import LoadedSession
from agent_tui.text_safety import one_line, visible

CSS = """
body { font: 15px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto;
  padding: 0 1rem; color: #1f2328; background: #fff; }
header p { color: #59636e; margin: .2rem 0; }
section.turn { border-top: 1px solid #d1d9e0; padding: .5rem 0 1rem; }
.prompt { background: #ddf4ff; border-radius: 6px; padding: .5rem .8rem; white-space: pre-wrap; }
.answer { margin: .6rem 0; }
details { border: 1px solid #d1d9e0; border-radius: 6px; margin: .5rem 0; padding: .2rem .6rem; }
summary { cursor: pointer; font-family: ui-monospace, monospace; font-size: 13px; }
pre { background: #f6f8fa; padding: .6rem; overflow-x: auto; white-space: pre-wrap;
  font: 13px/1.45 ui-monospace, monospace; }
.status-error summary, .note { color: #9a6700; }
.status-interrupted summary { color: #cf222e; }
.diff .add { color: #116329; } .diff .del { color: #82071e; }
"""


def _text(value: str) -> str:
    return escape(visible(value), quote=True)


def _markdown(text: str) -> str:
    """An answer's Markdown as HTML: no raw HTML, no images or links (nothing is fetched)."""
    from markdown_it import MarkdownIt

    parser = MarkdownIt("commonmark", {"html": False}).enable("table")
    parser.disable(["image", "link", "autolink", "html_inline", "html_block"])
    return str(parser.render(visible(text)))


def _diff(diff: str) -> str:
    lines = []
    for line in visible(diff).splitlines():
        kind = "add" if line.startswith("+") else "del" if line.startswith("-") else ""
        lines.append(f'<span class="{kind}">{escape(line)}</span>' if kind else escape(line))
    return '<pre class="diff">' + "\n".join(lines) + "</pre>"


def _call(call: Call) -> str:
    status = "" if call.status == "done" else f" ({call.status})"
    out = [
        f'<details class="call status-{escape(call.status.replace(" ", "-"))}">',
        f"<summary>{escape(one_line(call.title)[:200] + status)}</summary>",
        f"<p>Input</p><pre>{_text(call_input(call))}</pre>",
    ]
    if call.diff:
        out.append(_diff(call.diff))
    if call.output:
        out.append(f"<p>Output</p><pre>{_text(call.output)}</pre>")
    return "\n".join([*out, "</details>"])


def _header(script: Transcript) -> str:
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(script.started)) if script.started else ""
    return (
        f"<header><h1>{escape(one_line(script.label))}</h1>"
        f"<p>Session <code>{escape(script.id)}</code> · model "
        f"<code>{escape(one_line(script.model))}</code> · {escape(when)}</p>"
        f"<p>{escape(one_line(script.workspace))}</p></header>"
    )


def to_html(loaded: LoadedSession) -> str:
    """The session as one HTML page (see the module docstring)."""
    from agent_tui.sessions.export import transcript

    script = transcript(loaded)
    body = [_header(script)]
    for number, turn in enumerate(script.turns, start=1):
        body.append(f'<section class="turn" id="turn-{number}"><h2>{number}. You</h2>')
        body.append(f'<div class="prompt">{_text(turn.prompt)}</div>')
        for part in turn.parts:
            body.append(_call(part) if isinstance(part, Call) else _answer(part))
        if turn.undone:
            body.append(f'<p class="note">{escape(UNDONE)}</p>')
        if turn.interrupted:
            body.append(f'<p class="note">{escape(INTERRUPTED)}</p>')
        body.append("</section>")
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'\">\n"
        f"<title>{escape(one_line(script.label))}</title>\n<style>{CSS}</style></head>\n"
        "<body>\n" + "\n".join(body) + "\n</body></html>\n"
    )


def _answer(text: str) -> str:
    return f'<div class="answer">{_markdown(text)}</div>'
