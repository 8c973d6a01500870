"""Rank tools against a query: BM25 over each tool's name, description and parameter names.

No network and no model: a small local model asks with the words it has ("weather", "create an
issue"), and the words of a tool's name count twice, since a name is what the tool is.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

from agent_tui.tools.base import Manifest

K1 = 1.2  # BM25's usual constants
B = 0.75
_WORD = re.compile(r"[A-Za-z][a-z]+|[A-Z]+(?![a-z])|[a-z]+|\d+")
# Words that say nothing about what a tool does ("the weather in Oslo" is about weather).
STOP_WORDS = frozenset(
    "a an and any as at be by for from in into is it its of on or that the this to with".split()
)


def words(text: str) -> list[str]:
    """Lower-case words of ``text``, with ``snake_case``, ``kebab-case`` and ``camelCase`` split."""
    return [w for word in _WORD.findall(text) if (w := word.lower()) not in STOP_WORDS]


def _stem(word: str) -> str:
    """A crude plural/verb-form fold ("issues" -> "issue", "created" -> "create") for matching."""
    for suffix, keep in (("ies", "y"), ("es", ""), ("s", ""), ("ed", "e"), ("ing", "")):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)] + keep
    return word


def tool_terms(manifest: Manifest) -> list[str]:
    """The terms a tool is found by: its name twice, its title, description and parameters."""
    name = words(manifest.name) + words(manifest.title)
    properties = manifest.input_schema.get("properties")
    params = " ".join(properties) if isinstance(properties, dict) else ""
    text = words(manifest.model_description[:2000]) + words(params)
    return [_stem(word) for word in (*name, *name, *text)]


def rank(query: str, manifests: Sequence[Manifest], limit: int) -> list[Manifest]:
    """The best ``limit`` tools for ``query``, best first; a tool named exactly in the query
    comes before any scored one, and a tool no query word matches is never returned."""
    named = {token for token in re.split(r"[\s,]+", query.strip()) if token}
    exact = [m for m in manifests if m.name in named]
    query_terms = {_stem(word) for word in words(query)}
    docs = [(m, Counter(tool_terms(m))) for m in manifests if m.name not in named]
    if not docs or not query_terms:
        return exact[:limit]
    average = sum(sum(c.values()) for _, c in docs) / len(docs) or 1.0
    holding = Counter(term for _, counts in docs for term in counts)
    scored = []
    for manifest, counts in docs:
        length = sum(counts.values())
        score = 0.0
        for term in query_terms & counts.keys():
            idf = math.log(1 + (len(docs) - holding[term] + 0.5) / (holding[term] + 0.5))
            tf = counts[term]
            score += idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / average))
        if score > 0:
            scored.append((score, manifest.name, manifest))
    scored.sort(key=lambda item: (-item[0], item[1]))
    return (exact + [manifest for _, _, manifest in scored])[:limit]
