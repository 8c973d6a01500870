"""Spare the interpreter's final garbage collections when the app exits.

After the atexit hooks, CPython clears every module and runs full collections over all the objects
the process still holds (some 25,000 after a ``-p`` run), only to free memory the OS takes back
anyway: 10-15 ms, a tenth of ``agent-tui -p hello`` (bench/RESULTS.md, 2026-11-24).
``gc.freeze()``, run as an atexit hook, moves every object alive by then out of the collector's
sight, so those collections find next to nothing to walk.

Nothing of ours depends on them: the atexit hooks (logging's flush, killing what commands left
running, ``weakref.finalize``) run in full on either side of the freeze; objects not in a reference
cycle are still freed as the modules are cleared; session files and state files are written with
``os.write`` or inside ``with`` blocks; and CPython does not promise to call ``__del__`` of objects
alive at exit in any case. What stays uncollected is cyclic garbage such as the closed sockets of
the HTTP client.
"""

from __future__ import annotations

import atexit
import gc

_registered = False


def freeze_at_exit() -> None:
    """Freeze the garbage collector's objects at exit (once per process)."""
    global _registered
    if not _registered:
        _registered = True
        # Hooks registered later (terminal_process's) run before this one, earlier ones
        # (logging's) after it: either way they run in full, as freeze() only hides the objects
        # that exist then from later collections; cycles made afterwards are still collected.
        atexit.register(gc.freeze)
