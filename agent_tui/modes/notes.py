"""What the model is told about plan mode, as a text block of the user message that starts a turn.

The note is added only when the mode the model last heard of (found in the conversation itself, so
``/clear``, ``/rewind``, compaction and a resumed session need no bookkeeping) differs from the
mode now: entering plan mode, and leaving it. Tools stay offered in every mode (the request's
prefix, and so the provider's prompt cache, stays the same); the approval engine refuses what plan
mode does not allow, with a reason naming plan mode.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent_tui.conversation import Conversation, TextBlock
from agent_tui.modes import Mode

MARK = "<agent-tui-mode>"

PLAN_ON = (
    f"{MARK}plan</agent-tui-mode>\n"
    "Plan mode is on. The user wants a plan before any change. Use only read-only tools "
    "(read_file, list_dir, grep_search, file_search, get_changed_files, …) to learn what you "
    "need (read-only commands such as ls, cat, grep, git status, git diff and git log run too); "
    "do not edit files or run other commands: such calls are refused while plan mode is on. "
    "Then answer with the plan: the steps in order, the files each step changes, and how to "
    "check the result. Ask the user about anything the plan depends on that you cannot find out. "
    "The user accepts the plan or asks you to keep planning."
)
PLAN_OFF = (
    f"{MARK}{{mode}}</agent-tui-mode>\n"
    "Plan mode is off: you may edit files and run commands again (each still needs the user's "
    "approval unless a rule or grant covers it)."
)


# The note as sessions saved before read-only commands ran in plan mode have it.
_PLAN_ON_BEFORE_SAFE_COMMANDS = PLAN_ON.replace(
    "need (read-only commands such as ls, cat, grep, git status, git diff and git log run too); "
    "do not edit files or run other commands:",
    "need; do not edit files or run commands:",
)
_NOTES = {PLAN_ON: Mode.PLAN, _PLAN_ON_BEFORE_SAFE_COMMANDS: Mode.PLAN} | {
    PLAN_OFF.format(mode=m.value): m for m in Mode if m is not Mode.PLAN
}


@dataclass(frozen=True)
class ModeNote:
    """``text`` goes to the model with the turn's message; ``shown`` tells the user the same."""

    text: str
    shown: str


def last_told(conversation: Conversation) -> Mode:
    """The mode the latest note in the conversation told the model (ask when there is none)."""
    for message in reversed(conversation.messages):
        if message.role != "user":
            continue
        for block in reversed(message.content):
            # Only a note as written here counts: text that merely starts like one (a prompt, a
            # command's output) cannot change what the app believes the model was told.
            # startswith first: a long attachment is not hashed for the lookup on every turn.
            if (
                isinstance(block, TextBlock)
                and block.text.startswith(MARK)
                and block.text in _NOTES
            ):
                return _NOTES[block.text]
    return Mode.ASK


def note_for(conversation: Conversation, mode: Mode) -> ModeNote | None:
    """The note the next user message needs, or None when the model already knows the mode."""
    told = last_told(conversation)
    if mode is Mode.PLAN and told is not Mode.PLAN:
        shown = "Plan mode: the model is told to use only read-only tools and answer with a plan."
        return ModeNote(PLAN_ON, shown)
    if mode is not Mode.PLAN and told is Mode.PLAN:
        shown = (
            f"Plan mode is off ({mode.label}): the model is told it may edit and run commands "
            "again."
        )
        return ModeNote(PLAN_OFF.format(mode=mode.value), shown)
    return None
