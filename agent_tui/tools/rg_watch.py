"""Noticing ripgrep stuck opening a FIFO, so a search falls back instead of hanging.

ripgrep reads every ``.gitignore``, ``.ignore`` and ``.rgignore`` it meets by itself, and opening
one that is a named pipe blocks until something writes to it — forever, in a hostile repository.
Finding such files first would mean walking the tree, which is what ripgrep is there to avoid.
Instead the kernel says where each of rg's threads waits: ``wait_for_partner`` (``fifo_open``
on older kernels) is an open of a FIFO with no writer. Seen twice in a row, rg is killed and the
search runs in Python, whose walker reads regular files only (safe_read). Linux only; elsewhere
nothing is noticed (and nothing changes).
"""

from __future__ import annotations

import os

FIFO_WAITS = frozenset({"wait_for_partner", "fifo_open"})
POLL_S = 0.2


class RgStuck(Exception):
    """ripgrep waited on a FIFO; the caller searches another way."""


def waiting_on_fifo(pid: int) -> bool:
    """Whether a thread of process ``pid`` is blocked opening a FIFO."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return False
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/wchan", encoding="ascii") as file:
                if file.read().strip() in FIFO_WAITS:
                    return True
        except OSError:
            continue
    return False
