"""The bridge between the orchestrator and the studio.

`PipelineRunner` is an invisible widget mounted in the main screen. `start(chapters, note)` runs the
`Orchestrator` in an async Textual worker (`@work(exclusive=True, group="pipeline")`) on the app's own loop:

- every pipeline event (`pipeline.events`) is posted as a `PipelineRunner.PipelineEvent` message, which bubbles
  to the screen that renders it;
- the orchestrator's decider awaits a `DecisionDialog` through `screens.decision_dialog.ask` (from the worker,
  so the message pump that delivers the keys stays free);
- the end of a run is a `PipelineRunner.RunEnded` message (result, cancelled, or a readable error); details of
  an unexpected failure go to `.novel-studio/logs/studio.log`, never to the screen as a traceback.

`stop()` cancels the worker: the orchestrator leaves the chapter resumable (checkpoint + staging).
"""

from __future__ import annotations

import asyncio
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from textual import work
from textual.message import Message
from textual.widget import Widget
from textual.worker import Worker, WorkerState

from pipeline.decisions import Question
from pipeline.events import Event
from pipeline.orchestrator import Orchestrator, RunResult
from screens.decision_dialog import ask
from studio.fileio import append_line
from studio.i18n import Lang

LOG_FILE = Path(".novel-studio") / "logs" / "studio.log"

AgentsFactory = Callable[[], Any]
"""Builds the `Agents` for one run (a fresh project view each time)."""


def log_line(root: Path, message: str) -> None:
    """Append a timestamped line (or block) to the project's studio log; never raises."""
    try:
        stamp = datetime.now().isoformat(timespec="seconds")
        append_line(Path(root) / LOG_FILE, f"{stamp} {message}")
    except OSError:
        pass


class PipelineRunner(Widget):
    """Runs the orchestrator in a worker and reports back with messages."""

    DEFAULT_CSS = """
    PipelineRunner {
        display: none;
    }
    """

    @dataclass
    class PipelineEvent(Message):
        """One event of the running pipeline."""

        event: Event

    @dataclass
    class RunEnded(Message):
        """The run is over: `result` (finished or paused), `cancelled` (stopped by the author) or `error`."""

        result: RunResult | None
        cancelled: bool = False
        error: str | None = None

    @dataclass
    class StageRetrying(Message):
        """A stage failed and is being retried; posted in order with the events, after the failed attempt's."""

        stage: str
        attempt: int
        error: str

    def retrying(self, stage: str, attempt: int, error: Exception) -> None:
        self.post_message(self.StageRetrying(stage, attempt, str(error)))

    def __init__(
        self,
        project_root: Path,
        agents_factory: AgentsFactory,
        *,
        lang: Lang = "zh",
        offline: bool = False,
        settings: Any = None,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.project_root = Path(project_root)
        self.agents_factory = agents_factory
        self.lang: Lang = lang
        self.offline = offline
        self.settings = settings
        self._worker: Worker[Any] | None = None

    @property
    def running(self) -> bool:
        worker = self._worker
        return worker is not None and worker.state in (WorkerState.PENDING, WorkerState.RUNNING)

    def start(self, chapters: int = 1, note: str | None = None) -> Worker[Any]:
        self._worker = self._run(chapters, note)
        return self._worker

    def stop(self) -> None:
        if self._worker is not None:
            self._worker.cancel()

    async def decide(self, question: Question) -> str:
        return await ask(self.app, question, self.lang)

    def _emit(self, event: Event) -> None:
        self.post_message(self.PipelineEvent(event))

    @work(exclusive=True, group="pipeline", exit_on_error=False)
    async def _run(self, chapters: int, note: str | None) -> None:
        log_line(self.project_root, f"run started: chapters={chapters} note={'yes' if note else 'no'}")
        try:
            orchestrator = Orchestrator(
                self.project_root,
                self.agents_factory(),
                decider=self.decide,
                emit=self._emit,
                settings=self.settings,
                lang=self.lang,
                offline=self.offline,
            )
            result = await orchestrator.run(chapters, note=note)
        except asyncio.CancelledError:
            log_line(self.project_root, "run stopped by the author")
            self.post_message(self.RunEnded(None, cancelled=True))
            raise
        except Exception as exc:  # shown as a readable line; the traceback goes to the log only
            log_line(self.project_root, "run failed:\n" + traceback.format_exc())
            self.post_message(self.RunEnded(None, error=f"{type(exc).__name__}: {exc}"))
            return
        log_line(
            self.project_root,
            f"run ended: committed={result.committed} paused={result.paused} error={result.error}",
        )
        self.post_message(self.RunEnded(result))
