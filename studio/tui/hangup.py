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
- A standard input that can give no keys and never hangs up (a regular file, /dev/null, a closed fd 0) is
  refused before the App starts (`input_refusal`): Textual's reader would take the file's bytes as keys and
  then spin at its EOF for ever, with nothing to watch. The studio says it needs a terminal (and what to run
  in a script instead) and exits non-zero (the CLI's 1). A pipe stays allowed: `serve`'s sessions read
  one, and its EOF is a hang-up.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import select
import stat
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from studio.i18n import Catalog, Lang, tr

if TYPE_CHECKING:
    # Textual loads with the App: the CLI asks `input_refusal` before it imports either (studio.cli.main).
    from textual.app import App

MESSAGES: Catalog = {
    "needs_terminal": (
        "工作室需要在终端中运行：标准输入是{what}，读不到按键。请在终端里启动 novel-studio；在脚本中请用 "
        "novel-studio continue 写作、novel-studio status 查看进度",
        "the studio needs a terminal: its standard input is {what}, which gives no keys. Start novel-studio in a "
        "terminal; in a script, write with novel-studio continue and see progress with novel-studio status",
    ),
    "what_null": ("空设备 {name}", "the null device {name}"),
    "what_file": ("文件 {name}", "the file {name}"),
    "what_closed": ("已关闭的描述符", "a closed descriptor"),
    "what_device": ("非终端设备 {name}", "a device that is not a terminal, {name}"),
}

HANGUP = select.POLLHUP | select.POLLERR | select.POLLNVAL


def can_watch(fd: int) -> bool:
    """Whether poll(2) reports a hang-up on `fd`: a terminal, a pipe / FIFO or a socket (not a regular file,
    not /dev/null, not a closed descriptor)."""
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return os.isatty(fd) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def stdin_refusal(driver_class: type[Any], lang: Lang) -> str | None:
    """`input_refusal` for the process's standard input when `driver_class` (the App's) reads keys from it:
    Textual's terminal driver (`LinuxDriver`), not the browser driver of `serve`'s sessions."""
    try:
        from textual.drivers.linux_driver import LinuxDriver
    except ImportError:  # no termios: not a POSIX terminal
        return None
    if not issubclass(driver_class, LinuxDriver):
        return None
    return input_refusal(stdin_fd(), lang)


def stdin_fd() -> int | None:
    """The process's own standard input descriptor (`sys.__stdin__`, whatever replaced `sys.stdin`), or None
    when it is closed."""
    stdin = sys.__stdin__
    try:
        return stdin.fileno() if stdin is not None else None
    except (OSError, ValueError):
        return None


def input_refusal(fd: int | None, lang: Lang) -> str | None:
    """Why the studio cannot read its keys from `fd` (its standard input; None: closed), in `lang`; None when
    it can (a terminal, a pipe or a socket). See the module's rules."""
    if fd is not None and can_watch(fd):
        return None
    if fd is None:
        what = tr(MESSAGES, "what_closed", lang)
    else:
        try:
            mode = os.fstat(fd).st_mode
            name = os.readlink(f"/proc/self/fd/{fd}") if os.path.isdir("/proc/self/fd") else f"fd {fd}"
        except OSError:
            mode, name = None, ""
        if mode is None:
            what = tr(MESSAGES, "what_closed", lang)
        elif stat.S_ISREG(mode):
            what = tr(MESSAGES, "what_file", lang, name=name)
        elif name == os.devnull:
            what = tr(MESSAGES, "what_null", lang, name=name)
        else:
            what = tr(MESSAGES, "what_device", lang, name=name)
    return tr(MESSAGES, "needs_terminal", lang, what=what)


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
    from widgets import compat

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
