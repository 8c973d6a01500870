"""Which programs a repository's own git config (and hooks) would make a git command start.

A repository's ``.git/config`` (and the files it includes) can name programs that plain ``git
status``, ``git diff``, ``git log -p`` and ``git show`` start: ``core.fsmonitor``, ``filter.*``
drivers, ``diff.*.textconv``, ``diff.external``, ``diff.*.command``, ``gpg.program`` (with
``log.showSignature``), an ``alias.*`` of the verb, hooks (``git status`` runs
``post-index-change``). The user who allows ``git status`` with a terminal rule asked for none of
them. Two users of this module:

- :class:`agent_tui.tools.git_safe.SafeGit` (git run by the app) switches the filter drivers off;
- the approval policy asks before a terminal git command that would run one (:func:`git_concerns`),
  naming the key. What the terminal's environment already neutralises is left out:
  :func:`hardening_env` sets ``core.fsmonitor=false`` through ``GIT_CONFIG_COUNT`` (git >= 2.31
  honours it above every config file), and the terminal always runs with ``GIT_PAGER=cat``,
  ``GIT_EDITOR=true`` and its output in a pipe, so pagers and ``core.editor`` never start.

Reading config with ``git config --get-regexp`` runs nothing. Only the repository's own scopes
(``local``, ``worktree`` and what they include) count: your global config is yours. Populated
submodules are read too (``git status`` and ``git diff`` run git inside them).
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from agent_tui.lazy_regex import lazy_pattern

# Every key that names a program, or a hooks folder (git's canonical names: section and variable
# lower case, a subsection as written).
PROGRAM_KEYS = (
    r"^(core\.(fsmonitor|hookspath|pager|editor|sshcommand|gitproxy|askpass)|pager\..*|"
    r"sequence\.editor|diff\.external|diff\..*\.(textconv|command)|filter\..*\.(clean|smudge|"
    r"process)|merge\..*\.driver|gpg\.program|gpg\..*\.program|credential\.helper|"
    r"credential\..*\.helper|remote\..*\.(uploadpack|receivepack)|protocol\.allow|"
    r"protocol\..*\.allow|alias\..*|(diff|merge)tool\..*\.(cmd|path)|submodule\..*\.update)$"
)
# What the terminal's environment makes harmless: GIT_PAGER/GIT_EDITOR (terminal_process.py),
# a pipe for output, and hardening_env's overrides.
_NEUTRALISED = lazy_pattern(r"^(core\.(pager|editor)|pager\..*)$")
_ENV_OVERRIDES = (("core.fsmonitor", "false"),)
_FALSE = {"false", "no", "off", "0", ""}
_BOOLEAN = _FALSE | {"true", "yes", "on", "1"}
_REPOSITORY_SCOPES = {"local", "worktree"}

# Keys that matter only for some verbs; any other key matters for every verb.
_NETWORK = {"fetch", "pull", "push", "clone", "ls-remote", "remote", "submodule", "archive"}
_MERGING = {"merge", "pull", "rebase", "cherry-pick", "revert", "am", "stash", "checkout", "switch"}
# Verbs that show diffs, where textconv and external diff programs run (`git status` does not).
_DIFFING = {"diff", "log", "show", "blame", "annotate", "grep", "whatchanged", "stash", "difftool",
            "range-diff", "format-patch", "add", "checkout", "reset", "restore", "commit"}  # fmt: skip
_KEY_VERBS: tuple[tuple[Callable[[], re.Pattern[str]], frozenset[str]], ...] = (
    (lazy_pattern(r"^(core\.(sshcommand|gitproxy|askpass)|credential\..*|remote\..*|protocol\..*)$"),
     frozenset(_NETWORK)),
    (lazy_pattern(r"^merge\..*\.driver$"), frozenset(_MERGING)),
    (lazy_pattern(r"^diff\.(external|.*\.(textconv|command))$"), frozenset(_DIFFING)),
    (lazy_pattern(r"^(diff|merge)tool\..*$"), frozenset({"difftool", "mergetool"})),
    (lazy_pattern(r"^sequence\.editor$"), frozenset({"rebase"})),
    (lazy_pattern(r"^submodule\..*\.update$"), frozenset({"submodule", "pull"})),
)  # fmt: skip
# Verbs that run no hook. Any other verb may (commit, merge, push, and `status`, which writes
# the index and so runs post-index-change).
_NO_HOOKS = {"diff", "log", "show", "blame", "grep", "ls-files", "ls-tree", "rev-parse",
             "rev-list", "cat-file", "describe", "shortlog", "whatchanged", "version", "help",
             "config", "var", "check-ignore", "name-rev", "for-each-ref", "show-ref"}  # fmt: skip
# The hooks a verb that writes only the index may run; other verbs may run any.
_VERB_HOOKS = {verb: {"post-index-change"} for verb in ("status", "add", "rm", "mv", "reset")}
_MAX_SUBMODULE_DEPTH = 3


@dataclass(frozen=True)
class ConfigEntry:
    """One program-naming key as git read it."""

    key: str  # "core.fsmonitor", "diff.x.textconv"
    value: str
    scope: str  # local | worktree | global | system | command
    origin: str  # "file:.git/config"

    def where(self) -> str:
        """``core.fsmonitor in .git/config``."""
        origin = self.origin.removeprefix("file:")
        return f"{self.key} in {origin}" if origin else self.key


def read_program_keys(
    cwd: Path, *, git_args: tuple[str, ...] = (), env: Mapping[str, str] | None = None
) -> list[ConfigEntry]:
    """Every program-naming key the config of the repository at ``cwd`` sets, in every scope.

    Args:
        cwd: a folder in the repository.
        git_args: options that choose the repository (``-C sub``, ``--git-dir=X``).
        env: the environment (``GIT_DIR=X`` a command sets); default this process's.
    """
    out = _git(cwd, env, *git_args, "config", "-z", "--show-scope", "--show-origin",
               "--includes", "--get-regexp", PROGRAM_KEYS)  # fmt: skip
    if out is None:
        return []
    fields = out.split("\0")
    entries = []
    for index in range(0, len(fields) - 2, 3):
        scope, origin, pair = fields[index : index + 3]
        key, _, value = pair.partition("\n")
        entries.append(ConfigEntry(key, value, scope, origin))
    return entries


def filter_drivers(entries: list[ConfigEntry]) -> list[str]:
    """``filter.<name>`` for every filter driver ``entries`` define (SafeGit empties them)."""
    found = {e.key.rsplit(".", 1)[0] for e in entries if e.key.startswith("filter.")}
    return sorted(found)


def hardening_env(env: Mapping[str, str]) -> dict[str, str]:
    """The ``GIT_CONFIG_COUNT``/``KEY_n``/``VALUE_n`` variables to add to ``env`` so that every git
    a command runs has ``core.fsmonitor`` off, whatever the repository says (after any the
    environment already sets, which keep their numbers)."""
    try:
        count = max(0, int(env.get("GIT_CONFIG_COUNT", "0") or 0))
    except ValueError:
        count = 0  # git would refuse to run with it; ours replace it
    added: dict[str, str] = {}
    for key, value in _ENV_OVERRIDES:
        added[f"GIT_CONFIG_KEY_{count}"] = key
        added[f"GIT_CONFIG_VALUE_{count}"] = value
        count += 1
    added["GIT_CONFIG_COUNT"] = str(count)
    return added


def git_verb(words: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    """The verb of ``git ARGS`` (``status``) and the options before it that pick the repository
    (``-C sub``, ``--git-dir=X``, ``--work-tree=Y``); ("", ...) for none."""
    picks: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        if word in ("-C", "--git-dir", "--work-tree") and index + 1 < len(words):
            picks += [word, words[index + 1]]
            index += 2
        elif word.startswith(("--git-dir=", "--work-tree=")):
            picks.append(word)
            index += 1
        elif word in ("-c", "--namespace", "--config-env", "--super-prefix"):
            index += 2
        elif word.startswith("-"):
            index += 1
        else:
            return word, tuple(picks)
    return "", tuple(picks)


def git_concerns(
    cwd: Path,
    words: tuple[str, ...],
    env: Mapping[str, str] | None = None,
    *,
    env_hardened: bool = True,
) -> list[str]:
    """What ``git WORDS`` run in ``cwd`` would start that the repository's config names.

    Args:
        cwd: where the command runs.
        words: git's arguments (after ``git``).
        env: assignments the command line makes for it (``GIT_DIR=x``) over this environment.
        env_hardened: :func:`hardening_env` applies to this command (the line does not touch
            ``GIT_CONFIG_*`` and git honours it), so ``core.fsmonitor`` is off.

    Returns:
        One line per concern: ``core.fsmonitor in .git/config``, ``hook .git/hooks/pre-commit``.
    """
    verb, picks = git_verb(words)
    if verb == "config":
        return []  # reads and writes config; runs nothing (writing is a protected path)
    full_env = {**os.environ, **(env or {})}
    hardened = env_hardened and _env_config_works()
    found: list[str] = []
    typed = verb
    for folder, args, depth in _repositories(cwd, picks, full_env):
        where = "" if depth == 0 else f" (submodule {_shown(cwd, folder)})"
        entries = read_program_keys(folder, git_args=args, env=full_env)
        if depth == 0:
            verb = _aliased(verb, entries)
        for entry in entries:
            if entry.scope in _REPOSITORY_SCOPES and _concerns(entry, verb, typed, hardened):
                found.append(entry.where() + where)
        found += [f"hook {h}{where}" for h in _hooks(folder, args, full_env, verb)]
    return list(dict.fromkeys(found))


def _aliased(verb: str, entries: list[ConfigEntry]) -> str:
    """The verb an alias of yours stands for (``d = diff`` -> ``diff``); "" (any) for a shell
    alias (``!…``), which may run any git. A repository's own alias of the verb asks anyway."""
    alias = next((e for e in reversed(entries) if e.key == f"alias.{verb.lower()}"), None)
    if alias is None:
        return verb
    words = alias.value.split()
    if alias.value.lstrip().startswith("!") or not words:
        return ""
    return words[0]


def _concerns(entry: ConfigEntry, verb: str, typed: str, env_hardened: bool) -> bool:
    """Whether ``entry`` would start a program for ``verb`` (``typed`` before aliases; "" = any)."""
    key, value = entry.key, entry.value.strip().lower()
    if _NEUTRALISED().match(key):
        return False
    if env_hardened and any(key == k for k, _ in _ENV_OVERRIDES):
        return False
    if key == "core.fsmonitor" and value in _BOOLEAN:
        return False  # git's own fsmonitor daemon, or off
    if key.startswith("filter.") and not entry.value.strip():
        return False
    if key == "core.hookspath":
        return verb not in _NO_HOOKS  # the repository's own choice of hooks folder, anywhere
    if key.startswith("alias."):
        return key == f"alias.{typed.lower()}"
    for pattern, verbs in _KEY_VERBS:
        if pattern().match(key):
            return not verb or verb in verbs
    return True


def _repositories(
    cwd: Path, picks: tuple[str, ...], env: Mapping[str, str]
) -> list[tuple[Path, tuple[str, ...], int]]:
    """The repository the command runs in, then its populated submodules (recursively)."""
    found = [(cwd, picks, 0)]
    queue = [(cwd, picks, 0)]
    while queue:
        folder, args, depth = queue.pop()
        if depth >= _MAX_SUBMODULE_DEPTH:
            continue
        top = _git(folder, env, *args, "rev-parse", "--show-toplevel")
        listed = _git(folder, env, "-c", "core.fsmonitor=false", *args, "ls-files", "-z", "--stage")
        if not top or listed is None or "160000 " not in listed:
            continue
        root = Path(top.strip())
        for line in listed.split("\0"):
            mode, _, path = line.partition("\t")
            if mode.startswith("160000 ") and (root / path / ".git").exists():
                entry = (root / path, (), depth + 1)
                found.append(entry)
                queue.append(entry)
    return found


def _hooks(cwd: Path, args: tuple[str, ...], env: Mapping[str, str], verb: str) -> list[str]:
    """Hooks ``verb`` may run: executables in the repository's hooks folder, when that folder
    belongs to the repository (its git dir or work tree), not to your own global config."""
    if verb in _NO_HOOKS:
        return []
    out = _git(cwd, env, *args, "rev-parse", "--path-format=absolute", "--absolute-git-dir",
               "--git-path", "hooks")  # fmt: skip
    if not out or len(out.splitlines()) != 2:
        return []
    git_dir, hooks_dir = (Path(line) for line in out.splitlines())
    owners = [git_dir]
    top = _git(cwd, env, *args, "rev-parse", "--show-toplevel")
    if top and top.strip():
        owners.append(Path(top.strip()))
    try:
        real = hooks_dir.resolve()
        if not any(real.is_relative_to(o.resolve()) for o in owners):
            return []
        entries = sorted(hooks_dir.iterdir())
    except OSError:
        return []
    wanted = _VERB_HOOKS.get(verb)
    return [
        _shown(cwd, e)
        for e in entries
        if not e.name.endswith(".sample")
        and (wanted is None or e.name in wanted)
        and e.is_file()
        and os.access(e, os.X_OK)
    ]


def _shown(cwd: Path, path: Path) -> str:
    try:
        return path.relative_to(cwd).as_posix()
    except ValueError:
        return str(path)


@cache
def _env_config_works() -> bool:
    """Whether git honours ``GIT_CONFIG_COUNT`` (2.31 and later)."""
    out = _git(Path.cwd(), None, "version")
    match = re.search(r"(\d+)\.(\d+)", out or "")
    return match is not None and (int(match.group(1)), int(match.group(2))) >= (2, 31)


def _git(cwd: Path, env: Mapping[str, str] | None, *args: str) -> str | None:
    """``git ARGS`` in ``cwd``: its stdout, or None when it failed (or git is missing)."""
    run_env = {**(env if env is not None else os.environ), "GIT_OPTIONAL_LOCKS": "0"}
    try:
        proc = subprocess.run(
            ["git", *args],
            cwd=cwd,
            env=run_env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            check=False,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0:
        return None
    return proc.stdout.decode("utf-8", "replace")
