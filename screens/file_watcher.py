"""The project's file watcher as an invisible widget: it watches and posts, nothing else.

After the screen's first paint (so that importing `watchfiles` is not on the way to it: two refreshes, see
`_after_refresh`) it runs `studio.watch.watch_project` in a plain asyncio task on the app's loop (a watcher never completes, and
`app.workers.wait_for_complete()` must still return; stopped on unmount) and posts each debounced batch as
`studio.tui.messages.ProjectChanged`, or `WatchFailed` once when the watcher itself fails (traceback to the
studio log). It never touches a screen: what a change means is `studio.tui.watch_flow`'s business. Unmounted
as the studio quits with a non-zero code (a signal), it arms the exit watchdog (`studio.exit_watchdog`): the exit of an
idle studio is bounded too, not only that of a run.
"""

from __future__ import annotations

import asyncio
import traceback
from pathlib import Path
from typing import ClassVar

from textual.widget import Widget

from studio.exit_watchdog import bound_the_exit
from studio.studio_log import log_line
from studio.tui.messages import ProjectChanged, WatchFailed
from studio.watch import DEFAULT_DEBOUNCE_MS, ProjectChange, watch_project


class FileWatcher(Widget):
    """Watches the project folder; see the module docstring."""

    DEFAULT_CSS = """
    FileWatcher {
        display: none;
    }
    """

    debounce_ms: ClassVar[int] = DEFAULT_DEBOUNCE_MS
    """The watcher's debounce (tests lower it)."""
    enabled: ClassVar[bool] = True
    """False: no watcher is started (tests that do not want one)."""

    def __init__(self, root: Path, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.root = Path(root)
        self.ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._watch_task: asyncio.Task[None] | None = None

    def on_mount(self) -> None:
        if self.enabled:
            self.call_after_refresh(self._after_refresh)

    def _after_refresh(self) -> None:
        # The first "after refresh" comes before the studio's first paint (the app's start-up runs the screen's
        # callbacks before it paints): wait one refresh more, so that importing and starting the watcher
        # (`watchfiles`, anyio: about 40 ms of CPU) comes after the first paint.
        self.call_after_refresh(self._start)

    def _start(self) -> None:
        if self._watch_task is None and not self._stop.is_set():
            self._watch_task = asyncio.create_task(self._watch(), name="novel-studio-watch")

    def on_unmount(self) -> None:
        self.stop()
        code = self.app.return_code
        # Unmounted because the studio quits on a signal (or an error): its exit is bounded, run or not. Never in a
        # headless app: that is a test, and the watchdog would end the test process.
        if code and not self.app.is_headless:
            bound_the_exit(self.root, code)

    def stop(self) -> None:
        self._stop.set()
        if self._watch_task is not None:
            self._watch_task.cancel()
            self._watch_task = None

    async def _watch(self) -> None:
        try:
            await watch_project(
                self.root,
                on_change=self._changed,
                stop_event=self._stop,
                debounce_ms=self.debounce_ms,
                ready=self.ready,
            )
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the watcher never takes the app down
            log_line(self.root, "watcher failed:\n" + traceback.format_exc())
            self.post_message(WatchFailed(f"{type(exc).__name__}: {exc}"))

    def _changed(self, changes: list[ProjectChange]) -> None:
        self.post_message(ProjectChanged(list(changes)))


__all__ = ["FileWatcher"]
