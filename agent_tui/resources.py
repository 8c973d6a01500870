"""Find the shipped data folders (tool manifests, prompt templates) in a wheel or a checkout."""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


@cache
def data_dir(name: str) -> Path:
    """Return the folder ``tools`` or ``prompts``.

    An installed wheel carries them as ``agent_tui/_data/<name>`` (pyproject force-include); a
    checkout or editable install has them at the repository root, beside the package.
    """
    for candidate in (_PACKAGE / "_data" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"agent-tui data folder {name!r} is missing from the installation")
