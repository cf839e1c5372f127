"""Every message the studio's parts send each other, in one place (small dataclasses, handled with `@on`).

Rules: background parts (the pipeline runner, the file watcher, the rebuild queue) only post these; the screen
that receives one decides what changes on screen. A message carries data, never a widget or a screen.

- pipeline runner: `PipelineEventPosted` (one `pipeline.events.Event`), `StageRetrying`, `RunEnded`;
- file watcher: `ProjectChanged` (a debounced batch of `studio.watch.ProjectChange`), `WatchFailed`;
- rebuild queue: `RebuildStarted`, `RebuildFinished` (result or readable error);
- flows (review, `e`, the watcher's chapter changes): `ChapterEdited` (a committed chapter changed outside the
  pipeline; the screen routes every source to one place).
- planning (issue 7): `PlanRequested` (volume end, the review, or `c` on an unplanned project asks the screen to
  run the one planning session for a volume); `QuickStartRequested` (the welcome screen's new-novel path: run
  the quick start on the new project); `PlanEnded` (the plan runner: a session or quick start is over).
- import (issue 10): `ImportProgress` and `ImportSplit` (the import screens' thread workers: a step started, the
  manuscript split with its preview); `ExtractionRequested` (the welcome screen's import path, or the key:
  offer the full extraction on the main screen).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from textual.message import Message

if TYPE_CHECKING:
    from pipeline.events import Event
    from pipeline.orchestrator import RunResult
    from pipeline.rebuild import RebuildResult
    from studio.models.manuscript import Manuscript
    from studio.models.quick_start import QuickStartRequest
    from studio.watch import ProjectChange

EditSource = Literal["watcher", "editor", "review"]


@dataclass
class PipelineEventPosted(Message):
    """One event of the running pipeline."""

    event: Event


@dataclass
class StageRetrying(Message):
    """A stage failed and is being retried; posted in order with the events, after the failed attempt's."""

    stage: str
    attempt: int
    error: str


@dataclass
class RunEnded(Message):
    """The run is over: `result` (finished or paused), `cancelled` (stopped by the author) or `error`."""

    result: RunResult | None
    cancelled: bool = False
    error: str | None = None


@dataclass
class ProjectChanged(Message):
    """A debounced batch of the author's changes to the project's files."""

    changes: list[ProjectChange]


@dataclass
class WatchFailed(Message):
    """The file watcher stopped with an error (readable text; the traceback is in the log)."""

    message: str


@dataclass
class RebuildStarted(Message):
    """The rebuild queue started rebuilding chapter `chapter`."""

    chapter: int


@dataclass
class RebuildStage(Message):
    """A stage of the running rebuild of `chapter` started (`running`) or finished."""

    chapter: int
    stage: str
    running: bool


@dataclass
class RebuildFinished(Message):
    """A rebuild finished (`result`) or failed (`error`)."""

    chapter: int
    result: RebuildResult | None = None
    error: str | None = None


@dataclass
class ChapterEdited(Message):
    """The text of committed chapter `chapter` changed outside the pipeline (`source`: review, editor, watcher)."""

    chapter: int
    source: EditSource = "watcher"


__all__ = [
    "ChapterEdited",
    "EditSource",
    "PlanEnded",
    "PlanJobKind",
    "PlanRequested",
    "QuickStartRequested",
    "PipelineEventPosted",
    "ProjectChanged",
    "RebuildFinished",
    "RebuildStage",
    "RebuildStarted",
    "RunEnded",
    "StageRetrying",
    "WatchFailed",
]


@dataclass
class PlanRequested(Message):
    """Plan a volume (None: the next unplanned one, or the rest of the current one); the screen runs the session."""

    volume: int | None = None
    note: str = ""


@dataclass
class QuickStartRequested(Message):
    """Run the quick start on the project the screen shows, with the author's choices."""

    request: QuickStartRequest


PlanJobKind = Literal["plan", "quick_start"]


@dataclass
class PlanEnded(Message):
    """A planning session or quick start is over (posted once its worker has finished).

    `confirmed`: the author confirmed the trial chapters (quick start; then volume 1 is planned next);
    `cancelled`: stopped by the author; `error`: a readable failure (details in the studio log)."""

    kind: PlanJobKind
    volume: int | None = None
    confirmed: bool = False
    cancelled: bool = False
    error: str | None = None


# -- the import path (issue 10): screens.import_preview, screens.import_progress, the main screen ----------------


@dataclass
class ImportProgress(Message):
    """A step of the import's background work started (`step`: reading, splitting, writing, names, ...)."""

    step: str
    detail: str = ""


@dataclass
class ImportSplit(Message):
    """The manuscript was read and split (`manuscript`: a `studio.models.manuscript.Manuscript`) and its preview
    lines rendered; `error` instead when it could not be (a readable line)."""

    manuscript: Manuscript | None
    lines: list[str]
    error: str | None = None


@dataclass
class ExtractionRequested(Message):
    """Offer the model's full extraction of the imported book (the estimate first): after an import, or the key."""


__all__ += ["ExtractionRequested", "ImportProgress", "ImportSplit"]
