"""No garbage collections while agent-tui starts; what the start made is then frozen.

Starting imports some 170 of our modules and as many of the standard library's and builds the
agent: over 100,000 objects that live as long as the process, and next to no garbage. The collector
cannot know that: it ran ~60 young and ~6 middle-generation collections over them in a
``-p hello`` run, 10-15 ms (a tenth of its CPU), and freed next to nothing. So collections wait
while the start runs (:func:`pause`); once the agent is built, :func:`resume` moves everything
alive out of the collector's sight (``gc.freeze``, as a server does before it forks) and turns it
back on, so later collections walk only what the session makes. Memory is unchanged: the objects
frozen are the ones the process keeps anyway.
"""

from __future__ import annotations

import gc

_paused = False


def pause() -> None:
    """Hold collections until :func:`resume` (a no-op when the collector is already off)."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume() -> None:
    """Freeze what is alive now and collect as usual again (once; later calls do nothing)."""
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        gc.enable()
