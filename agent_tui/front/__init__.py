"""The door to the core for front ends: the app (``ui/``), and any other (an editor's, over ACP).

A front end holds one ``Front`` (``door.py``) around the ``Agent`` the CLI built and uses the core
only through it, the events it yields (``events.py``), the actions a command asks for
(``actions.py``) and the vocabulary in ``front.types``, plus a few presentation-neutral helpers
of the base layer (``text_safety``, ``durations``, ``plural``…). ``tests/test_door_imports.py``
holds the list and checks ``ui/`` against it.

- ``Front.submit(UserInput(text, images))``: every input, answered with events; a question is an
  event carrying a Future (``agent/front.py``).
- Views (``views.py``, frozen): ``status()``, ``settings()``, ``model``, ``messages``,
  ``tools.manifests()``, ``completions.commands()``, ``mcp.status()``, ``grants.list()``,
  ``terminals.list()``, ``trust.question()``, ``sessions.others()``, ``changes.prompts()``;
  readers: ``terminals.output()`` (a terminal's log as it grows), ``status_line.state()``.
- Changes a user makes outside a prompt: ``cycle_mode``/``leave_plan``, ``tools.set_disabled``,
  ``grants.revoke``, ``terminals.kill``, ``trust.store``/``trust.apply``, ``switch_model``,
  ``sessions.switch_to``, ``changes.apply`` and ``rewind``, ``clear``/``undo_clear``,
  ``mcp.edit`` (``/mcp add``/``remove``).
- Questions asked outside a turn (MCP servers' forms and consent): ``mcp.answer_with``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.agent.front import UserInput
from agent_tui.front.door import Front

if TYPE_CHECKING:
    # What the CLI hands a front end to wrap in a ``Front``; named here for annotations only.
    from agent_tui.agent.loop import Agent as Agent

__all__ = ["Front", "UserInput"]
