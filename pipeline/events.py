"""Typed events the orchestrator reports. The TUI renders them, the CLI prints them; neither is imported here."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # an annotation only: the studio's first paint imports the events, not the provider package
    from pipeline.providers.base import Usage


@dataclass(frozen=True)
class StageStarted:
    chapter: int
    stage: str  # draft | summarize | refine | judge | polish | revise | rewrite | commit
    model: str
    attempt: int = 1


@dataclass(frozen=True)
class TextDelta:
    chapter: int
    stage: str
    text: str


@dataclass(frozen=True)
class StageFinished:
    chapter: int
    stage: str
    model: str
    duration_ms: int
    usage: Usage | None = None
    cost_usd: float | None = None


@dataclass(frozen=True)
class GateDecided:
    chapter: int
    action: str
    overall: float
    reason: str
    revision_count: int


@dataclass(frozen=True)
class ChapterCommitted:
    chapter: int
    word_count: int
    overall: float | None
    scores_path: list[float] = field(default_factory=list)  # overall after each judgement, e.g. [3.2, 3.6]
    revisions: int = 0
    force_passed: bool = False
    cost_usd: float | None = None
    actions: list[str] = field(default_factory=list)  # the gate's action after each judgement, e.g. ["revise", "pass"]


@dataclass(frozen=True)
class ChecksRan:
    """The checks after a commit ran on `chapter` (`logs/chapter-NNN/checks.json`): `findings` left after the
    author's waivers, `high` of them high-severity. Not sent when the checks could not run."""

    chapter: int
    findings: int
    high: int = 0


@dataclass(frozen=True)
class Paused:
    chapter: int | None
    kind: str
    message: str


@dataclass(frozen=True)
class StageError:
    chapter: int | None
    stage: str
    kind: str
    message: str
    retrying: bool = False


@dataclass(frozen=True)
class RetryWaiting:
    """A model call failed in a way worth retrying; the stage waits `wait_s` seconds before attempt
    `attempt + 1` (e.g. 66 s when a 429 says so). Told before the wait, so the author is never left
    looking at a silent terminal."""

    chapter: int | None
    stage: str
    attempt: int
    wait_s: float
    kind: str
    message: str


@dataclass(frozen=True)
class Notice:
    """Something the author should see that does not stop the run (dropped ops, offline output ...)."""

    chapter: int | None
    message: str
    level: str = "warning"


@dataclass(frozen=True)
class QuickStartStep:
    """A step of the quick start (`pipeline.planning.quick_start`): `status` is started (with the estimate of its
    model calls, 0 offline or without a call), done, skipped (not needed for this style source) or resumed
    (finished from what a killed run had staged, no model call)."""

    step: str  # world | characters | storyline | style | opening | trial | extract | confirm
    status: str  # started | done | skipped | resumed
    index: int  # 1-based position among `total` steps
    total: int
    estimate_usd: float | None = None
    detail: str = ""


Event = (
    StageStarted | TextDelta | StageFinished | GateDecided | ChapterCommitted | ChecksRan | Paused | StageError | Notice
    | RetryWaiting | QuickStartStep
)

_EVENT_NAMES: dict[type, str] = {
    StageStarted: "stage_started",
    TextDelta: "text_delta",
    StageFinished: "stage_finished",
    GateDecided: "gate_decided",
    ChapterCommitted: "chapter_committed",
    ChecksRan: "checks_ran",
    Paused: "paused",
    StageError: "stage_error",
    Notice: "notice",
    RetryWaiting: "retry_waiting",
    QuickStartStep: "quick_start_step",
}


def event_data(event: Event) -> dict[str, Any]:
    """A JSON-ready dict of an event: `{"event": "stage_error", ...its fields}` (for `--json` output)."""
    return {"event": _EVENT_NAMES[type(event)], **asdict(event)}
