"""What a lasting grant should cover, offered by the approval modal and the TTY prompt.

``run_in_terminal``: a command prefix of whole words (``git status``, ``npm test``, ``ls``), or for
commands where a prefix would allow far too much (``rm``, ``curl``, ``sudo`` ...) the exact command as
``/^…$/``. Fetch tools: the URL's origin (``https://docs.python.org``).
"""

from __future__ import annotations

import re

from agent_tui.approvals.rules import url_origin
from agent_tui.approvals.shell import ParsedCommand

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
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9:._-]*")


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
    words_by_text = {c.text: c.words for c in parsed.commands}
    patterns = [command_prefix(text, words_by_text.get(text, ())) for text in uncovered]
    return "\n".join(dict.fromkeys(patterns)) or None


def command_prefix(text: str, words: tuple[str, ...]) -> str:
    """The prefix a grant for this sub-command should use (see the module docstring)."""
    if words[:1] in (("python",), ("python3",)) and len(words) > 2 and words[1] == "-m":
        return " ".join(words[:3])
    if not words or "=" in words[0] or words[0] in _EXACT_ONLY:
        return exact_pattern(text)
    if words[0] in _SUBCOMMAND_TOOLS and len(words) > 1:
        if _WORD.fullmatch(words[1]):
            return f"{words[0]} {words[1]}"
        # `git -c core.pager=… log`: options before the subcommand can change what runs, so a
        # bare `git` prefix would allow far more than this call.
        return exact_pattern(text)
    if not _WORD.fullmatch(words[0].lstrip("./")):
        return exact_pattern(text)
    return words[0]


def exact_pattern(text: str) -> str:
    """A ``/^…$/`` rule that matches exactly this command (whitespace normalised)."""
    return "/^" + re.escape(" ".join(text.split())) + "$/"
