"""Options and words that make a command write files or run programs.

A rule for ``git log`` is meant for reading history, yet ``git log --output=~/.bashrc`` writes a
file and ``git -c core.pager='rm -rf ~' log`` runs a program. Such a word counts like a redirection:
the policy does not let a rule or grant cover it unless the rule names that word itself
(``"sed -i" = true``, or the exact-command grant), and a file it writes is checked like ``> FILE``.

``COMMANDS`` is the table, one ``OptionTable`` per command name. To add a command, or an option to
one, add its spellings to the right field (see ``OptionTable``): long options as ``--name`` (prefixes
are matched too, as getopt_long and git accept ``--out=F`` for ``--output=F``), short ones as
``-o`` (found inside bundles like ``-uo`` unless ``bundles=False``), find-style words as ``-delete``.
A command whose program text hides effects (sed, awk) gets a ``script`` scanner. Then add a case to
tests/approvals/test_option_effects.py. Missing an entry means a rule allows it; an entry too many
only asks: when unsure, add it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from agent_tui.approvals.sed_script import sed_script_effects

Action = Literal["writes", "runs", "reads"]


@dataclass(frozen=True)
class OptionEffect:
    """A word of a command that writes a file or runs a program.

    Args:
        word: the word as the command has it (``--output=~/.bashrc``, ``-delete``, ``install``).
        action: ``writes`` (files), ``runs`` (a program or code we cannot see), or ``reads`` (a
            file named inside a program, ``sed 'r FILE'``: only its place is checked).
        target: the file it writes, when the word or the next one says.
    """

    word: str
    action: Action
    target: str | None = None

    def describe(self) -> str:
        """``writes ~/.bashrc through `--output=~/.bashrc```, for the approval reason."""
        if self.action == "runs":
            what = "runs a program"
        else:
            what = f"{self.action} {self.target}" if self.target else f"{self.action} files"
        return f"{what} through `{self.word}`"


ScriptScanner = Callable[[tuple[str, ...]], list[OptionEffect]]


@dataclass(frozen=True)
class OptionTable:
    """What one command's options can do besides reading.

    Args:
        writes_to: options whose value (``--output=F``, ``--output F``, ``-oF``, ``-o F``) is a file
            written.
        writes: options that write files without naming one (``-delete``, ``-i``, ``--extract``).
        runs: options that run a program or load code (``--exec``, ``--upload-pack``).
        before_verb: options that run something, recognised only before the first non-option word
            (git's ``-c key=value`` and ``-C dir`` go before the subcommand).
        verbs: non-option words that install or run code (``npm install``).
        bundles: short options may be bundled (``-uo FILE``); False where ``-Sfoo`` is one option.
        old_style: the first word may be a bundle without a dash (``tar xf a.tar``).
        always: every use of the command runs code we cannot see (``source FILE``).
        script: a scanner of the command's program text (sed, awk).
    """

    writes_to: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    runs: tuple[str, ...] = ()
    before_verb: tuple[str, ...] = ()
    verbs: tuple[str, ...] = ()
    bundles: bool = True
    old_style: bool = False
    always: Action | None = None
    script: ScriptScanner | None = field(default=None, compare=False)


def _awk_effects(args: tuple[str, ...]) -> list[OptionEffect]:
    """awk programs can run commands (``system()``, ``| "cmd"``) and write (``print > "f"``)."""
    program = next((a for a in args if not a.startswith("-")), None)
    if program is None:
        return []
    # Over-matches comparisons such as `$1 > 5`: that only asks.
    if re.search(r"system|getline|[|>]|@load|@include", program):
        return [OptionEffect(program, "runs")]
    return []


def _remote_effects(args: tuple[str, ...]) -> list[OptionEffect]:
    """``rsync``/``scp`` to or from ``host:path`` (or ``rsync://``) send files over the network."""
    return [
        OptionEffect(a, "runs")
        for a in args
        if not a.startswith("-") and (re.match(r"[^/]*:", a) or a.startswith("rsync://"))
    ]


def _env_effects(args: tuple[str, ...]) -> list[OptionEffect]:
    """``env PATH=./bin git log`` runs the repository's ``bin/git`` under a rule for ``git log``."""
    found = []
    for word in args:
        if "=" in word and not word.startswith("-"):
            found.append(OptionEffect(word, "runs"))
        elif not word.startswith("-"):
            break  # the command env runs
    return found


def _in_place(*reading: str) -> ScriptScanner:
    """Compressors and extractors write files next to their inputs unless told to only read."""

    def effects(args: tuple[str, ...]) -> list[OptionEffect]:
        if any(a in reading for a in args):
            return []
        return [OptionEffect(" ".join(args) or "(no arguments)", "writes")]

    return effects


def _pager_commands(args: tuple[str, ...]) -> list[OptionEffect]:
    """``less +!cmd`` and ``more +cmd`` run commands given at start-up."""
    return [OptionEffect(a, "runs") for a in args if a.startswith("+")]


# Builtins that set shell variables, and the options among theirs that take a value first.
_SETTERS = {
    "export": "",
    "declare": "",
    "typeset": "",
    "local": "",
    "readonly": "",
    "read": "adinNptu",
    "mapfile": "dnOstuC",
    "readarray": "dnOstuC",
    "printf": "",
}


def _variable_effects(name: str, args: tuple[str, ...]) -> list[OptionEffect]:
    """Setting an environment-style variable (``PATH``, ``NODE_OPTIONS``, ``GIT_PAGER``, ``IFS``)
    changes what later commands run: ``printf -v PATH bin; git log`` runs the repository's
    ``bin/git``. Lower-case names (``read line``) are ordinary shell variables."""
    names: list[str] = []
    if name == "printf":
        names = [args[i + 1] for i, a in enumerate(args[:-1]) if a == "-v"]
    else:
        takes_value = _SETTERS[name]
        index = 0
        while index < len(args):
            word = args[index]
            if word.startswith("-") and len(word) > 1:
                index += 2 if word[-1] in takes_value else 1
                continue
            names.append(word.partition("=")[0])
            index += 1
    return [OptionEffect(n, "runs") for n in names if re.search(r"[A-Z]", n) or n == "_"]


# fmt: off
_NPM_VERBS = ("install", "i", "ci", "add", "exec", "x", "dlx", "update", "up", "upgrade",
              "rebuild", "link", "publish", "uninstall", "remove", "rm", "install-test", "it")
_PIP = OptionTable(verbs=("install", "download", "uninstall", "wheel"))

# The commands people allow most, and what their options do. Keep entries sorted by command.
COMMANDS: dict[str, OptionTable] = {
    ".": OptionTable(always="runs"),
    "awk": OptionTable(
        runs=("-f", "--file", "-i", "--include", "-l", "--load", "-E", "--exec"),
        writes=("-o", "--pretty-print", "-d", "--dump-variables", "-p", "--profile"),
        script=_awk_effects,
    ),
    "bun": OptionTable(verbs=(*_NPM_VERBS, "run")),
    "cargo": OptionTable(verbs=("install", "uninstall"), runs=("--config",)),
    "curl": OptionTable(
        writes_to=("-o", "--output", "-D", "--dump-header", "-c", "--cookie-jar", "--trace",
                   "--trace-ascii", "--libcurl", "--stderr", "--output-dir", "--etag-save",
                   "--hsts", "--alt-svc"),
        writes=("-O", "--remote-name", "--remote-name-all", "--create-dirs"),
        runs=("-K", "--config"),
    ),
    "enable": OptionTable(always="runs"),  # `enable -f lib.so name` loads a builtin
    "env": OptionTable(runs=("-S", "--split-string"), script=_env_effects),
    "find": OptionTable(
        writes_to=("-fprint", "-fprint0", "-fprintf", "-fls"),
        writes=("-delete",),
        runs=("-exec", "-execdir", "-ok", "-okdir"),
        bundles=False,
    ),
    "gem": OptionTable(verbs=("install", "uninstall", "update")),
    "gunzip": OptionTable(script=_in_place("-c", "--stdout", "-t", "--test", "-l", "--list")),
    "gzip": OptionTable(script=_in_place("-c", "--stdout", "-t", "--test", "-l", "--list")),
    "git": OptionTable(
        # -C and --git-dir pick another repository, whose config can name a pager or fsmonitor.
        before_verb=("-c", "-C", "--exec-path", "--git-dir", "--work-tree", "--config-env",
                     "--namespace", "--super-prefix"),
        writes_to=("--output", "-o", "--output-directory"),
        runs=("--upload-pack", "--receive-pack", "--exec", "-x", "--extcmd", "-O",
              "--open-files-in-pager", "--ext-diff", "--tool"),
        bundles=False,  # `git log -Sfoo` is one option, not -S -f -o -o
    ),
    "go": OptionTable(verbs=("install", "get", "run", "generate")),
    "hash": OptionTable(runs=("-p",)),
    "iconv": OptionTable(writes_to=("-o", "--output")),
    "less": OptionTable(writes_to=("-o", "-O", "--log-file", "--LOG-FILE"), script=_pager_commands),
    "man": OptionTable(runs=("-P", "--pager", "-H", "--html")),
    "more": OptionTable(script=_pager_commands),  # `hash -p ./evil git` makes `git` run ./evil
    "npm": OptionTable(verbs=_NPM_VERBS),
    "npx": OptionTable(always="runs"),
    "pip": _PIP,
    "pip3": _PIP,
    "patch": OptionTable(always="writes"),  # the files a patch names come on stdin, unseen
    "pnpm": OptionTable(verbs=(*_NPM_VERBS, "dlx")),
    "rg": OptionTable(runs=("--pre",)),  # `rg --pre CMD` runs CMD on every file
    "rsync": OptionTable(
        writes_to=("--log-file", "--write-batch", "--only-write-batch", "--backup-dir"),
        writes=("--remove-source-files",),
        runs=("-e", "--rsh", "--rsync-path"),
        script=_remote_effects,
    ),
    "scp": OptionTable(runs=("-S", "-o", "-F"), script=_remote_effects),
    "sed": OptionTable(writes=("-i", "--in-place"), runs=("-f", "--file"), script=sed_script_effects),
    "split": OptionTable(always="writes"),
    "sort": OptionTable(writes_to=("-o", "--output"), runs=("--compress-program",)),
    "source": OptionTable(always="runs"),
    "trap": OptionTable(always="runs"),  # its first argument is shell code run later
    "tar": OptionTable(
        writes=("-x", "--extract", "--get", "-c", "--create", "-r", "--append", "-u", "--update",
                "-A", "--catenate", "--concatenate", "--delete"),
        runs=("--to-command", "--checkpoint-action", "--use-compress-program", "-I",
              "--rsh-command", "--rmt-command", "--info-script", "-F", "--new-volume-script"),
        old_style=True,
    ),
    "unzip": OptionTable(writes_to=("-d",), script=_in_place("-l", "-t", "-p", "-v", "-Z", "-z")),
    "uv": OptionTable(verbs=("install", "add", "remove", "sync", "run", "tool")),
    "wget": OptionTable(
        writes_to=("-O", "--output-document", "-o", "--output-file", "-a", "--append-output",
                   "-P", "--directory-prefix", "--save-cookies", "--warc-file"),
        runs=("-e", "--execute", "--config", "--use-askpass"),
    ),
    "yarn": OptionTable(verbs=(*_NPM_VERBS, "dlx")),
}
# fmt: on
COMMANDS["gawk"] = COMMANDS["mawk"] = COMMANDS["nawk"] = COMMANDS["awk"]
COMMANDS["gsed"] = COMMANDS["sed"]
for _name in ("bzip2", "bunzip2", "xz", "unxz", "zstd", "unzstd", "lz4"):
    COMMANDS[_name] = COMMANDS["gzip"]
COMMANDS["gtar"] = COMMANDS["bsdtar"] = COMMANDS["tar"]

# Commands whose every non-option argument is a file they write (checked like ``> FILE``).
WRITES_ARGUMENTS = frozenset(
    {"tee", "touch", "mkdir", "rm", "rmdir", "truncate", "shred", "cp", "mv", "ln", "install",
     "unlink", "chmod", "chown", "chgrp", "rsync", "scp"}
)  # fmt: skip


def option_effects(name: str, args: tuple[str, ...]) -> list[OptionEffect]:
    """The words of ``name ARGS`` that write files or run programs (see the module docstring).

    Args:
        name: the command name (a path's basename is looked up).
        args: the words after it, quotes removed.
    """
    if name in _SETTERS:
        return _variable_effects(name, args)
    table = COMMANDS.get(os.path.basename(name))
    if table is None:
        return []
    if table.always:
        return [OptionEffect(" ".join((name, *args)), table.always)]
    found: list[OptionEffect] = []
    seen_verb = False
    for index, word in enumerate(args):
        following = args[index + 1] if index + 1 < len(args) else None
        if word.startswith("-") and word != "-":
            found.extend(_option(table, word, following, before_verb=not seen_verb))
        elif index == 0 and table.old_style:
            bundle = _option(table, "-" + word, following, before_verb=True)
            found.extend(OptionEffect(word, e.action, e.target) for e in bundle)
        else:
            # Any operand, not just the first: `npm --prefix dir install` (one effect is enough).
            if word in table.verbs and not any(e.word in table.verbs for e in found):
                found.append(OptionEffect(word, "runs"))
            seen_verb = True
    if table.script is not None:
        found.extend(table.script(args))
    return found


def written_arguments(name: str, args: tuple[str, ...]) -> list[str]:
    """The files ``name ARGS`` writes through its arguments (``tee F``, ``cp A B``, ``dd of=F``)."""
    base = os.path.basename(name)
    if base == "dd":
        return [a[3:] for a in args if a.startswith("of=")]
    if base in ("uniq", "xxd"):  # `uniq IN OUT`, `xxd IN OUT`: the second operand is written
        return [a for a in args if not a.startswith("-")][1:2]
    if base not in WRITES_ARGUMENTS:
        return []
    return [a for a in args if not a.startswith("-") or a == "-"]


def _option(
    table: OptionTable, word: str, following: str | None, *, before_verb: bool
) -> list[OptionEffect]:
    runs = table.runs + (table.before_verb if before_verb else ())
    if word.startswith("--"):
        name, eq, value = word.partition("=")
        target = value if eq else following

        def spelled(options: tuple[str, ...]) -> bool:
            # getopt_long and git accept any unambiguous prefix: `--out=F` is `--output=F`.
            return len(name) > 2 and any(o.startswith(name) for o in options if o.startswith("--"))

        if spelled(table.writes_to):
            return [OptionEffect(word, "writes", target)]
        if spelled(table.writes):
            return [OptionEffect(word, "writes")]
        if spelled(runs):
            return [OptionEffect(word, "runs")]
        return []
    if word in (*table.writes_to, *table.writes, *runs) and len(word) > 2:
        # find-style words (`-delete`, `-fprint FILE`) and exact short ones.
        action: Action = "runs" if word in runs else "writes"
        return [OptionEffect(word, action, following if word in table.writes_to else None)]
    letters = word[1:] if table.bundles else word[1:2]
    for index, letter in enumerate(letters):
        option = "-" + letter
        rest = word[index + 2 :] or None
        if option in table.writes_to:
            return [OptionEffect(word, "writes", rest or following)]
        if option in table.writes:
            return [OptionEffect(word, "writes")]
        if option in runs:
            return [OptionEffect(word, "runs")]
    return []
