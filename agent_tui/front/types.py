"""The vocabulary a front end needs beside ``events`` and ``actions``, gathered at the door.

Value types that questions carry and answers are (``Decision``, ``ElicitAnswer``…), the records a
view hands out (a tool's ``Manifest``, a grant, a saved session, an undo plan), and the words the
core gives its events (``progress_message``, ``compaction_note``), so that ``-p``, the app and an
editor front end say the same. A front end imports these from here, not from the packages that
define them: they are the door's, and may move behind it.
"""

from __future__ import annotations

from agent_tui.agent.call_progress import progress_message
from agent_tui.agent.compaction.run import compacting_text, compaction_note
from agent_tui.agent.loop import CONTINUE_PROMPT
from agent_tui.agent.references import quote_path
from agent_tui.agent.resume import SessionStart, age
from agent_tui.approvals.grants import ApprovalGrant
from agent_tui.approvals.keys import NARROW_KEY, grant_choice, input_problem
from agent_tui.approvals.types import NETWORK_GRANT, OUTSIDE_GRANT, CommandPart, Decision, Scope
from agent_tui.checkpoints.restore import UndoPlan, UndoReport
from agent_tui.checkpoints.store import TurnRecord
from agent_tui.checkpoints.targets import turns_named, typed_text
from agent_tui.config import ModelConfig
from agent_tui.config_gate import format_keys
from agent_tui.mcp.types import ElicitAnswer, InputSpec, PromptArg, SamplingRequest
from agent_tui.providers.image_limits import MAX_IMAGES_PER_REQUEST
from agent_tui.sessions.loader import Entry, LoadedSession, SessionFileError
from agent_tui.sessions.replay import Cleared, replay_events
from agent_tui.sessions.store import SessionInfo
from agent_tui.sessions.timeline import (
    TurnSpan,
    calls_in,
    round_starts,
    standing,
    turns_as_they_stand,
)
from agent_tui.tools.base import Manifest
from agent_tui.tools.client_terminal import ClientRun, ClientTerminal
from agent_tui.tools.registry import MAX_TOOLS

__all__ = [
    "CONTINUE_PROMPT",
    "MAX_IMAGES_PER_REQUEST",
    "MAX_TOOLS",
    "NARROW_KEY",
    "NETWORK_GRANT",
    "OUTSIDE_GRANT",
    "ApprovalGrant",
    "Cleared",
    "ClientRun",
    "ClientTerminal",
    "CommandPart",
    "Decision",
    "ElicitAnswer",
    "Entry",
    "InputSpec",
    "LoadedSession",
    "Manifest",
    "ModelConfig",
    "PromptArg",
    "SamplingRequest",
    "Scope",
    "SessionFileError",
    "SessionInfo",
    "SessionStart",
    "TurnRecord",
    "TurnSpan",
    "UndoPlan",
    "UndoReport",
    "age",
    "calls_in",
    "compacting_text",
    "compaction_note",
    "format_keys",
    "grant_choice",
    "input_problem",
    "progress_message",
    "quote_path",
    "replay_events",
    "round_starts",
    "standing",
    "turns_as_they_stand",
    "turns_named",
    "typed_text",
]
