"""Git commands a terminal rule allows, checked against the repository they would run in.

``"git status" = true`` is meant for reading the state of the work tree, yet in a repository whose
``.git/config`` sets ``core.fsmonitor = "touch /tmp/pwned"`` it runs that program; so do
``filter.*`` drivers, ``diff.*.textconv``, ``diff.external``, hooks and the rest of
:data:`agent_tui.tools.git_config.PROGRAM_KEYS`. The policy asks before such a command, naming the
key (step ``deny_rule``). What the terminal's environment neutralises (``core.fsmonitor`` through
``GIT_CONFIG_COUNT``, pagers, ``core.editor``) does not ask, unless the line itself touches
``GIT_CONFIG_*`` or runs ``env``, which could undo that.

The repository is the one each git sub-command would find: from the line's working folder, every
folder a static ``cd``/``pushd`` before it may lead to, its ``-C``/``--git-dir``/``--work-tree``
options and ``GIT_DIR=``-style assignments in front of it (those already ask unless a rule names
them; when one does, the repository they name is the one read). ``git config`` that sets a value
writes the repository's config (a protected path), so it asks too.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from agent_tui.approvals.protected import PROTECTED_NOTE
from agent_tui.approvals.shell import ParsedCommand, SubCommand
from agent_tui.lazy_regex import lazy_pattern
from agent_tui.tools.git_config import git_concerns, git_verb

_ASSIGNMENT = lazy_pattern(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", re.S)
# `git config` forms that only read.
_CONFIG_READS = {"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l",
                 "--get-color", "--get-colorbool", "get", "list"}  # fmt: skip
_CONFIG_WRITES = {"--add", "--unset", "--unset-all", "--replace-all", "--rename-section",
                  "--remove-section", "--edit", "-e", "set", "unset", "edit", "rename-section",
                  "remove-section"}  # fmt: skip


def git_problem(parsed: ParsedCommand, cwd: Path) -> str | None:
    """Why a git sub-command of the line needs the user's approval, or None.

    Args:
        parsed: the parsed command line.
        cwd: where the line starts (real path).
    """
    folders = [cwd]
    hardened = not any(_undoes_hardening(sub) for sub in parsed.commands)
    for sub in parsed.commands:
        name = os.path.basename(sub.words[sub.start]) if sub.start < len(sub.words) else ""
        if name in ("cd", "pushd"):
            folders += _changed_to(sub, folders)
            continue
        if name != "git":
            continue
        words = sub.words[sub.start + 1 :]
        if _writes_config(words):
            return f"`{sub.text}` writes git config, which may name programs ({PROTECTED_NOTE})"
        env = {
            m.group(1): m.group(2)
            for m in (_ASSIGNMENT().match(w) for w in sub.words[: sub.start])
            if m is not None
        }
        for folder in reversed(
            folders
        ):  # the folder a `cd` leads to first: where it most likely runs
            concerns = git_concerns(folder, words, env, env_hardened=hardened)
            if concerns:
                more = f" and {len(concerns) - 1} more" if len(concerns) > 1 else ""
                return (
                    f"`{sub.text}` would run a program the repository's git config names "
                    f"({concerns[0]}{more})"
                )
    return None


def _changed_to(sub: SubCommand, folders: list[Path]) -> list[Path]:
    """The folders a static ``cd DIR`` may lead to from each of ``folders`` (a dynamic one asks
    already: command_paths.py)."""
    args = [w for w in sub.words[sub.start + 1 :] if not w.startswith("-")]
    if not args:
        return []
    target = os.path.expanduser(args[0])
    found = []
    for base in folders:
        try:
            resolved = (base / target).resolve()
        except (OSError, RuntimeError, ValueError):
            continue
        if resolved.is_dir():
            found.append(resolved)
    return found


def _undoes_hardening(sub: SubCommand) -> bool:
    """The sub-command could run git without the terminal's GIT_CONFIG_* (``env -i``, ``unset``)."""
    name = os.path.basename(sub.words[sub.start]) if sub.start < len(sub.words) else ""
    return name == "env" or any("GIT_CONFIG" in word for word in sub.words)


def _writes_config(words: tuple[str, ...]) -> bool:
    verb, _ = git_verb(words)
    if verb != "config":
        return False
    args = words[words.index("config") + 1 :]
    if any(a in _CONFIG_WRITES for a in args):
        return True
    if any(a.split("=", 1)[0] in _CONFIG_READS for a in args):
        return False
    positional = [a for a in args if not a.startswith("-")]
    return len(positional) >= 2  # `git config KEY VALUE` sets; `git config KEY` reads
