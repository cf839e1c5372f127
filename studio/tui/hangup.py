"""The studio stops when its terminal goes away without a SIGHUP (issue 11): `HangupWatch`.

Why: a terminal that vanishes without a SIGHUP (a pty whose master side was closed but which is not the
process's controlling terminal: a killed test harness, some multiplexers) leaves Textual's input thread
(`LinuxDriver.run_input_thread`) in a loop of `select` returning at once and `os.read` returning b"", about
two thirds of a core, forever; nothing ever asks the studio to quit.

Rules:
- `HangupWatch(fd, on_gone)` is a daemon thread blocked in poll(2) on `fd` with an EMPTY event mask. poll then
  reports only POLLHUP / POLLERR / POLLNVAL, which the kernel sets when a pty's master side is closed, when
  every writer of a pipe is gone, or when the fd is closed. It never wakes for input, so it neither spins
  nor takes a key from Textual's reader; it costs nothing until the hang-up.
- A private pipe is polled too: `stop()` writes a byte to it and the thread returns without calling.
- `on_gone()` is called at most once, from the watch thread (the caller hops to its own loop).
- Only descriptors poll can report a hang-up on are watched (`can_watch`): a terminal, a pipe or FIFO, a
  socket. A regular file or /dev/null never hangs up; `start_hangup_watch` then watches nothing.
- In the App (`start_hangup_watch`): the terminal driver's input is stopped first (its spinning reader
  ends) and then the App is interrupted as on SIGHUP: the run stops resumably (checkpoint and staging
  kept, the lock released as the worker unwinds) and the studio exits 130, as `continue` does on SIGHUP.
  Headless apps and the browser driver (`serve`, whose reader ends by itself at EOF) are not watched.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import select
import stat
import threading
from collections.abc import Callable
from typing import Any

from textual.app import App

from widgets import compat

HANGUP = select.POLLHUP | select.POLLERR | select.POLLNVAL


def can_watch(fd: int) -> bool:
    """Whether poll(2) reports a hang-up on `fd`: a terminal, a pipe / FIFO or a socket (not a regular file,
    not /dev/null, not a closed descriptor)."""
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return os.isatty(fd) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


class HangupWatch:
    """Call `on_gone()` once when `fd` hangs up (see the module's rules); `stop()` ends the watch quietly."""

    def __init__(self, fd: int, on_gone: Callable[[], None]) -> None:
        self.fd = fd
        self.on_gone = on_gone
        self._wake_read, self._wake_write = os.pipe()
        self._stopped = False
        self._thread = threading.Thread(target=self._run, name="novel-studio-hangup-watch", daemon=True)

    def start(self) -> HangupWatch:
        self._thread.start()
        return self

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def stop(self) -> None:
        """End the watch without calling `on_gone` (the app is quitting by itself); waits for the thread."""
        if self._stopped:
            return
        self._stopped = True
        with contextlib.suppress(OSError):
            os.write(self._wake_write, b"x")
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join()
        for fd in (self._wake_read, self._wake_write):
            with contextlib.suppress(OSError):
                os.close(fd)

    def _run(self) -> None:
        poller = select.poll()
        poller.register(self.fd, 0)  # empty mask: only POLLHUP / POLLERR / POLLNVAL are reported
        poller.register(self._wake_read, select.POLLIN)
        while True:
            try:
                events = poller.poll()  # no timeout: nothing to do until a hang-up or stop()
            except InterruptedError:  # pragma: no cover - PEP 475 retries poll itself
                continue
            for fd, mask in events:
                if fd == self._wake_read:
                    return
                if fd == self.fd and mask & HANGUP:
                    if not self._stopped:
                        self.on_gone()
                    return


def start_hangup_watch(app: App[Any], on_gone: Callable[[], None]) -> HangupWatch | None:
    """Watch the terminal the App reads its keys from. On a hang-up, on the App's loop: stop the driver's input
    (its reader would spin at EOF until the app is torn down), then `on_gone()`. None when there is nothing to
    watch (headless, the browser driver, a stdin that never hangs up) or no running loop."""
    fd = compat.terminal_input_fd(app)
    if fd is None or not can_watch(fd):
        return None
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return None

    def gone() -> None:
        compat.stop_terminal_input(app)
        on_gone()

    def from_thread() -> None:
        with contextlib.suppress(RuntimeError):  # the loop already closed: the app is gone anyway
            loop.call_soon_threadsafe(gone)

    return HangupWatch(fd, from_thread).start()
