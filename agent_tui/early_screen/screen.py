"""The early screen on the terminal: raw mode, the frame, a thread reading keys, the handover.

States: shown (ours: raw mode, the alternate screen, the reader running) → taken (the reader
stopped, the keys typed handed to the app; the terminal still raw until the app's driver sets
its own mode) → the driver's (the app restores the terminal at its exit) — or closed (the terminal
given back as it was: an error to print, a quit, the process ending before the app started).
Any write to ``sys.stdout`` or ``sys.stderr`` while it is shown closes it first, so an error
(a bad ``.agentrc``, a traceback) prints on the normal screen, where it stays readable.
"""

from __future__ import annotations

import _thread
import contextlib
import os
import select
import signal
import sys
import termios
import threading
from pathlib import Path
from typing import Any, TextIO

from agent_tui.early_screen.paint import Painter, short_path
from agent_tui.early_screen.typed import Typed

ENTER_SCREEN = "\x1b[?1049h\x1b[?25l\x1b[?2004h"  # alternate screen, cursor hidden, pastes marked
LEAVE_SCREEN = "\x1b[?2004l\x1b[0m\x1b[?25h\x1b[?1049l"


class Handover:
    """What the app takes over: the keys typed, and the terminal's mode to restore at its exit.

    Args:
        typed: the messages sent and the text typed on the early screen.
        terminal_attrs: ``termios.tcgetattr`` of the terminal before the early screen set raw mode.
    """

    def __init__(self, typed: Typed, terminal_attrs: list[Any]) -> None:
        self.typed = typed
        self.terminal_attrs = terminal_attrs


class EarlyScreen:
    """The frame on ``fd_out``, keys read from ``fd_in`` in a thread until :meth:`take`."""

    def __init__(self, fd_in: int, fd_out: int, painter: Painter, workspace: str) -> None:
        self.fd_in, self.fd_out = fd_in, fd_out
        self.painter = painter
        self.workspace = workspace
        self.typed = Typed()
        self.state = "new"
        self._attrs: list[Any] = []
        self._lock = threading.RLock()
        self._wake_r, self._wake_w = os.pipe()
        self._thread = threading.Thread(target=self._read_keys, name="early-screen", daemon=True)
        self._streams: tuple[TextIO, TextIO] | None = None

    def show(self) -> None:
        """Raw mode, the alternate screen, the frame; then read keys (raises ``OSError``,
        ``termios.error``: nothing shown)."""
        self._attrs = termios.tcgetattr(self.fd_in)
        termios.tcsetattr(self.fd_in, termios.TCSANOW, raw_mode(self._attrs))
        self.state = "shown"
        self._write(ENTER_SCREEN + self._frame())
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGWINCH, self._resized)
        self._streams = (sys.stdout, sys.stderr)
        sys.stdout = ClosingStream(sys.stdout, self)
        sys.stderr = ClosingStream(sys.stderr, self)
        self._thread.start()

    def take(self) -> Handover | None:
        """Stop reading; the keys typed and the terminal's own mode. ``None`` if already closed."""
        with self._lock:
            if self.state != "shown":
                return None
            self.state = "taken"
            self._give_back_streams()
        self._stop_reader()
        return Handover(self.typed, self._attrs)

    def close(self) -> None:
        """Give the terminal back as it was, unless the app's driver has it (idempotent)."""
        with self._lock:
            if self.state not in ("shown", "taken"):
                return
            self.state = "closed"
            self._give_back_streams()
            # A terminal gone meanwhile (hung up): nothing to give back, and the error that
            # brought us here (this runs from launch's ``finally``) must not be masked.
            with contextlib.suppress(OSError, termios.error):
                termios.tcsetattr(self.fd_in, termios.TCSADRAIN, self._attrs)
                self._write(LEAVE_SCREEN)
        if threading.current_thread() is not self._thread:
            self._stop_reader()

    def driver_started(self) -> None:
        """The app's driver set its own mode: restoring the terminal is its job now."""
        with self._lock:
            if self.state == "taken":
                self.state = "driver"

    def _stop_reader(self) -> None:
        if self._thread.is_alive():
            os.write(self._wake_w, b"s")
            self._thread.join(timeout=2)
        if not self._thread.is_alive() and self._wake_w >= 0:
            os.close(self._wake_r)
            os.close(self._wake_w)
            self._wake_r = self._wake_w = -1

    def _give_back_streams(self) -> None:
        if self._streams is not None:
            sys.stdout, sys.stderr = self._streams
            self._streams = None

    def _resized(self, signum: int, frame: object) -> None:
        if self.state == "shown":
            with contextlib.suppress(OSError):  # closing meanwhile: nothing to redraw
                os.write(self._wake_w, b"w")

    def _read_keys(self) -> None:
        while True:
            ready = select.select([self.fd_in, self._wake_r], [], [])[0]
            if self._wake_r in ready:
                wake = os.read(self._wake_r, 64)
                if b"s" in wake:
                    return
                self._redraw(self._frame)
            if self.fd_in in ready and not self._take_keys():
                return

    def _take_keys(self) -> bool:
        """Read what is waiting; False when reading is over (end of input, or quit)."""
        try:
            data = os.read(self.fd_in, 4096)
        except OSError:
            return False
        with self._lock:
            if self.state not in ("shown", "taken") or not data:
                return False
            # Taken while this read was under way: the keys are still the early screen's (the
            # handover's Typed is read only once this thread has stopped).
            self.typed.feed(data)
            quit_now = self.typed.quit and self.state == "shown"
        if quit_now:
            self.close()
            _thread.interrupt_main()  # Ctrl+C twice: the start stops where it is (launch.py)
            return False
        self._redraw(self._prompt_row)
        return True

    def _redraw(self, draw: Any) -> None:
        with self._lock:
            if self.state == "shown":
                self._write(draw())

    def _frame(self) -> str:
        width, height = self._size()
        return self.painter.frame(width, height, self.workspace, self.typed.text)

    def _prompt_row(self) -> str:
        width, height = self._size()
        return self.painter.prompt_row(width, height, self.typed.text)

    def _size(self) -> tuple[int, int]:
        size = os.get_terminal_size(self.fd_out)
        return max(size.columns, 20), max(size.lines, 6)

    def _write(self, text: str) -> None:
        data = text.encode("utf-8", "replace")
        while data:
            data = data[os.write(self.fd_out, data) :]


class ClosingStream:
    """``sys.stdout``/``sys.stderr`` while the early screen is up: a write closes it first."""

    def __init__(self, stream: TextIO, screen: EarlyScreen) -> None:
        self._stream = stream
        self._screen = screen

    def write(self, text: str) -> int:
        self._screen.close()
        return self._stream.write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def raw_mode(attrs: list[Any]) -> list[Any]:
    """``attrs`` with keys read one at a time, unechoed, Ctrl+C a byte (output processing kept)."""
    raw = [*attrs[:6], list(attrs[6])]
    raw[0] &= ~(termios.ICRNL | termios.INLCR | termios.IGNCR | termios.IXON | termios.ISTRIP)
    raw[3] &= ~(termios.ECHO | termios.ICANON | termios.ISIG | termios.IEXTEN)
    raw[6][termios.VMIN] = 1
    raw[6][termios.VTIME] = 0
    return raw


_screen: EarlyScreen | None = None


def show(workspace: Path, colours: str) -> None:
    """Draw the early screen (``decide.py`` said it is the app's first screen)."""
    global _screen
    screen = EarlyScreen(0, 1, Painter(colours), short_path(workspace))
    try:
        screen.show()
    except (OSError, termios.error):
        screen.close()
        return
    _screen = screen


def take() -> Handover | None:
    """Hand the terminal to the app (``None``: there was no early screen, or it closed)."""
    return _screen.take() if _screen is not None else None


def close() -> None:
    """Give the terminal back if the app never took it (at the end of the process's start)."""
    if _screen is not None:
        _screen.close()


def driver_started() -> None:
    """Called by the app's driver once it has set the terminal's mode."""
    if _screen is not None:
        _screen.driver_started()


def quit_asked() -> bool:
    """Whether Ctrl+C was pressed twice on the early screen."""
    return _screen is not None and _screen.typed.quit
