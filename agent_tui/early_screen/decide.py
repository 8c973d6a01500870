"""Whether the early screen is the app's first screen: flags, terminal, colours, ``[ui]``."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

# Flags that leave the first screen the empty chat. Anything else (-p, --continue, --resume,
# --fork, --image, the approval commands, --help, an abbreviation, a word) opens something else
# first or prints and exits: no early screen. Checked again by argparse afterwards, as always.
VALUE_FLAGS = frozenset(
    {
        "--model",
        "--provider",
        "--base-url",
        "--transport",
        "--wire-api",
        "--script",
        "--record",
        "--max-turns",
        "--max-cost",
        "--allow-tool",
        "--mode",
        "--sandbox",
        "--web-search",
        "-C",
        "--workspace",
        "--add-dir",
    }
)
SWITCHES = frozenset({"--yolo", "--trust"})
SUBCOMMANDS = frozenset({"mcp", "acp", "export", "sandbox"})
# [ui] keys that change the first screen's look or keys; any other [ui] key leaves it as drawn.
UI_KEYS_THAT_CHANGE_IT = ("keys", "vim")
OFF_ENV = "AGENT_TUI_EARLY_SCREEN"


def workspace_from_flags(argv: Sequence[str], cwd: Path) -> Path | None:
    """The workspace the flags name (or ``cwd``); ``None`` when a flag rules the early screen out."""
    workspace = cwd
    i = 0
    while i < len(argv):
        word = argv[i]
        name, eq, value = word.partition("=")
        if word in SWITCHES:
            i += 1
            continue
        if name not in VALUE_FLAGS or (eq and name == "-C"):
            return None
        if not eq:
            if i + 1 >= len(argv):
                return None  # argparse will say what is missing
            value = argv[i + 1]
            i += 1
        if name in ("-C", "--workspace"):
            workspace = cwd / Path(value).expanduser()
        i += 1
    return workspace


def colour_system(environ: Mapping[str, str]) -> str | None:
    """``"truecolor"`` or ``"256"`` as Rich would choose; ``None`` for anything it draws otherwise."""
    if "NO_COLOR" in environ or environ.get("TERM", "dumb") in ("dumb", "unknown", ""):
        return None
    if environ.get("COLORTERM", "").lower() in ("truecolor", "24bit"):
        return "truecolor"
    return "256" if "256color" in environ.get("TERM", "") else None


def ui_allows(files: Sequence[Path]) -> bool:
    """No ``[ui]`` setting in these ``.agentrc`` files changes the first screen (an unreadable or
    broken file: no, the app will say what is wrong)."""
    import tomllib

    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            continue
        except (OSError, UnicodeDecodeError):
            return False
        if "ui" not in text:
            continue  # the common case, without parsing
        try:
            ui = tomllib.loads(text).get("ui", {})
        except tomllib.TOMLDecodeError:
            return False
        if not isinstance(ui, dict) or ui.get("theme", "dark") != "dark":
            return False
        if any(key in ui for key in UI_KEYS_THAT_CHANGE_IT):
            return False
    return True


def here(argv: Sequence[str]) -> tuple[Path, str] | None:
    """:func:`decide` for this process: its environment, its stdin and stdout (terminals, and this
    process in the foreground: raw mode from the background would stop it with SIGTTOU)."""
    if sys.platform == "win32":
        return None  # no termios: the app's own driver draws the first screen there
    ttys = os.isatty(0) and os.isatty(1)
    try:
        foreground = os.tcgetpgrp(0) == os.getpgrp()
    except OSError:
        foreground = True  # not our controlling terminal: no job control to stop us
    return decide(argv, os.environ, ttys and foreground)


def decide(argv: Sequence[str], environ: Mapping[str, str], ttys: bool) -> tuple[Path, str] | None:
    """(workspace, colour system) when the early screen is the app's first screen, else ``None``.

    Args:
        argv: the command line after the program name.
        environ: the environment.
        ttys: whether stdin and stdout are both terminals.
    """
    if not ttys or environ.get(OFF_ENV, "1") == "0" or (argv and argv[0] in SUBCOMMANDS):
        return None
    colours = colour_system(environ)
    workspace = workspace_from_flags(argv, Path(os.getcwd()))
    if colours is None or workspace is None or not workspace.is_dir():
        return None
    from agent_tui.paths import user_config_path

    if not ui_allows([user_config_path(environ), workspace / ".agentrc"]):
        return None
    return workspace.resolve(), colours
