"""The rebuild queue as an invisible widget: one rebuild at a time, in a worker, reported by messages.

`request(n)` queues chapter `n` (once); `pump(run_active)` starts the next queued rebuild unless one is running
or a pipeline run holds the project lock (`run_active`), and returns the chapter it started. The rebuild itself
is `pipeline.rebuild.rebuild_chapter` with agents from `StudioServices.make_agents`; it posts
`RebuildStarted`, a `RebuildStage` per stage started or finished, and `RebuildFinished` (result, or a readable
error; traceback to the studio log). It never touches a screen.
"""

from __future__ import annotations

import asyncio
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from textual import work
from textual.widget import Widget
from textual.worker import Worker, WorkerState

from pipeline.events import Event, StageFinished, StageStarted
from studio.i18n import Lang
from studio.studio_log import log_line
from studio.tui.messages import RebuildFinished, RebuildStage, RebuildStarted

if TYPE_CHECKING:
    from pipeline.agents.protocol import Agents  # the agents are built, and imported, when a rebuild runs


class RebuildQueue(Widget):
    """Queued rebuilds of hand-edited chapters; see the module docstring."""

    DEFAULT_CSS = """
    RebuildQueue {
        display: none;
    }
    """

    def __init__(
        self, root: Path, agents_factory: Callable[[], Agents], *, lang: Lang = "zh", id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.root = Path(root)
        self.agents_factory = agents_factory
        self.lang: Lang = lang
        self.queue: list[int] = []
        self.rebuilding: int | None = None
        self._rebuild_worker: Worker[None] | None = None

    @property
    def running(self) -> bool:
        worker = self._rebuild_worker
        return worker is not None and worker.state in (WorkerState.PENDING, WorkerState.RUNNING)

    def pending(self, n: int) -> bool:
        """Chapter `n` is queued or being rebuilt."""
        return n in self.queue or n == self.rebuilding

    def request(self, n: int) -> None:
        if not self.pending(n):
            self.queue.append(n)

    def pump(self, run_active: bool) -> int | None:
        """Start the next queued rebuild (the chapter started), unless one runs or a run holds the lock."""
        if not self.queue or self.running or run_active:
            return None
        n = self.queue.pop(0)
        self.rebuilding = n
        self._rebuild_worker = self._rebuild(n)
        return n

    @work(exclusive=False, group="rebuild", exit_on_error=False)
    async def _rebuild(self, n: int) -> None:
        from pipeline.rebuild import rebuild_chapter

        log_line(self.root, f"rebuild started: chapter {n}")
        self.post_message(RebuildStarted(n))
        try:
            result = await rebuild_chapter(self.root, n, self.agents_factory(), lang=self.lang, emit=self._stage)
        except asyncio.CancelledError:
            self.rebuilding = None
            raise
        except Exception as exc:
            log_line(self.root, f"rebuild of chapter {n} failed:\n" + traceback.format_exc())
            self.rebuilding = None
            self.post_message(RebuildFinished(n, error=f"{exc}"))
            return
        log_line(
            self.root,
            f"rebuilt chapter {n}: state {result.base_state_version} -> {result.state_version}; "
            f"needs review: {sorted(result.impacted)}",
        )
        self.rebuilding = None
        self.post_message(RebuildFinished(n, result=result))

    def _stage(self, event: Event) -> None:
        """The rebuild's stage events, as `RebuildStage` messages (the header shows them)."""
        if isinstance(event, StageStarted | StageFinished):
            self.post_message(RebuildStage(event.chapter, event.stage, isinstance(event, StageStarted)))


__all__ = ["RebuildQueue"]
