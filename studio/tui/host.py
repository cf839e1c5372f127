"""The two seams of the studio layer, as `typing.Protocol`s.

- `StudioServices`: what the App hands down to the screens it pushes (settings, provider name, agents, the
  offline switch). Screens and flows use this, never `self.app` as the concrete App, so nothing below the App
  imports it.
- `PlanSession` / `QuickStart`: the two planning flows of issue 7 as the studio calls them (the App binds the
  pipeline's `run_plan_session` / `run_quick_start` to its settings and provider; tests pass fakes). Each asks
  its questions through `decide` and reports through `emit`, exactly as the CLI's commands do.
- `StudioHost`: what a flow (review, undo, edit, start-up checks, rebuild offers) needs from the screen it serves:
  notify, ask, push a modal and await its answer, reload, show a chapter, start a run. The main screen is one;
  tests can pass a small fake.

Pre-answered questions travel with a run as data (`RunRequest.preanswered`), never as a patch on the runner.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

if TYPE_CHECKING:
    from pathlib import Path

    from textual.screen import Screen

    from pipeline.agents.protocol import Agents
    from pipeline.agents.runner import RetryHook
    from pipeline.decisions import Decider, Question, QuestionKind
    from pipeline.events import Event
    from pipeline.providers.base import Provider
    from studio.i18n import Lang
    from studio.models.quick_start import QuickStartRequest
    from studio.models.settings import Settings
    from studio.project import Project
    from studio.tui.messages import EditSource

T = TypeVar("T")
Severity = Literal["information", "warning", "error"]


@dataclass(frozen=True)
class RunRequest:
    """One run of the pipeline: how many chapters, the author's note, and questions already answered.

    `preanswered` maps a question kind to the answer the author gave ahead of time (the start-up recovery
    dialog's "resume"); each is used at most once, and only by this run."""

    chapters: int = 1
    note: str | None = None
    preanswered: Mapping[QuestionKind, str] = field(default_factory=dict)


EventSink = Callable[["Event"], None]


class PlanSession(Protocol):
    """Plan `volume` (None: the next unplanned one, or the rest of the current one), stage it, ask
    `PLAN_APPROVAL` through `decide` until approved or cancelled, apply on approval. The result is the
    session's outcome (shown in the log only); a readable failure is a `StudioError`."""

    def __call__(
        self, root: Path, *, volume: int | None, note: str, decide: Decider, emit: EventSink
    ) -> Awaitable[object]: ...


class QuickStart(Protocol):
    """The quick start of a new project from `request` (world, characters, main-arc, style, trial chapters 1-3),
    asking `TRIAL_CONFIRM` through `decide`."""

    def __call__(
        self, root: Path, request: QuickStartRequest, *, decide: Decider, emit: EventSink
    ) -> Awaitable[object]: ...


class StudioServices(Protocol):
    """What the App provides to screens and flows."""

    @property
    def settings(self) -> Settings | None: ...

    @property
    def offline(self) -> bool: ...

    @property
    def provider_name(self) -> str: ...

    @property
    def provider(self) -> Provider:
        """The studio's one provider (the planning and review calls that are not agents of a run use it)."""
        ...

    @property
    def clock(self) -> Callable[[], float]: ...

    def make_agents(self, on_retry: RetryHook | None = None) -> Agents:
        """The agents for one run or rebuild, on a freshly opened project."""
        ...

    def key_missing(self) -> bool:
        """True when the real provider would run and its API key is not set."""
        ...

    def use_offline(self) -> None:
        """Switch to the offline provider from now on."""
        ...

    def apply_settings(self, settings: Settings) -> None:
        """The settings file changed on disk: use the new settings (keymap included)."""
        ...

    @property
    def plan_session(self) -> PlanSession:
        """The planning session bound to the studio's settings and provider."""
        ...

    @property
    def quick_start(self) -> QuickStart:
        """The quick start bound to the studio's settings and provider."""
        ...


class StudioHost(Protocol):
    """What a flow needs from the screen it serves."""

    @property
    def lang(self) -> Lang: ...

    @property
    def project(self) -> Project: ...

    @property
    def services(self) -> StudioServices: ...

    @property
    def selected(self) -> int | None: ...

    @property
    def inflight(self) -> int | None: ...

    @property
    def running(self) -> bool: ...

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: Severity = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None: ...

    async def ask(self, question: Question) -> str:
        """Show a decision dialog and return the chosen option key."""
        ...

    async def show_modal(self, screen: Screen[T]) -> T | None:
        """Push `screen` and wait for its result (call from a worker)."""
        ...

    def run_flow(self, flow: Coroutine[Any, Any, object], *, group: str) -> None:
        """Run a flow that awaits dialogs in a worker of the screen (one per group at a time)."""
        ...

    def reload(self) -> None:
        """Re-read the project and refresh what shows it."""
        ...

    def show_chapter(self, n: int, *, select: bool = False) -> None:
        """Show chapter `n` in the panes (and select it in the outline with `select`)."""
        ...

    def start_run(self, request: RunRequest) -> None:
        """Start a pipeline run (checks first whether one may start)."""
        ...

    def chapter_edited(self, n: int, source: EditSource) -> None:
        """Committed chapter `n` changed outside the pipeline."""
        ...


__all__ = ["EventSink", "PlanSession", "QuickStart", "RunRequest", "Severity", "StudioHost", "StudioServices"]
