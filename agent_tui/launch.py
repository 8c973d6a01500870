"""The ``agent-tui`` command: the early screen first (``early_screen/``), then the CLI.

Kept apart from ``cli.py`` so that the early screen is drawn before ``cli.py``'s own imports
(argparse, dataclasses: a fifth of the time to the app's first frame).
"""

from __future__ import annotations

import sys
from types import ModuleType


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    from agent_tui import start_gc

    start_gc.pause()  # no collections over what the start imports (cli.main resumes them)
    from agent_tui.early_screen import decide

    chosen = decide.here(argv)
    screen: ModuleType | None = None
    if chosen is not None:
        from agent_tui.early_screen import screen as drawn

        drawn.show(*chosen)
        screen = drawn
    try:
        from agent_tui.cli import main as cli_main

        return cli_main(argv)
    except KeyboardInterrupt:
        if screen is not None and screen.quit_asked():
            return 0  # Ctrl+C twice on the early screen: quit, as in the app
        raise
    finally:
        start_gc.resume()  # already done unless the start failed
        if screen is not None:
            screen.close()  # the app never took the terminal (an error, an exit): give it back
