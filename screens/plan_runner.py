"""The bridge between the planning flows (issue 7) and the studio, beside `screens.pipeline_runner`.

`PlanRunner(project_root, services, lang=...)` is an invisible widget of the main screen. `start_plan(volume,
note)` runs `services.plan_session` and `start_quick_start(request)` runs `services.quick_start`, each in an
async worker (`group="planning"`, one at a time) on the app's loop:

- every event the session emits is posted as `studio.tui.messages.PipelineEventPosted`, so the main screen shows
  stages, cost and the trial chapters streaming exactly as it shows a run; an event of a kind the main screen
  does not render (a planning step of its own) is shown as an info `Notice` of its `message` (or `step`) text,
  and logged;
- questions are answered by the author (`decide`, from the worker): `PLAN_APPROVAL` with
  `screens.plan_approval.PlanApprovalScreen` (the answer protocol of `pipeline.decisions.PlanAnswer`),
  `TRIAL_CONFIRM` with `screens.trial_confirm.answer_trial_confirm` (adjust asks what; start over asks once
  more), every other kind (the trial chapters' own run questions) by `ask_author`: the main screen
  passes its pipeline runner's `decide`, so a discard is confirmed and backed up exactly as in a run; by
  default a `DecisionDialog`. The last `TRIAL_CONFIRM` answer is kept, so the end
  message can say whether the author confirmed the trial chapters;
- the end is one `PlanEnded` message, posted once the worker has finished (so `running` is already False when
  the screen handles it): cancelled, a readable error (the traceback goes to the studio log only), or done.

`stop()` cancels the worker; the sessions leave their work resumable (a staged plan waits, a quick start
resumes from its journal).
"""

from __future__ import annotations

import asyncio
import functools
import traceback
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from textual import on, work
from textual.widget import Widget
from textual.worker import Worker, WorkerState

from pipeline.decisions import Question, QuestionKind
from studio.errors import StudioError
from studio.i18n import Catalog, Lang, tr
from studio.project import Project
from studio.studio_log import log_line
from studio.tui.host import StudioServices
from studio.tui.messages import PipelineEventPosted, PlanEnded, PlanJobKind

if TYPE_CHECKING:
    from pipeline.events import Event
    from studio.models.quick_start import QuickStartRequest  # annotations only: the model loads with its file

Job: TypeAlias = "Callable[[Callable[[Question], Awaitable[str]], Callable[[Event], None]], Awaitable[object]]"
"""A session bound to its arguments: `job(decide, emit)`."""

_FINISHED = (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED)


@functools.cache
def _rendered() -> tuple[type, ...]:
    """The events the main screen renders itself (the others are shown as a `Notice`). `pipeline.events` (and the
    provider types it names) loads with the first event of a run, not before the first paint."""
    from pipeline import events

    return (
        events.StageStarted, events.TextDelta, events.StageFinished, events.GateDecided, events.ChapterCommitted,
        events.ChecksRan, events.Paused, events.StageError, events.Notice, events.RetryWaiting,
    )


MESSAGES: Catalog = {
    "step": ("快速开始 {index}/{total}：{name}", "Quick start {index}/{total}: {name}"),
    "step_estimate": ("（预计 ${cost:.2f}）", " (about ${cost:.2f})"),
    "step_resumed": ("（接着上次）", " (resumed)"),
    "s_world": ("世界观", "world"),
    "s_characters": ("角色", "characters"),
    "s_storyline": ("主线", "main storyline"),
    "s_style": ("文风", "style"),
    "s_opening": ("开篇三章的大纲", "outline of the opening chapters"),
    "s_trial": ("试写三章", "the three trial chapters"),
    "s_extract": ("从试写章提炼文风", "style from the trial chapters"),
    "s_confirm": ("确认试写", "confirm the trial"),
}


def progress_text(event: object, lang: Lang = "zh") -> str | None:
    """The line to show for an event the main screen does not render, or None (logged only).

    A step of a flow (`step`, `status`, `index`, `total`, optional `estimate_usd`: the quick start's steps) is
    shown when it starts or resumes; any other event by its `message` (or `step`) text."""
    step, status = getattr(event, "step", None), getattr(event, "status", None)
    index, total = getattr(event, "index", None), getattr(event, "total", None)
    if isinstance(step, str) and isinstance(status, str) and isinstance(index, int) and isinstance(total, int):
        if status not in ("started", "resumed"):
            return None
        key = f"s_{step}"
        name = tr(MESSAGES, key, lang) if key in MESSAGES else step
        text = tr(MESSAGES, "step", lang, index=index, total=total, name=name)
        estimate = getattr(event, "estimate_usd", None)
        if status == "resumed":
            text += tr(MESSAGES, "step_resumed", lang)
        elif isinstance(estimate, int | float) and estimate > 0:
            text += tr(MESSAGES, "step_estimate", lang, cost=float(estimate))
        return text
    for name in ("message", "step"):
        value = getattr(event, name, None)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


class PlanRunner(Widget):
    """Runs a planning session or the quick start in a worker and reports back with messages."""

    DEFAULT_CSS = """
    PlanRunner {
        display: none;
    }
    """

    def __init__(
        self,
        project_root: Path,
        services: StudioServices,
        *,
        lang: Lang = "zh",
        ask_author: Callable[[Question], Awaitable[str]] | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.project_root = Path(project_root)
        self.services = services
        self.lang: Lang = lang
        self.ask_author = ask_author
        self._worker: Worker[None] | None = None
        self._kind: PlanJobKind = "plan"
        self._volume: int | None = None
        self._error: str | None = None
        self.trial_answer: str | None = None

    @property
    def running(self) -> bool:
        worker = self._worker
        return worker is not None and worker.state in (WorkerState.PENDING, WorkerState.RUNNING)

    # -- starting -------------------------------------------------------------------------------------------

    def start_plan(self, volume: int | None, note: str = "") -> None:
        session = self.services.plan_session
        root = self.project_root

        def job(decide: Callable[[Question], Awaitable[str]], emit: Callable[[Event], None]) -> Awaitable[object]:
            return session(root, volume=volume, note=note, decide=decide, emit=emit)

        self._start("plan", volume, job, f"plan started: volume={volume} note={'yes' if note else 'no'}")

    def start_quick_start(self, request: QuickStartRequest) -> None:
        quick_start = self.services.quick_start
        root = self.project_root

        def job(decide: Callable[[Question], Awaitable[str]], emit: Callable[[Event], None]) -> Awaitable[object]:
            return quick_start(root, request, decide=decide, emit=emit)

        self._start("quick_start", 1, job, f"quick start started: style={request.style_source}")

    def _start(self, kind: PlanJobKind, volume: int | None, job: Job, line: str) -> None:
        if self.running:
            raise RuntimeError("a planning session is already running")
        self._kind, self._volume, self._error = kind, volume, None
        self.trial_answer = None
        log_line(self.project_root, line)
        self._worker = self._run(job)

    def stop(self) -> None:
        if self._worker is not None:
            self._worker.cancel()

    # -- the worker -----------------------------------------------------------------------------------------

    def _names(self) -> tuple[dict[str, str], dict[str, str]]:
        """Character and storyline names (by id) for the approval screen's POV and storyline lines (empty when
        the project does not open)."""
        try:
            project = Project.open(self.project_root, lang=self.lang)
            characters = {slug: c.display_name for slug, c in project.characters.items() if c.display_name}
            return characters, project.storylines.names()
        except (OSError, StudioError):
            return {}, {}

    async def decide(self, question: Question) -> str:
        """Ask the author (from the worker, so the pump that delivers the keys stays free)."""
        # The approval and trial screens load when a plan asks, not before the studio's first paint.
        from screens.plan_approval import PlanApprovalScreen
        from screens.trial_confirm import answer_trial_confirm

        if question.kind is QuestionKind.PLAN_APPROVAL:
            characters, storylines = self._names()
            screen = PlanApprovalScreen(question, self.lang, names=characters, storylines=storylines,
                                        root=self.project_root)
            answer = await self.app.push_screen_wait(screen)
        elif question.kind is QuestionKind.TRIAL_CONFIRM:
            answer = await answer_trial_confirm(
                self.app, question, self.lang, root=self.project_root, names=self._names()[0], ask_author=self.ask_author
            )
        elif self.ask_author is not None:
            answer = await self.ask_author(question)
        else:
            from screens.decision_dialog import ask  # loads when first shown, not before the first paint

            answer = await ask(self.app, question, self.lang)
        if question.kind is QuestionKind.TRIAL_CONFIRM:
            self.trial_answer = answer
        log_line(self.project_root, f"asked {question.kind.value}: answered {answer.split(':', 1)[0]}")
        return answer

    def _emit(self, event: Event) -> None:
        if isinstance(event, _rendered()):
            self.post_message(PipelineEventPosted(event))
            return
        text = progress_text(event, self.lang)
        log_line(self.project_root, f"{self._kind} progress: {type(event).__name__}: {text or ''}")
        if text is not None:
            from pipeline.events import Notice

            self.post_message(PipelineEventPosted(Notice(None, text, "info")))

    @work(exclusive=True, group="planning", exit_on_error=False)
    async def _run(self, job: Job) -> None:
        try:
            outcome = await job(self.decide, self._emit)
        except asyncio.CancelledError:
            log_line(self.project_root, f"{self._kind} stopped by the author")
            raise
        except Exception as exc:  # shown as a readable line; the traceback goes to the log only
            log_line(self.project_root, f"{self._kind} failed:\n" + traceback.format_exc())
            self._error = str(exc) if isinstance(exc, StudioError) else f"{type(exc).__name__}: {exc}"
            return
        log_line(self.project_root, f"{self._kind} ended: {type(outcome).__name__}")

    @on(Worker.StateChanged)
    def _state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker is not self._worker or event.state not in _FINISHED:
            return
        event.stop()
        confirmed = self._kind == "quick_start" and self.trial_answer == "confirm" and self._error is None
        self.post_message(
            PlanEnded(
                self._kind,
                volume=self._volume,
                confirmed=confirmed and event.state is WorkerState.SUCCESS,
                cancelled=event.state is WorkerState.CANCELLED,
                error=self._error if event.state is not WorkerState.CANCELLED else None,
            )
        )


__all__ = ["MESSAGES", "Job", "PlanRunner", "progress_text"]
