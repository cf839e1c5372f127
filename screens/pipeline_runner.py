"""The bridge between the orchestrator and the studio.

`PipelineRunner` is an invisible widget mounted in the main screen. `start(RunRequest)` runs the `Orchestrator`
in an async Textual worker (`@work(exclusive=True, group="pipeline")`) on the app's own loop:

- every pipeline event (`pipeline.events`) is posted as a `studio.tui.messages.PipelineEventPosted` message,
  which bubbles to the screen that renders it; a retried stage posts `StageRetrying`;
- the orchestrator's decider is built per run (`RunDecider`): a question the author answered ahead of time
  (`RunRequest.preanswered`, e.g. "resume" at start-up) is answered once from that data, every other question
  awaits a `DecisionDialog` through `screens.decision_dialog.ask` (from the worker, so the message pump that
  delivers the keys stays free). Nothing of one run's answers outlives it;
- the end of a run is a `RunEnded` message (result, cancelled, or a readable error); details of an unexpected
  failure go to `.novel-studio/logs/studio.log`, never to the screen as a traceback.

`stop()` cancels the worker: the orchestrator leaves the chapter resumable (checkpoint + staging). When the
studio quits on a signal (its return code set, not 0) the stopped run arms the exit watchdog (`studio.exit_watchdog.bound_the_exit`):
a thread that never ends cannot keep the process alive past the grace once the run's work is saved.
"""

from __future__ import annotations

import asyncio
import traceback
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from textual import work
from textual.widget import Widget
from textual.worker import Worker, WorkerState

from pipeline.decisions import Question, QuestionKind
from studio.exit_watchdog import bound_the_exit
from studio.i18n import Lang
from studio.i18n_names import describe_error
from studio.models.settings import Settings
from studio.paths import ProjectPaths
from studio.studio_log import log_line
from studio.tui.discard import backed_up_message, backup_staged, confirm_discard_dialog
from studio.tui.host import RunRequest
from studio.tui.messages import PipelineEventPosted, RunEnded, StageRetrying

if TYPE_CHECKING:
    # The orchestrator (and through it the agents) is imported when a run starts, not at the studio's start.
    from pipeline.agents.protocol import Agents
    from pipeline.agents.runner import RetryHook
    from pipeline.events import Event
    from pipeline.providers.base import ProviderError

AgentsFactory = Callable[["RetryHook"], "Agents"]
"""Builds the `Agents` for one run (a fresh project view each time), reporting retries to the hook."""

Ask = Callable[[Question], Awaitable[str]]


class RunDecider:
    """The decider of one run: pre-answered kinds are answered once from data, the rest go to `ask`."""

    def __init__(self, preanswered: dict[QuestionKind, str], ask_author: Ask) -> None:
        self.pending = dict(preanswered)
        self.ask_author = ask_author

    async def __call__(self, question: Question) -> str:
        answer = self.pending.pop(question.kind, None)
        if answer is not None:
            return answer
        return await self.ask_author(question)


class PipelineRunner(Widget):
    """Runs the orchestrator in a worker and reports back with messages."""

    DEFAULT_CSS = """
    PipelineRunner {
        display: none;
    }
    """

    def retrying(self, stage: str, attempt: int, error: ProviderError) -> None:
        self.post_message(StageRetrying(stage, attempt, str(error)))

    def __init__(
        self,
        project_root: Path,
        agents_factory: AgentsFactory,
        *,
        lang: Lang = "zh",
        offline: bool = False,
        settings: Settings | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.project_root = Path(project_root)
        self.agents_factory = agents_factory
        self.lang: Lang = lang
        self.offline = offline
        self.settings = settings
        self._worker: Worker[object] | None = None

    @property
    def running(self) -> bool:
        worker = self._worker
        return worker is not None and worker.state in (WorkerState.PENDING, WorkerState.RUNNING)

    def start(self, request: RunRequest) -> None:
        self._worker = self._run(request)

    def stop(self) -> None:
        if self._worker is not None:
            self._worker.cancel()

    async def decide(self, question: Question) -> str:
        """Ask the author. Discarding an interrupted chapter's staged work is asked once more (default keep)
        and backed up first (`studio.tui.discard`); "keep" asks the question again."""
        from screens.decision_dialog import (
            ask,  # the dialog loads when first shown, not before the first paint
        )

        while True:
            answer = await ask(self.app, question, self.lang)
            n = question.chapter
            if question.kind is not QuestionKind.INTERRUPTED or answer != "discard" or n is None:
                return answer
            if await self.app.push_screen_wait(confirm_discard_dialog(n, self.lang)):
                backup = backup_staged(ProjectPaths(self.project_root), n)
                log_line(self.project_root, f"discard of chapter {n} confirmed; backup: {backup}")
                if backup is not None:
                    self.notify(backed_up_message(n, backup, self.lang), timeout=15, markup=False)
                return answer

    def _emit(self, event: Event) -> None:
        self.post_message(PipelineEventPosted(event))

    @work(exclusive=True, group="pipeline", exit_on_error=False)
    async def _run(self, request: RunRequest) -> None:
        chapters, note = request.chapters, request.note
        answered = ",".join(f"{k.value}={v}" for k, v in request.preanswered.items()) or "none"
        log_line(
            self.project_root,
            f"run started: chapters={chapters} note={'yes' if note else 'no'} preanswered={answered}",
        )
        try:
            # Looked up in pipeline.orchestrator at each run: the one seam tests patch.
            from pipeline.orchestrator import Orchestrator

            orchestrator = Orchestrator(
                self.project_root,
                self.agents_factory(self.retrying),
                decider=RunDecider(dict(request.preanswered), self.decide),
                emit=self._emit,
                settings=self.settings,
                lang=self.lang,
                offline=self.offline,
            )
            result = await orchestrator.run(chapters, note=note)
        except asyncio.CancelledError:
            log_line(self.project_root, "run stopped by the author")
            self.post_message(RunEnded(None, cancelled=True))
            code = self.app.return_code
            # Stopped because the studio quits on a signal: a bounded exit. Never in a headless app (a test: the
            # watchdog would end the test process).
            if code and not self.app.is_headless:
                bound_the_exit(self.project_root, code)
            raise
        except Exception as exc:  # shown as a readable line; the traceback goes to the log only
            log_line(self.project_root, "run failed:\n" + traceback.format_exc())
            # A StudioError already says what is wrong and the way out (e.g. the cold-start refusal).
            error = describe_error(exc, self.lang)  # a held lock, a model error: in the author's language
            self.post_message(RunEnded(None, error=error))
            return
        log_line(
            self.project_root,
            f"run ended: committed={result.committed} paused={result.paused} error={result.error}",
        )
        self.post_message(RunEnded(result))
