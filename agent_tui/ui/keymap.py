"""``[ui] keys``: the app's keys, rebindable by action name.

:data:`ACTIONS` is the one table: each action, the keys it has by default, where it acts (the
prompt reads its keys in ``PromptInput._on_key``; the app's go to Textual's keymap through the
binding ids in :data:`BINDING_IDS`) and what it does (README and ``/help`` list the names).
:func:`build_keymap` reads the user's table: an unknown action, a key Textual would never name
or a bare letter (it would stop you typing it) gives one notice and that action keeps its
defaults; a key two actions claim goes to the one the user set (a default yields), and is
reported.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

ACTIONS: dict[str, tuple[tuple[str, ...], str]] = {
    # action: (default keys, what it does)
    "submit": (("enter",), "send the prompt"),
    "newline": (("shift+enter", "ctrl+j", "alt+enter"), "new line in the prompt"),
    "steer": (("alt+enter", "ctrl+enter", "ctrl+s"), "steer the running turn (idle: send)"),
    "history_search": (("ctrl+r",), "search earlier prompts"),
    "cancel": (("escape",), "cancel the running turn (idle, twice: edit the previous prompt)"),
    "cycle_mode": (("shift+tab",), "ask → accept edits → plan"),
    "tools": (("ctrl+t",), "the tool picker"),
    "editor": (("ctrl+g",), "edit the prompt in $VISUAL / $EDITOR"),
    "open_earlier": (("ctrl+o",), "open the newest earlier turn of a resumed session"),
    "toggle_todo": (("f2",), "collapse / expand the todo list"),
    "help": (("f1",), "the help screen"),
    "quit": (("ctrl+q",), "quit"),
}
# Actions that act in the prompt; the others are the app's bindings.
PROMPT_ACTIONS = frozenset({"submit", "newline", "steer", "history_search"})
# Action -> the ids of its Textual bindings (Esc holds two: cancel, edit previous); the prompt's
# bindings only show the keys in the footer (its _on_key acts on them), the app's act.
BINDING_IDS: dict[str, tuple[str, ...]] = {
    "submit": ("submit",),
    "newline": ("newline",),
    "steer": ("steer",),
    "cancel": ("cancel_turn", "edit_previous"),
    "cycle_mode": ("cycle_mode",),
    "tools": ("tools",),
    "editor": ("edit_in_editor",),
    "open_earlier": ("open_earlier",),
    "toggle_todo": ("toggle_todo",),
    "help": ("help",),
    "quit": ("quit",),
}
# Steering acts only while a turn runs, where its keys would otherwise add a line: sharing is meant.
SHARED_ON_PURPOSE = frozenset({frozenset({"newline", "steer"})})
RESERVED = {"ctrl+c": "it clears the prompt and quits"}
MODIFIERS = ("ctrl", "alt", "shift", "meta", "super")
NAMED_KEYS = frozenset(
    "enter escape tab backspace delete insert home end pageup pagedown up down left right "
    "space".split()
) | frozenset(f"f{n}" for n in range(1, 25))


@dataclass
class Keymap:
    """The keys in effect: action -> keys, and the notices reading ``[ui] keys`` gave."""

    keys: dict[str, tuple[str, ...]] = field(
        default_factory=lambda: {name: keys for name, (keys, _) in ACTIONS.items()}
    )
    notices: list[str] = field(default_factory=list)

    def has(self, action: str, key: str) -> bool:
        return key in self.keys.get(action, ())

    def textual_keymap(self) -> dict[str, str]:
        """Binding id -> keys (comma-separated) for ``App.set_keymap``: only what changed."""
        out: dict[str, str] = {}
        for action, ids in BINDING_IDS.items():
            if self.keys[action] != ACTIONS[action][0]:
                # No key left: a key no terminal sends keeps the binding from firing.
                keys = ",".join(self.keys[action]) or "ctrl+f24"
                out.update(dict.fromkeys(ids, keys))
        return out

    def rebound(self) -> list[tuple[str, str, str]]:
        """(action, keys as shown, what it does) for each action whose keys differ from the
        defaults, for /help."""
        return [
            (action, self.shown(action), does)
            for action, (defaults, does) in ACTIONS.items()
            if self.keys[action] != defaults
        ]

    def shown(self, action: str) -> str:
        """The action's keys as /help shows them (``Ctrl+R``, ``Shift+Enter / Ctrl+J``)."""
        return " / ".join(display_key(key) for key in self.keys[action]) or "(none)"


def display_key(key: str) -> str:
    words = {"escape": "Esc", "pageup": "PageUp", "pagedown": "PageDown"}
    return "+".join(words.get(part, part.capitalize()) for part in key.split("+"))


def _prompt_editing_keys() -> dict[str, str]:
    """The prompt's own editing keys (TextArea's bindings: ctrl+a, ctrl+k…) -> what they do."""
    from textual.binding import Binding
    from textual.widgets import TextArea

    keys: dict[str, str] = {}
    for binding in TextArea.BINDINGS:
        if isinstance(binding, Binding):
            for key in binding.key.split(","):
                keys.setdefault(key.strip(), binding.description or binding.action)
    return keys


def key_problem(key: str, action: str = "") -> str | None:
    """Why ``key`` cannot be bound to ``action`` (None: it can). Keys are Textual's names:
    ``ctrl+r``, ``f3``. The app's actions cannot take the prompt's editing keys: the prompt,
    which has the focus, would use the key first."""
    if key in RESERVED:
        return f"{key} is kept: {RESERVED[key]}"
    editing = _prompt_editing_keys().get(key) if action not in PROMPT_ACTIONS else None
    if editing is not None:
        return f"{key} edits the prompt ({editing.lower()}): choose another key"
    *mods, base = key.split("+")
    if any(mod not in MODIFIERS for mod in mods) or len(set(mods)) != len(mods):
        return f"{key!r} is not a key (modifiers: {', '.join(MODIFIERS)})"
    if base in NAMED_KEYS:
        return None
    if len(base) == 1 and base.isascii() and base.isalnum():
        if not set(mods) & {"ctrl", "alt", "meta", "super"}:
            return f"{key!r} would stop you typing {base!r}: add ctrl+ or alt+"
        return None
    return f"{key!r} is not a key (e.g. ctrl+r, alt+x, f3, shift+enter)"


def _parse_keys(value: object, action: str) -> tuple[str, ...] | str:
    """The keys one action was given, or why they cannot be used."""
    words = value.split(",") if isinstance(value, str) else value
    if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
        return "give a key or a list of keys"
    keys = tuple(dict.fromkeys(w.strip().lower() for w in words if w.strip()))
    if not keys:
        return "no key given"
    for key in keys:
        problem = key_problem(key, action)
        if problem is not None:
            return problem
    return keys


def build_keymap(table: Mapping[str, object] | None) -> Keymap:
    """The keymap ``[ui] keys`` asks for, on top of the defaults; notices say what was kept."""
    keymap = Keymap()
    chosen: list[str] = []  # the actions the user set, in their order
    for action, value in (table or {}).items():
        if action not in ACTIONS:
            keymap.notices.append(
                f"[ui] keys: no action {action!r} (actions: {', '.join(ACTIONS)}); ignored."
            )
            continue
        keys = _parse_keys(value, action)
        if isinstance(keys, str):
            keymap.notices.append(f"[ui] keys.{action}: {keys}; its defaults are kept.")
            continue
        keymap.keys[action] = keys
        chosen.append(action)
    _settle_conflicts(keymap, chosen)
    return keymap


def _settle_conflicts(keymap: Keymap, chosen: list[str]) -> None:
    """A key two actions hold goes to the one the user set (the first, if both were)."""
    owners: dict[str, str] = {}
    for action in [*chosen, *(a for a in ACTIONS if a not in chosen)]:
        kept: list[str] = []
        for key in keymap.keys[action]:
            owner = owners.get(key)
            if owner is None or frozenset({owner, action}) in SHARED_ON_PURPOSE:
                owners.setdefault(key, action)
                kept.append(key)
            else:
                keymap.notices.append(
                    f"[ui] keys: {key} is both {owner} and {action}; it does {owner}."
                )
        keymap.keys[action] = tuple(kept)
