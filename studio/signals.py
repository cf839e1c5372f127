"""Turn SIGTERM / SIGHUP into an exception, so `with ProjectLock(...)` and `finally` blocks run.

By default a SIGTERM kills Python without unwinding: no `finally`, no `__exit__`, no `atexit`, and the
project lock would be left behind. `install_termination_handlers()` makes the first such signal raise
`Terminated` (a KeyboardInterrupt subclass, so `except Exception` does not swallow it) in the main thread,
or call a callback instead (for an event loop such as Textual's that wants to shut down itself).

Python only runs signal handlers in the main thread and only lets the main thread install them, so
calling this from another thread is a no-op. The returned function restores the previous handlers.
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

log = logging.getLogger(__name__)

Restore = Callable[[], None]


class Terminated(KeyboardInterrupt):
    """Raised in the main thread when the process receives SIGTERM or SIGHUP."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        super().__init__(f"terminated by {signal.Signals(signum).name}")

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


def termination_signals() -> list[signal.Signals]:
    """SIGTERM everywhere, SIGHUP where it exists (not on Windows)."""
    names = ("SIGTERM", "SIGHUP")
    return [getattr(signal, n) for n in names if hasattr(signal, n)]


def install_termination_handlers(callback: Callable[[int], None] | None = None) -> Restore:
    """Install handlers for SIGTERM/SIGHUP; returns a function that puts the previous ones back.

    Only the first signal acts (raise `Terminated`, or `callback(signum)`); repeats are logged and
    ignored so a second SIGTERM cannot interrupt the cleanup the first one started. SIGKILL still works.
    """
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    fired = False

    def handler(signum: int, frame: FrameType | None) -> None:
        nonlocal fired
        if fired:
            log.warning("ignoring repeated %s during shutdown", signal.Signals(signum).name)
            return
        fired = True
        if callback is not None:
            callback(signum)
            return
        raise Terminated(signum)

    previous: dict[signal.Signals, Any] = {}
    for sig in termination_signals():
        previous[sig] = signal.signal(sig, handler)

    def restore() -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        for sig, old in previous.items():
            signal.signal(sig, old if old is not None else signal.SIG_DFL)

    return restore


@contextmanager
def termination_handlers(callback: Callable[[int], None] | None = None) -> Iterator[None]:
    """`with termination_handlers(): ...` — handlers installed for the block, restored after it."""
    restore = install_termination_handlers(callback)
    try:
        yield
    finally:
        restore()
