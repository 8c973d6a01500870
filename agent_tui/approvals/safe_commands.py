"""Read-only commands that run without a question (step ``safe_command`` of policy.py).

``ls``, ``pwd``, ``cat``/``head``/``tail``/``wc``, ``grep``/``rg`` and ``git status``/``diff``/
``log``/``show`` are what people run a dozen times a session to look around; asking each time
teaches them to click "allow" without reading. Codex lets the same kind of list through
(``is_known_safe_command`` in codex-rs: a short list of programs, git's reading verbs, and the
options that would make one of them write or run something refused).

The list is exact, not a prefix rule: a line is safe only when *every* sub-command the shell
parser finds (shell.py: ``;``, ``&&``, pipes, ``$(…)``, backticks, ``bash -c``, wrappers) is one of
these programs with none of the options below, it has no ``>`` redirection (``2>/dev/null`` is
fine), and no leading assignment (``PAGER=x git log``). What it reads is checked by the policy as
any command's paths are: inside the workspace, links followed (command_paths.py), no protected
file named (:func:`names_protected`), and git's repository config naming no program
(git_commands.py). ``find`` is not on the list (``-exec``, ``-delete``, ``-fprint``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from agent_tui.approvals.protected import protected_glob
from agent_tui.approvals.shell import ParsedCommand, SubCommand
from agent_tui.tools.workspace_paths import real_path, root_of

# Programs that only read what they are given (and print).
SAFE_PROGRAMS = frozenset(
    {"ls", "pwd", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "rg"}
)
# git's verbs that only read the repository.
SAFE_GIT_VERBS = frozenset({"status", "diff", "log", "show"})
# Options that make a listed program run a program or follow links out of the folders named
# (`grep -R`, `rg -L` walk into a linked folder the path check never saw). Short ones also count
# inside a bundle (`-iR`): a wrong guess only asks.
_UNSAFE_LONG = {
    "grep": ("--dereference-recursive",),
    "rg": ("--pre", "--hostname-bin", "--search-zip", "--follow"),
}
_UNSAFE_SHORT = {"grep": "R", "egrep": "R", "fgrep": "R", "rg": "zL"}


def is_known_safe(parsed: ParsedCommand) -> bool:
    """Whether every part of the line is a listed read-only command with no unsafe option.

    The paths it names are not checked here (the policy does that, see the module docstring).
    """
    if parsed.writes:
        return False
    return all(_safe_sub(sub) for sub in parsed.commands)


def _safe_sub(sub: SubCommand) -> bool:
    if sub.start != 0 or not sub.words:
        return False  # `VAR=x cmd` (a pager, a preload library) or a bare assignment
    name = sub.words[0]
    if name not in SAFE_PROGRAMS and name != "git":
        return False  # a path such as ./cat or /tmp/x/ls is not the program on the list
    if any(effect.action != "reads" for effect in sub.effects):
        return False  # `git log --output=F`, `rg --pre CMD` (option_effects.py)
    args = sub.words[1:]
    if name == "git":
        return _safe_git(args)
    return not any(_unsafe_option(name, word) for word in args)


def _safe_git(args: tuple[str, ...]) -> bool:
    """``git [--no-pager] VERB …`` with a reading verb; any other option before the verb
    (``-c``, ``-C``, ``--git-dir``, ``--exec-path``) picks what git runs or where."""
    rest = args[1:] if args[:1] == ("--no-pager",) else args
    if not rest or rest[0] not in SAFE_GIT_VERBS:
        return False
    unsafe = ("--output", "--ext-diff", "--textconv", "--open-files-in-pager", "-O")
    return not any(word.startswith(unsafe) for word in rest[1:])


def _unsafe_option(name: str, word: str) -> bool:
    if word.startswith("--"):
        option = word.partition("=")[0]
        # getopt_long accepts unambiguous prefixes (`--fol` is `--follow`).
        return len(option) > 2 and any(o.startswith(option) for o in _UNSAFE_LONG.get(name, ()))
    if word.startswith("-") and len(word) > 1:
        return any(letter in word[1:] for letter in _UNSAFE_SHORT.get(name, ""))
    return False


def names_protected(
    parsed: ParsedCommand, roots: tuple[Path, ...], cwd: Path, extra_files: Iterable[str] = ()
) -> str | None:
    """The first protected path (``.env``, ``.git/config``, ``.agentrc`` …) the line names as an
    argument or ``<`` target, or None. Such a read is left to the user: a safe command is
    for ordinary files.

    Args:
        parsed: the parsed line.
        roots: the workspace root and the extra roots (resolved).
        cwd: where the line runs (resolved).
        extra_files: ``[agent] instructions_files``.
    """
    words = [w for sub in parsed.commands for w in sub.words[sub.start + 1 :]]
    for word in [*words, *parsed.reads]:
        if not word or word.startswith("-"):
            continue
        try:
            full = real_path(cwd, os.path.expanduser(word))
        except (OSError, RuntimeError, ValueError):
            return word  # cannot be resolved: not for the safe list to decide
        root = root_of(roots, full)
        if root is not None and protected_glob(root, full, extra_files):
            return word
    return None
