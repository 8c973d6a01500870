"""The environment a terminal command gets: Codex CLI's shell environment policy.

Configured with ``[tools.terminal.env]`` (trust-gated with the rest of ``[tools]``: it can only
widen what a command sees once the user trusts the folder). Built in Codex's order:

1. start from ``inherit``: ``all`` (the app's environment), ``core`` (HOME, LOGNAME, PATH, SHELL,
   USER, USERNAME, TMPDIR, TEMP, TMP, plus LANG/LC_*/TERM so tools print text as before) or ``none``;
2. unless ``ignore_default_excludes``, drop names matching ``*KEY*``, ``*SECRET*``, ``*TOKEN*`` or
   ``*PASSWORD*`` (case-insensitive), the model's ``api_key_env`` variables and
   ``AGENT_TUI_INPUT_*`` (MCP ``${input:ID}`` values, often passwords);
3. drop names matching an ``exclude`` glob;
4. add the ``set`` table;
5. if ``include_only`` is not empty, keep only names matching one of its globs.

Globs match the whole name, case-insensitively (``fnmatch``: ``*``, ``?``, ``[...]``).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping
from typing import Any

DEFAULT_EXCLUDES = ("*KEY*", "*SECRET*", "*TOKEN*", "*PASSWORD*", "AGENT_TUI_INPUT_*")
CORE_VARS = frozenset(
    {"HOME", "LOGNAME", "PATH", "SHELL", "USER", "USERNAME", "TMPDIR", "TEMP", "TMP", "TERM"}
)
_CORE_PREFIXES = ("LANG", "LC_")  # locale: tools keep printing UTF-8 under inherit = "core"


def _matches(name: str, patterns: Iterable[str]) -> bool:
    upper = name.upper()
    return any(fnmatch.fnmatchcase(upper, pattern.upper()) for pattern in patterns)


def _strings(settings: Mapping[str, Any], key: str) -> list[str]:
    value = settings.get(key)
    return [str(v) for v in value] if isinstance(value, list) else []


def terminal_environment(
    base: Mapping[str, str],
    settings: Mapping[str, Any] | None,
    secret_names: Iterable[str] = (),
) -> dict[str, str]:
    """The environment for a terminal command under the ``[tools.terminal.env]`` policy.

    Args:
        base: the app's own environment (``os.environ``).
        settings: the ``[tools.terminal.env]`` table (None or {} for the defaults).
        secret_names: variables that hold the app's API keys (every configured ``api_key_env``);
            dropped with the default excludes.

    Returns:
        A new mapping; ``base`` is not changed.
    """
    settings = settings or {}
    inherit = settings.get("inherit", "all")
    if inherit == "none":
        env: dict[str, str] = {}
    elif inherit == "core":
        env = {k: v for k, v in base.items() if k in CORE_VARS or k.startswith(_CORE_PREFIXES)}
    else:
        env = dict(base)
    if not settings.get("ignore_default_excludes", False):
        secrets = {name for name in secret_names if name}
        env = {
            k: v for k, v in env.items() if k not in secrets and not _matches(k, DEFAULT_EXCLUDES)
        }
    exclude = _strings(settings, "exclude")
    if exclude:
        env = {k: v for k, v in env.items() if not _matches(k, exclude)}
    values = settings.get("set")
    if isinstance(values, dict):
        env.update({str(k): str(v) for k, v in values.items()})
    include_only = _strings(settings, "include_only")
    if include_only:
        env = {k: v for k, v in env.items() if _matches(k, include_only)}
    return env
