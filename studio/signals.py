"""Turn SIGTERM / SIGHUP into an exception, so `with ProjectLock(...)` and `finally` blocks run.

By default a SIGTERM kills Python without unwinding: no `finally`, no `__exit__`, no `atexit`, and the
project lock would be left behind. `install_termination_handlers()` makes the first such signal raise
`Terminated` (a KeyboardInterrupt subclass, so `except Exception` does not swallow it) in the main thread,
or call a callback instead (for an event loop such as Textual's that wants to shut down itself).

Python only runs signal handlers in the main thread and only lets the main thread install them, so
calling this from another thread is a no-op. The returned function restores the previous handlers.

`arm_exit_watchdog(code, ...)` bounds the exit that follows such a signal: a process still alive a grace
after it was armed (a stuck thread the interpreter or the event loop waits for) is ended with `code`, but
only once its work is saved (see the function's rules).
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import threading
import time
import traceback
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


# ---------------------------------------------------------------- the exit watchdog

EXIT_GRACE_ENV = "NOVEL_STUDIO_EXIT_GRACE"
EXIT_GRACE_S = 30.0
"""How long a quitting process may take to end by itself before `arm_exit_watchdog` ends it (seconds; the
environment variable overrides it, for the tests)."""

_watchdog_lock = threading.Lock()
_watchdog: threading.Thread | None = None


def exit_grace() -> float:
    """`EXIT_GRACE_S`, or the environment's `NOVEL_STUDIO_EXIT_GRACE` when it is a positive number."""
    try:
        value = float(os.environ.get(EXIT_GRACE_ENV, ""))
    except ValueError:
        return EXIT_GRACE_S
    return value if value > 0 else EXIT_GRACE_S


def thread_stacks() -> str:
    """Every thread's name and stack, for the log of a watchdog exit (which thread kept the process alive)."""
    names = {t.ident: f"{t.name}{' (daemon)' if t.daemon else ''}" for t in threading.enumerate()}
    blocks = []
    for ident, frame in sys._current_frames().items():
        stack = "".join(traceback.format_stack(frame)).rstrip()
        blocks.append(f"thread {names.get(ident, ident)}:\n{stack}")
    return "\n".join(blocks)


def arm_exit_watchdog(
    code: int,
    *,
    saved: Callable[[], bool],
    log: Callable[[str], None],
    grace: float | None = None,
) -> bool:
    """The last resort of a process that is quitting after SIGINT / SIGTERM / SIGHUP: if it is still alive
    `grace` seconds from now (a thread that never ends, joined at the interpreter's exit or by the event loop's
    shutdown), end it with `code` by `os._exit`, after `log` got every thread's stack.

    Rules: it never ends a process whose work is not saved: once the grace is over it waits until `saved()` is
    true (checked every second; `saved` must not raise). Armed once per process (a later call changes nothing
    and returns False). A daemon thread: a process that ends by itself in time never notices it.
    """
    global _watchdog
    deadline = time.monotonic() + (exit_grace() if grace is None else grace)

    def watch() -> None:
        while (left := deadline - time.monotonic()) > 0:
            time.sleep(left)
        while not saved():
            time.sleep(1.0)
        with contextlib.suppress(Exception):  # the exit must happen even when the log cannot be written
            log(f"still alive {time.monotonic() - deadline:.0f} s after the grace to quit; ending with status "
                f"{code} (the work is saved). Threads:\n{thread_stacks()}")
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                if stream is not None:
                    stream.flush()
        os._exit(code)

    with _watchdog_lock:
        if _watchdog is not None:
            return False
        _watchdog = threading.Thread(target=watch, name="novel-studio-exit-watchdog", daemon=True)
        _watchdog.start()
    return True
