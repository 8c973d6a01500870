"""What a lasting grant should cover, offered by the approval modal and the TTY prompt.

``run_in_terminal``: a command prefix of whole words (``git status``, ``npm test``, ``ls``), or for
commands where a prefix would allow far too much (``rm``, ``curl``, ``sudo`` ...) the exact command as
``/^…$/``; a sub-command that writes or runs through an option (``git log --output=F``) also gets
its exact command, since a prefix grant would not cover that option anyway. Fetch tools: the URL's
origin (``https://docs.python.org``). ``describe_grant`` says in words what a pattern allows, for
the approval dialog and the TTY prompt.
"""

from __future__ import annotations

import re

from agent_tui.approvals.option_effects import OptionEffect, option_effects
from agent_tui.approvals.rules import names_word, url_origin
from agent_tui.approvals.shell import ParsedCommand, SubCommand
from agent_tui.approvals.types import NETWORK_GRANT, OUTSIDE_GRANT
from agent_tui.lazy_regex import lazy_pattern

# Tools whose second word is a subcommand worth keeping in the prefix (`git status`, not `git`).
_SUBCOMMAND_TOOLS = frozenset(
    {"git", "npm", "pnpm", "yarn", "bun", "npx", "cargo", "go", "docker", "podman", "kubectl",
     "pip", "pip3", "uv", "poetry", "pdm", "hatch", "make", "just", "dotnet", "gh", "brew", "apt",
     "apt-get", "conda", "mvn", "gradle", "./gradlew", "rustup", "deno", "helm", "terraform",
     "systemctl", "tox", "nox", "pre-commit", "ruff", "mix", "bundle", "rake", "composer"}
)  # fmt: skip
# Commands for which a prefix grant would approve anything; offer the exact command instead.
_EXACT_ONLY = frozenset(
    {"rm", "rmdir", "mv", "cp", "dd", "chmod", "chown", "chgrp", "sudo", "doas", "su", "kill",
     "killall", "pkill", "curl", "wget", "ssh", "scp", "rsync", "eval", "exec", "mkfs", "shred",
     "truncate", "find", "xargs", "env", "bash", "sh", "zsh", "python", "python3", "node", "perl",
     "ruby", "tee", "ln", "crontab"}
)  # fmt: skip
_WORD = lazy_pattern(r"[A-Za-z0-9][A-Za-z0-9:._-]*")


def suggest_for(
    command: str | None, parsed: ParsedCommand | None, uncovered: list[str], *, fetch: bool
) -> str | None:
    """Patterns for the uncovered items (sub-command texts or URLs), one per line.

    Args:
        command: the terminal command line, or None for other tools.
        parsed: its parse (None when it could not be parsed).
        uncovered: the sub-commands or URLs no rule or grant covers yet.
        fetch: the tool fetches URLs.

    Returns:
        Newline-separated patterns, or None when there is nothing to narrow to.
    """
    if fetch:
        origins = [o for o in (url_origin(u) for u in uncovered) if o]
        return "\n".join(dict.fromkeys(origins)) or None
    if command is None:
        return None
    if parsed is None:
        return exact_pattern(command)  # never matches anything but this line, which still asks
    by_text = {c.text: c for c in parsed.commands}
    patterns = [command_prefix(text, by_text.get(text)) for text in uncovered]
    return "\n".join(dict.fromkeys(patterns)) or None


def command_prefix(text: str, sub: SubCommand | None) -> str:
    """The prefix a grant for this sub-command should use (see the module docstring)."""
    words = sub.words if sub is not None else ()
    prefix = _prefix(text, words)
    # A prefix covers what the command writes or runs through an option only if it names it
    # (`npm install` does, `git log` for `git log --output=F` does not): else the exact command.
    effects = [e for e in sub.effects if e.action != "reads"] if sub is not None else []
    if all(names_word(prefix, text, e.word) for e in effects):
        return prefix
    return exact_pattern(text)


def _prefix(text: str, words: tuple[str, ...]) -> str:
    if words[:1] in (("python",), ("python3",)) and len(words) > 2 and words[1] == "-m":
        return " ".join(words[:3])
    if not words or "=" in words[0] or words[0] in _EXACT_ONLY:
        return exact_pattern(text)
    if words[0] in _SUBCOMMAND_TOOLS and len(words) > 1:
        if _WORD().fullmatch(words[1]):
            return f"{words[0]} {words[1]}"
        # `git -c core.pager=… log`: options before the subcommand can change what runs, so a
        # bare `git` prefix would allow far more than this call.
        return exact_pattern(text)
    if not _WORD().fullmatch(words[0].lstrip("./")):
        return exact_pattern(text)
    return words[0]


def exact_pattern(text: str) -> str:
    """A ``/^…$/`` rule that matches exactly this command (whitespace normalised)."""
    return "/^" + re.escape(" ".join(text.split())) + "$/"


def describe_grant(patterns: str | None, tool: str) -> str:
    """What a grant of ``patterns`` (one per line) allows, in words, for s / w / a.

    ``git log`` -> "`git log` with any arguments, except options that write files or run
    programs, and paths outside the workspace"; ``/^git\\ log$/`` -> "exactly `git log`"; an
    origin -> "any URL on https://docs.python.org"; None -> every call of the tool.
    """
    if not patterns:
        return f"every {tool} call, whatever its input"
    lines = [p.strip() for p in patterns.splitlines() if p.strip()]
    if tool == NETWORK_GRANT:
        return "commands to reach " + " and ".join(lines) + " through the sandbox's proxy"
    if tool == OUTSIDE_GRANT:
        return "this exact command to run outside the sandbox whenever it comes again"
    # Plain prefixes share one sentence: "`git status` or `npm test` with any arguments, …".
    plain = [p for p in lines if not p.startswith("/") and "://" not in p and not _named(p)]
    parts = [_describe_one(p) for p in lines if p not in plain]
    if plain:
        parts.insert(0, " or ".join(f"`{p}`" for p in plain) + _ANY_ARGUMENTS)
    return "; ".join(parts)


_ANY_ARGUMENTS = (
    " with any arguments, except options that write files or run programs, and paths outside "
    "the workspace"
)


def _named(prefix: str) -> list[OptionEffect]:
    """What a prefix itself writes or runs (``npm install``)."""
    words = prefix.split()
    return option_effects(words[0], tuple(words[1:])) if words else []


def _describe_one(pattern: str) -> str:
    if "://" in pattern and not pattern.startswith("/"):
        return f"any URL on {pattern}"
    regex = re.fullmatch(r"/\^(.*)\$/", pattern, flags=re.DOTALL)
    if regex is not None:
        literal = re.sub(r"\\(.)", r"\1", regex.group(1), flags=re.DOTALL)
        if re.escape(literal) == regex.group(1):
            return f"exactly `{literal}`"
    if pattern.startswith("/"):
        return f"commands matching `{pattern}`"
    effects = _named(pattern)
    if effects:
        what = "runs programs" if any(e.action == "runs" for e in effects) else "writes files"
        return (
            f"`{pattern}` (which {what}) with any arguments, except other options that write "
            "files or run programs, and paths outside the workspace"
        )
    return f"`{pattern}`{_ANY_ARGUMENTS}"
