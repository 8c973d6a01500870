"""Turning a fetched page into text for the model: HTML to readable text, and query narrowing.

Pure functions (no I/O) so they are cheap to test and run in a worker thread.
"""

from __future__ import annotations

import re
from html import unescape
from html.parser import HTMLParser

_WORD = re.compile(r"\w+", re.UNICODE)
_STOPWORDS = frozenset(
    "a an and are as at be by can do does for from how i in is it its of on or the this to use "
    "using what when where which who why with you your".split()
)
_SKIP_TAGS = frozenset(
    {"script", "style", "noscript", "template", "svg", "head", "iframe", "canvas"}
)
_BLOCK_TAGS = frozenset(
    "address article aside blockquote br dd div dl dt figcaption figure footer form h1 h2 h3 h4 "
    "h5 h6 header hr li main nav ol p pre section table td th tr ul".split()
)


def html_title(html: str) -> str:
    match = re.search(r"<title[^>]*>(.*?)</title>", html, re.IGNORECASE | re.DOTALL)
    return " ".join(unescape(match.group(1)).split()) if match else ""


class _TextExtractor(HTMLParser):
    """The fallback converter: visible text, blocks on their own lines, headings marked ``#``."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip_depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIP_TAGS:
            self._skip_depth += 1
        elif tag in _BLOCK_TAGS:
            self.parts.append("\n\n")
            if re.fullmatch(r"h[1-6]", tag):
                self.parts.append("#" * int(tag[1]) + " ")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP_TAGS:
            self._skip_depth = max(0, self._skip_depth - 1)
        elif tag in _BLOCK_TAGS:
            self.parts.append("\n\n")

    def handle_data(self, data: str) -> None:
        if not self._skip_depth:
            self.parts.append(data)


def strip_html(html: str) -> str:
    """Visible text of an HTML document without scripts or styles (the fallback converter)."""
    parser = _TextExtractor()
    parser.feed(html)
    parser.close()
    lines = (" ".join(line.split()) for line in "".join(parser.parts).splitlines())
    text = "\n".join(lines)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def html_to_text(html: str) -> str:
    """Readable main text of an HTML page (Markdown-ish, headings kept) via trafilatura.

    Falls back to a plain strip of the tags when trafilatura finds no main content (short pages,
    link lists, app shells).
    """
    import trafilatura  # heavy (lxml and friends): only when a page is actually fetched

    text = trafilatura.extract(
        html,
        output_format="markdown",
        include_tables=True,
        include_links=False,
        include_comments=False,
        favor_recall=True,
    )
    return text.strip() if text and text.strip() else strip_html(html)


def _stem(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def _terms(text: str) -> list[str]:
    return [_stem(w) for w in _WORD.findall(text.lower())]


def _blocks(text: str, max_block: int = 1500) -> list[str]:
    """Paragraphs (blank-line separated); over-long ones split at line breaks."""
    blocks: list[str] = []
    for block in re.split(r"\n\s*\n", text):
        block = block.strip()
        while len(block) > max_block:
            cut = block.rfind("\n", 0, max_block)
            cut = cut if cut > 0 else max_block
            blocks.append(block[:cut].strip())
            block = block[cut:].strip()
        if block:
            blocks.append(block)
    return blocks


def cut_text(text: str, limit: int, hint: str) -> str:
    """``text`` up to ``limit`` characters (at a line break when one is near), saying it was cut."""
    if len(text) <= limit:
        return text
    cut = text.rfind("\n", 0, limit)
    cut = cut if cut > limit // 2 else limit
    return text[:cut].rstrip() + f"\n\n[... cut: {len(text):,} characters in all; {hint}]"


def narrow_to_query(text: str, query: str, limit: int) -> tuple[str, bool]:
    """Keep the paragraphs that match ``query``'s words best, in page order, under their headings.

    Args:
        text: the page text (Markdown headings start with ``#``).
        query: what the model is looking for.
        limit: at most this many characters are returned.

    Returns:
        The narrowed text and whether anything matched (if not, the page's start is returned).
    """
    wanted = {t for t in _terms(query) if t not in _STOPWORDS and len(t) > 1}
    if not wanted:
        return cut_text(text, limit, "pass a more specific `query`"), True
    scored: list[tuple[float, int, str, str]] = []  # (score, position, heading, block)
    heading = ""
    for position, block in enumerate(_blocks(text)):
        if block.startswith("#"):
            heading = block.splitlines()[0]
            continue
        terms = _terms(block)
        hits = wanted.intersection(terms)
        if not hits:
            continue
        in_heading = wanted.intersection(_terms(heading))
        frequency = sum(1 for t in terms if t in wanted)
        score = 10 * len(hits) + 4 * len(in_heading) + min(frequency, 10)
        scored.append((score, position, heading, block))
    if not scored:
        start = cut_text(text, limit // 2, "nothing matched the query")
        return start, False
    # Paragraphs far weaker than the best match are noise (one common word of a longer query).
    best = max(s[0] for s in scored)
    scored = [s for s in scored if s[0] >= best / 2]
    chosen: list[tuple[int, str, str]] = []
    used = 0
    for _, position, block_heading, block in sorted(scored, key=lambda s: (-s[0], s[1])):
        cost = len(block) + len(block_heading) + 2
        if used + cost > limit and chosen:
            continue
        chosen.append((position, block_heading, block[: limit - used] if not chosen else block))
        used += cost
    parts: list[str] = []
    last_heading = None
    for _, block_heading, block in sorted(chosen):
        if block_heading and block_heading != last_heading:
            parts.append(block_heading)
        last_heading = block_heading
        parts.append(block)
    return "\n\n".join(parts), True
