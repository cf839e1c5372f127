"""Planning in the studio (issue 7 items 2, 4, 7): a controller over `PlanHost` (the main screen).

`PlanFlow(host)` is driven by the main screen's keys and messages and runs nothing itself; the host's plan
runner (`screens.plan_runner.PlanRunner`) runs the sessions in a worker and answers their questions:

- `write(chapters)` (`c`, and `C` after its count): when the next chapter has no plan (`plan_needed`), ask first instead of writing
  "第N章" from nothing: a staged plan waits -> review it now; a new project whose quick start did not run to
  the end (cut short, refused for a missing key, started over) -> run it with the saved choices; no outline
  covers the next chapter -> plan the volume first. Yes starts the planning
  session; no writes nothing. A planned chapter is written at once (`host.start_run`).
- `plan(volume, note)` (`PlanRequested`: the volume end, the review, the answer above): the one planning
  session (`StudioServices.plan_session`), whose `PLAN_APPROVAL` question is the approval screen.
- `quick_start(request)` (`QuickStartRequested`: the welcome screen's new-novel path): the quick start
  (`StudioServices.quick_start`), streaming its trial chapters on the main screen.
- `ended(message)` (`PlanEnded`): reload, say how it ended; a quick start whose trial chapters the author
  confirmed goes on to plan volume 1 (the rest of it, after the trial chapters).

Both sessions start only where a run could (`host.can_start`: nothing running, the lock free, the key set).
The saved quick-start choices: `studio.tui.new_novel.load_quick_start`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from studio.errors import StudioError
from studio.i18n import Catalog, Lang, tr
from studio.models.checkpoint import OrchestratorState
from studio.project import Project
from studio.tui.host import RunRequest, StudioHost
from studio.tui.messages import PlanEnded

if TYPE_CHECKING:
    from studio.models.quick_start import QuickStartRequest  # annotations only: the model loads with its file

__all__ = [
    "MESSAGES",
    "PlanFlow",
    "PlanHost",
    "PlanNeed",
    "plan_needed",
]

MESSAGES: Catalog = {
    "ask_title": ("先规划再写", "Plan before writing"),
    "ask_unplanned": (
        "第{chapter}章还没有计划（卷大纲与章节契约），现在写只能凭空发挥。先规划第{volume}卷吗？"
        "（规划会调用模型，先显示计划再由你批准）",
        "Chapter {chapter} has no plan yet (volume outline and chapter contracts); writing it now would start "
        "from nothing. Plan volume {volume} first? (Planning calls the model; you approve the plan before "
        "anything is applied)",
    ),
    "ask_staged": (
        "第{volume}卷的计划已经暂存，正在等你批准，批准前不能写作。现在查看这份计划吗？",
        "The plan of volume {volume} is staged and waits for your approval; nothing is written until then. "
        "Review it now?",
    ),
    "ask_quick_start": (
        "这部小说的快速开始还没有完成（世界观、角色、文风与试写三章）。用保存的选择开始吗？",
        "This novel's quick start has not finished (world, characters, style, three trial chapters). "
        "Run it with the saved choices?",
    ),
    "yes_plan": ("先规划", "Plan first"),
    "yes_review": ("查看计划", "Review the plan"),
    "yes_resume": ("快速开始", "Quick start"),
    "no": ("取消", "Cancel"),
    "planning": ("正在规划，请稍候", "Planning is under way; please wait"),
    "plan_started": ("正在规划第{volume}卷……", "Planning volume {volume}..."),
    "plan_started_next": ("正在规划下一卷……", "Planning the next volume..."),
    "quick_started": ("快速开始：世界观、角色、文风和试写三章……", "Quick start: world, characters, style, 3 trial chapters..."),
    "plan_done": ("规划结束", "Planning finished"),
    "plan_cancelled": ("规划已停止；暂存的计划保留，按 c 可以继续", "Planning stopped; a staged plan is kept (press c to go on)"),
    "plan_failed": ("规划出错：{message}（详情见 {log}）", "Planning failed: {message} (details in {log})"),
    "quick_done": ("快速开始结束", "Quick start finished"),
    "quick_confirmed": ("试写三章已确认，接着规划第 1 卷的其余章节", "Trial chapters confirmed; planning the rest of volume 1"),
    "quick_cancelled": (
        "快速开始已停止；再次打开或按 c 时可以继续",
        "The quick start stopped; it can be resumed (press c)",
    ),
    "quick_failed": ("快速开始出错：{message}（详情见 {log}）", "The quick start failed: {message} (details in {log})"),
}

LOG_HINT = Path(".novel-studio") / "logs" / "studio.log"


@dataclass(frozen=True)
class PlanNeed:
    """Why the next chapter cannot simply be written: `staged` (a plan of `volume` waits for approval),
    `quick_start` (a new project with saved quick-start choices and no chapter yet: the quick start did not
    run to the end), `unplanned` (no outline covers `chapter`)."""

    kind: Literal["staged", "quick_start", "unplanned"]
    volume: int
    chapter: int


def plan_needed(project: Project) -> PlanNeed | None:
    """What must happen before `c` writes the next chapter, or None when it is planned (or when the orchestrator
    itself says what comes next: the end of a volume, VOL_REVIEW)."""
    # The planning's models load when a chapter is asked for, not before the studio's first paint.
    from studio.planning.staged import staged_plans
    from studio.tui.new_novel import load_quick_start

    paths = project.paths
    chapter = project.last_completed_chapter + 1
    staged = staged_plans(paths)
    if staged:
        return PlanNeed("staged", staged[0], chapter)
    state = project.checkpoint.orchestrator_state
    if state is OrchestratorState.VOL_REVIEW:
        return None
    outline = project.outline
    planned = outline.chapter_range if outline is not None else None
    unplanned = planned is None or chapter < planned[0]
    fresh = project.last_completed_chapter == 0 and (state is OrchestratorState.QUICK_START or unplanned)
    if fresh and load_quick_start(paths) is not None:
        return PlanNeed("quick_start", project.current_volume, chapter)
    if unplanned:
        return PlanNeed("unplanned", project.current_volume, chapter)
    return None  # in the outline's range, or past it (the orchestrator stops at the volume's end)


class PlanHost(StudioHost, Protocol):
    """What the planning flow needs beyond `StudioHost`: the plan runner and the run checks."""

    @property
    def planning(self) -> bool:
        """A planning session or quick start is running."""
        ...

    def can_start(self) -> bool:
        """True when a run may start now (nothing running, the lock free, the key set); else says why."""
        ...

    def start_plan(self, volume: int | None, note: str) -> None:
        """Run the planning session in the plan runner."""
        ...

    def start_quick_start(self, request: QuickStartRequest) -> None:
        """Run the quick start in the plan runner."""
        ...


class PlanFlow:
    """The planning controller of the main screen (see the module docstring)."""

    def __init__(self, host: PlanHost) -> None:
        self.host = host

    @property
    def lang(self) -> Lang:
        return self.host.lang

    # -- `c` ------------------------------------------------------------------------------------------------

    def write(self, chapters: int = 1) -> None:
        """`c` / `C`: write the next `chapters` chapters, or ask to plan first when the next one has no plan."""
        host = self.host
        if host.planning:
            host.notify(tr(MESSAGES, "planning", self.lang), severity="warning")
            return
        try:
            need = plan_needed(host.project)
        except (OSError, StudioError):
            need = None  # the run's own cold-start check reports what is wrong
        if need is None:
            host.start_run(RunRequest(chapters))
            return
        host.run_flow(self._ask_first(need), group="plan-first")

    async def _ask_first(self, need: PlanNeed) -> None:
        lang = self.lang
        text, yes = {
            "staged": ("ask_staged", "yes_review"),
            "quick_start": ("ask_quick_start", "yes_resume"),
            "unplanned": ("ask_unplanned", "yes_plan"),
        }[need.kind]
        from screens.prompt_dialogs import ConfirmDialog  # loads when first shown, not before the first paint

        dialog = ConfirmDialog(
            tr(MESSAGES, text, lang, chapter=need.chapter, volume=need.volume),
            lang,
            title=tr(MESSAGES, "ask_title", lang),
            default=True,
            yes_label=tr(MESSAGES, yes, lang),
            no_label=tr(MESSAGES, "no", lang),
        )
        if not await self.host.show_modal(dialog):
            return
        if need.kind == "quick_start":
            from studio.tui.new_novel import load_quick_start

            request = load_quick_start(self.host.project.paths)
            if request is not None:
                self.quick_start(request)
            return
        self.plan(need.volume if need.kind == "staged" else None)

    # -- sessions -------------------------------------------------------------------------------------------

    def plan(self, volume: int | None, note: str = "") -> None:
        """Run the planning session for `volume` (None: the next unplanned one)."""
        host = self.host
        if host.planning:
            host.notify(tr(MESSAGES, "planning", self.lang), severity="warning")
            return
        if not host.can_start():
            return
        host.notify(
            tr(MESSAGES, "plan_started", self.lang, volume=volume)
            if volume is not None
            else tr(MESSAGES, "plan_started_next", self.lang)
        )
        host.start_plan(volume, note)

    def quick_start(self, request: QuickStartRequest) -> None:
        """Run the quick start with the author's choices."""
        host = self.host
        if host.planning:
            host.notify(tr(MESSAGES, "planning", self.lang), severity="warning")
            return
        if not host.can_start():
            return
        host.notify(tr(MESSAGES, "quick_started", self.lang))
        host.start_quick_start(request)

    def ended(self, message: PlanEnded) -> None:
        """A session is over: reload, say how it ended; confirmed trial chapters go on to plan volume 1."""
        host = self.host
        lang = self.lang
        host.reload()
        quick = message.kind == "quick_start"
        if message.cancelled:
            host.notify(tr(MESSAGES, "quick_cancelled" if quick else "plan_cancelled", lang), severity="warning")
        elif message.error is not None:
            key = "quick_failed" if quick else "plan_failed"
            host.notify(tr(MESSAGES, key, lang, message=message.error, log=LOG_HINT), severity="error", timeout=15)
        elif quick and message.confirmed:
            host.notify(tr(MESSAGES, "quick_confirmed", lang))
            self.plan(1)
        else:
            host.notify(tr(MESSAGES, "quick_done" if quick else "plan_done", lang))
