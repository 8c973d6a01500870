"""Checkpoints and rewind: undo a turn's file changes, rewind the conversation.

- ``store``: the records on disk (state dir, never the workspace), bounded in size.
- ``recorder``: :class:`Checkpoints`, which the agent loop feeds as tools run.
- ``gitstate``: what terminal commands changed in tracked files, via the safe git runner.
- ``restore``: planning and carrying out an undo, and saying what cannot be undone.
- ``targets``: which turns /undo and /rewind act on.
"""

from agent_tui.checkpoints.recorder import Checkpoints, Limits

__all__ = ["Checkpoints", "Limits"]
