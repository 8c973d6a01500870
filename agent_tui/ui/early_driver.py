"""The terminal driver that takes over from the early screen (``early_screen/``).

Textual's Linux driver enters the alternate screen (``CSI ? 1049 h``) as it starts, and many
terminals clear it on entering even when it is already on: the early screen would blank for the
time between the driver's start and the app's first frame. The early screen is already on the
alternate screen, so the first entry is skipped (a later one, after Ctrl+Z, goes through). The
driver reads the terminal's mode to restore at exit when it starts: that is the early screen's
raw mode by then, so the mode from before the early screen is put in its place.
"""

from __future__ import annotations

from textual.drivers.linux_driver import LinuxDriver

from agent_tui.early_screen import screen as early_screen

ENTER_ALT_SCREEN = "\x1b[?1049h"


def driver_after(handover: early_screen.Handover) -> type[LinuxDriver]:
    """A Linux driver class that continues from ``handover``'s terminal."""

    class AfterEarlyScreen(LinuxDriver):
        _on_alt_screen = True

        def write(self, data: str) -> None:
            if data == ENTER_ALT_SCREEN and self._on_alt_screen:
                self._on_alt_screen = False
                return
            super().write(data)

        def start_application_mode(self) -> None:
            super().start_application_mode()  # type: ignore[no-untyped-call]
            self.attrs_before = handover.terminal_attrs
            early_screen.driver_started()

    return AfterEarlyScreen
