"""The import's long steps on screen (issue 10 items 1 and 3): writing the project, and the model's full
extraction, each in a worker with its progress shown and its end kept on screen.

- `ImportWorkScreen(title, job, lang)` is a `Screen[T | None]`: `job(step)` runs in a thread worker (writing the
  project: thousands of files must not hold the keys up) and may call `step(text)` to show what it is doing
  (`ImportProgress`). Its value dismisses the screen; a readable failure (`StudioError`, `OSError`: a refusal,
  a folder that cannot be written) stays on the screen until the author presses enter or escape, then
  dismisses with None. Never a traceback (an unexpected error shows its type and message; the traceback goes
  to Textual's log).
- `ExtractionScreen(root, services, estimate, lang)` is a `Screen[ExtractionResult | None]`: it runs
  `pipeline.importing.extract.run_extraction` (chapters `estimate.first..estimate.last`, `confirmed`: the
  author accepted the estimate already) on the project in an async worker, under the project lock (as
  `novel-studio extract` holds it), with the studio's settings and provider. Each event with a chapter moves
  the per-chapter progress bar and the line under it (chapter, stage, cost so far). Escape asks, then stops:
  the worker is cancelled, what was extracted stays extracted (the extraction commits chapter by chapter),
  and the screen says how far it got. When the run is over (done, stopped, failed: each said on the screen,
  where it stays) enter or escape dismisses with the result (a stop by the author: status "stopped").
  Questions the extraction asks (`decide`) are a `DecisionDialog`.
"""

from __future__ import annotations

import asyncio
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Generic, TypeVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Label, ProgressBar, Static
from textual.worker import Worker, WorkerState

from pipeline.decisions import Question
from screens.decision_dialog import ask
from screens.prompt_dialogs import ConfirmDialog, FoldedText
from studio.errors import StudioError
from studio.i18n import Catalog, Lang, tr
from studio.i18n_names import stage_name
from studio.lock import ProjectLock
from studio.models.settings import Settings
from studio.paths import ProjectPaths
from studio.studio_log import log_line
from studio.tui.host import StudioServices
from studio.tui.import_flow import extraction_status
from studio.tui.messages import ImportProgress, PipelineEventPosted

if TYPE_CHECKING:
    # The extraction (the pipeline's agents and context) is imported when it runs, not at the studio's start.
    from pipeline.events import Event
    from pipeline.importing.extract import ExtractionEstimate, ExtractionResult

__all__ = ["MESSAGES", "ExtractionScreen", "ImportWorkScreen", "Job"]

T = TypeVar("T")
Job = Callable[[Callable[[str], None]], T]

MESSAGES: Catalog = {
    "failed": ("失败：{message}", "Failed: {message}"),
    "back": ("Enter / Esc 返回", "Enter / Esc back"),
    "working": ("请稍候……", "Please wait..."),
    "x_title": ("全量提取：{name}", "Full extraction: {name}"),
    "x_starting": ("正在准备……", "Getting ready..."),
    "x_chapter": ("第{n}章（{done}/{total}）{stage}", "Chapter {n} ({done}/{total}) {stage}"),
    "x_cost": ("本次花费 ${cost:.4f}", "Spent this run ${cost:.4f}"),
    "x_keys_running": ("Esc 停止（已提取的章节保留，之后可以继续）", "Esc stop (chapters done are kept; go on later)"),
    "x_keys_over": ("Enter / Esc 返回主界面", "Enter / Esc back to the studio"),
    "x_confirm_stop": ("停止全量提取？已提取的章节保留，之后按 x 可以接着提取。",
                       "Stop the extraction? Chapters done are kept; press x later to go on."),
    "x_done": ("完成：已提取到第{n}章（共 {total} 章）", "Done: extracted through chapter {n} ({total} chapters)"),
    "x_stopped": ("已停止：已提取到第{n}章，进度保留", "Stopped: extracted through chapter {n}; progress kept"),
    "x_failed": ("出错：{message}（已提取到第{n}章，进度保留；详情见 .novel-studio/logs/studio.log）",
                 "Failed: {message} (extracted through chapter {n}; progress kept; details in "
                 ".novel-studio/logs/studio.log)"),
}

_BOX_CSS = """
{name} {{
    align: center middle;
}}
{name} > #work-box {{
    width: 90;
    max-width: 100%;
    height: auto;
    max-height: 100%;
    border: thick $primary;
    padding: 0 1;
}}
{name} #work-title {{
    text-style: bold;
    margin-bottom: 1;
}}
{name} #work-status {{
    height: auto;
}}
{name} #work-log {{
    height: auto;
    max-height: 8;
    color: $text-muted;
}}
{name} #work-error {{
    color: $text-error;
    text-style: bold;
    height: auto;
}}
{name} #work-keys {{
    color: $text-muted;
    margin-top: 1;
}}
{name} ProgressBar {{
    margin: 1 0;
}}
"""


class ImportWorkScreen(Screen[T | None], Generic[T]):
    """Run one blocking step of the import in a thread, with its progress; keep a failure on screen."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,enter", "back", show=False)]

    DEFAULT_CSS = _BOX_CSS.format(name="ImportWorkScreen")

    def __init__(self, title: str, job: Job[T], lang: Lang = "zh") -> None:
        super().__init__()
        self.title_text = title
        self.job = job
        self.lang: Lang = lang
        self.error: str | None = None
        self._worker: Worker[T] | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="work-box"):
            yield Label(self.title_text, id="work-title", markup=False)
            yield Static(tr(MESSAGES, "working", self.lang), id="work-status", markup=False)
            yield FoldedText("", id="work-error")
            yield Label("", id="work-keys", markup=False)

    def on_mount(self) -> None:
        self._worker = self.run_worker(self._run, thread=True, exclusive=True, group="import-work",
                                       exit_on_error=False)

    def _run(self) -> T:
        def step(text: str) -> None:
            self.post_message(ImportProgress("step", text))

        return self.job(step)

    @on(ImportProgress)
    def _progress(self, message: ImportProgress) -> None:
        message.stop()
        self.query_one("#work-status", Static).update(message.detail)

    @on(Worker.StateChanged)
    def _state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker is not self._worker:
            return
        event.stop()
        if event.state is WorkerState.SUCCESS:
            self.dismiss(event.worker.result)
        elif event.state is WorkerState.ERROR:
            exc = event.worker.error
            if isinstance(exc, StudioError | OSError):
                message = str(exc)
            else:
                if exc is not None:
                    self.log.error("".join(traceback.format_exception(exc)))
                message = f"{type(exc).__name__}: {exc}"
            self.show_error(tr(MESSAGES, "failed", self.lang, message=message))

    def show_error(self, text: str) -> None:
        self.error = text
        self.query_one("#work-error", FoldedText).update(text)
        self.query_one("#work-keys", Label).update(tr(MESSAGES, "back", self.lang))

    def action_back(self) -> None:
        if self.error is not None:
            self.dismiss(None)


class ExtractionScreen(Screen["ExtractionResult | None"]):
    """The full extraction in a worker: per-chapter progress, stop keeps what was done."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "stop_or_back", show=False),
        Binding("enter", "back", show=False),
    ]

    DEFAULT_CSS = _BOX_CSS.format(name="ExtractionScreen")

    def __init__(self, root: Path, services: StudioServices, estimate: ExtractionEstimate, lang: Lang = "zh") -> None:
        super().__init__()
        self.root = Path(root)
        self.services = services
        self.estimate = estimate
        self.lang: Lang = lang
        self.result: ExtractionResult | None = None
        self.error: str | None = None
        self.first, self.total = estimate.first, estimate.chapters
        self.current: int | None = None
        self.cost = 0.0
        self.lines: list[str] = []
        self._worker: Worker[ExtractionResult] | None = None
        self._asking_stop = False

    def compose(self) -> ComposeResult:
        lang = self.lang
        with Vertical(id="work-box"):
            yield Label(tr(MESSAGES, "x_title", lang, name=self.root.name), id="work-title", markup=False)
            yield ProgressBar(total=max(1, self.total), show_eta=False, id="work-bar")
            yield Static(tr(MESSAGES, "x_starting", lang), id="work-status", markup=False)
            yield Static("", id="work-log", markup=False)
            yield FoldedText("", id="work-error")
            yield Label(tr(MESSAGES, "x_keys_running", lang), id="work-keys", markup=False)

    def on_mount(self) -> None:
        self._worker = self._run()

    @property
    def running(self) -> bool:
        worker = self._worker
        return worker is not None and worker.state in (WorkerState.PENDING, WorkerState.RUNNING)

    @property
    def settings(self) -> Settings:
        return self.services.settings or Settings()

    # -- the worker ---------------------------------------------------------------------------------------------

    async def decide(self, question: Question) -> str:
        return await ask(self.app, question, self.lang)

    def _emit(self, event: Event) -> None:
        self.post_message(PipelineEventPosted(event))

    @work(exclusive=True, group="import-extraction", exit_on_error=False)
    async def _run(self) -> ExtractionResult:
        from pipeline.importing.extract import run_extraction

        estimate = self.estimate
        lock = ProjectLock(ProjectPaths(self.root))
        await asyncio.to_thread(lock.acquire)
        log_line(self.root, f"import extraction started: chapters {estimate.first}-{estimate.last}")
        try:
            return await run_extraction(
                self.root, self.settings, self.services.provider, self.decide, self._emit, last=estimate.last,
                offline=self.services.offline, lang=self.lang, confirmed=True,
            )
        finally:
            lock.release()  # at once, also when cancelled (a stop, the studio quitting): a directory removed

    @on(PipelineEventPosted)
    def _event(self, message: PipelineEventPosted) -> None:
        message.stop()
        event = message.event
        chapter = getattr(event, "chapter", None)
        cost = getattr(event, "cost_usd", None)
        if isinstance(cost, int | float):
            self.cost += float(cost)
        text = getattr(event, "message", None)
        if isinstance(text, str) and text.strip():
            self.lines = (self.lines + [text.strip()])[-6:]
            self.query_one("#work-log", Static).update("\n".join(self.lines))
        if isinstance(chapter, int) and chapter >= self.first:
            self.current = chapter
            stage = getattr(event, "stage", "")
            self._show(chapter, stage_name(stage, self.lang) if isinstance(stage, str) and stage else "")

    def _show(self, chapter: int, stage: str) -> None:
        done = max(0, chapter - self.first)  # the chapters before the one being read are committed
        status = extraction_status(self.root)
        if status is not None:
            done = max(done, status.extracted_through - self.first + 1)
        total = max(self.total, 1)
        self.query_one(ProgressBar).update(total=total, progress=min(done, total))
        line = tr(MESSAGES, "x_chapter", self.lang, n=chapter, done=min(done, total), total=total, stage=stage)
        if not self.services.offline:
            line += " · " + tr(MESSAGES, "x_cost", self.lang, cost=self.cost)
        self.query_one("#work-status", Static).update(line.rstrip())

    @on(Worker.StateChanged)
    def _state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker is not self._worker or event.state not in (
            WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED
        ):
            return
        event.stop()
        from pipeline.importing.extract import ExtractionResult

        status = extraction_status(self.root)
        through = status.extracted_through if status is not None else 0
        if event.state is WorkerState.SUCCESS and event.worker.result is not None:
            result = event.worker.result
            through = max(through, result.extracted_through)
        elif event.state is WorkerState.CANCELLED:
            log_line(self.root, f"import extraction stopped by the author at chapter {through}")
            result = ExtractionResult("stopped", through, self.cost, message="stopped by the author")
        else:
            exc = event.worker.error
            message = str(exc) if isinstance(exc, StudioError | OSError) else f"{type(exc).__name__}: {exc}"
            if exc is not None and not isinstance(exc, StudioError):
                log_line(self.root, "import extraction failed:\n" + "".join(traceback.format_exception(exc)))
            result = ExtractionResult("failed", through, self.cost, message=message)
        self.finish(result, through)

    def finish(self, result: ExtractionResult, through: int) -> None:
        """The run is over: say how, where it stays, and wait for the author."""
        self.result = result
        total = max(self.total, 1)
        bar = self.query_one(ProgressBar)
        bar.update(total=total, progress=min(total, max(0, through - self.first + 1)))
        if result.status == "done":
            text = tr(MESSAGES, "x_done", self.lang, n=through, total=self.total)
            self.query_one("#work-status", Static).update(text)
        else:
            key = "x_stopped" if result.status == "stopped" else "x_failed"
            text = tr(MESSAGES, key, self.lang, n=through, message=result.message or result.status)
            self.error = text
            self.query_one("#work-error", FoldedText).update(text)
        self.query_one("#work-keys", Label).update(tr(MESSAGES, "x_keys_over", self.lang))

    # -- keys ---------------------------------------------------------------------------------------------------

    def action_stop_or_back(self) -> None:
        if not self.running:
            self.action_back()
            return
        if self._asking_stop:
            return
        self._asking_stop = True

        def answered(yes: bool | None) -> None:
            self._asking_stop = False
            if yes and self._worker is not None and self.running:
                self._worker.cancel()

        self.app.push_screen(ConfirmDialog(tr(MESSAGES, "x_confirm_stop", self.lang), self.lang), answered)

    def action_back(self) -> None:
        if self.result is not None:
            self.dismiss(self.result)
