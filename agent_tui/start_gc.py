"""No garbage collections while agent-tui starts; what the start made is then frozen.

Starting imports some 170 of our modules and as many of the standard library's and builds the
agent: some 40,000 objects the collector tracks, nearly all of which live as long as the process.
The collector cannot know that: it ran ~60 young and ~6 middle-generation collections over them in
a ``-p hello`` run, 10-15 ms (a tenth of its CPU), to find ~300 objects of garbage. So collections
wait while the start runs (:func:`pause`); once the agent is built, :func:`resume` moves everything
then alive out of the collector's sight (``gc.freeze``, as a server does before it forks) and
turns it back on, so later collections walk only what the session makes. The cost: those few
hundred objects of the start's garbage are never freed.
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
