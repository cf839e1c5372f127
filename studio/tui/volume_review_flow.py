"""The volume review in the studio (卷末回顾; issue 7 item 5): the controller behind the volume-end dialog's
"review" answer. The same flow as `novel-studio review` (`pipeline.planning.review.review_volume`).

Rules:
- Not while a run streams (the run holds the lock); the flow takes the project lock for the review itself
  and gives it back before showing the report.
- A call that costs money is confirmed first with its estimate (offline: no question).
- The clean-up question is a `DecisionDialog` (`QuestionKind.REVIEW_CLEANUP`; escape keeps everything).
- The report is shown in `screens.review_screen.VolumeReviewScreen`; when the author chooses to plan the
  next volume there, `on_plan(next_volume)` is called (the main screen posts `PlanRequested`).
- A model error or a refusal is a notice; nothing half done stays behind (the review's journal resumes it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from screens.prompt_dialogs import ConfirmDialog
from studio.errors import LockHeldError, StudioError
from studio.i18n import Catalog, tr
from studio.lock import ProjectLock
from studio.models.settings import Settings
from studio.project import Project
from studio.tui.host import StudioHost

if TYPE_CHECKING:
    # The review's pipeline (agents, context, prompts) is imported when a review runs, not at the studio's start.
    from pipeline.planning.review import ReviewOutcome
    from pipeline.providers.base import Provider

__all__ = ["MESSAGES", "volume_review_flow"]

MESSAGES: Catalog = {
    "busy": ("正在写作，写完后再做卷末回顾", "a run is writing; review the volume when it is done"),
    "locked": ("项目正被其他程序使用，暂时不能回顾", "another program holds the project; the review has to wait"),
    "cost": ("卷末回顾会调用模型一次，预计最多 ${cost:.2f}（{model}）。继续吗？",
             "The volume review calls the model once, at most ${cost:.2f} estimated ({model}). Go on?"),
    "cost_title": ("卷末回顾", "Volume review"),
    "stopped": ("已取消卷末回顾，未写入任何文件", "the volume review was cancelled; nothing was written"),
    "failed": ("卷末回顾失败：{error}", "the volume review failed: {error}"),
    "saved": ("已保存第 {volume} 卷回顾：volumes/vol-{volume:02d}/review.md", "saved the review of volume {volume}"),
}


async def volume_review_flow(host: StudioHost, volume: int, on_plan: Callable[[int], object]) -> ReviewOutcome | None:
    """Review `volume`, show the report, and call `on_plan(next)` when the author goes on to plan."""
    from pipeline.planning.review import ReviewStopped, review_volume
    from pipeline.providers.base import ProviderError

    lang = host.lang
    if host.running:
        host.notify(tr(MESSAGES, "busy", lang), severity="warning")
        return None
    services = host.services
    settings = services.settings or Settings()
    project = Project.open(host.project.root, lang=lang)

    async def confirm(cost: float, model: str) -> bool:
        if services.offline or cost <= 0:
            return True
        dialog = ConfirmDialog(tr(MESSAGES, "cost", lang, cost=cost, model=model), lang,
                               title=tr(MESSAGES, "cost_title", lang))
        answer = await host.show_modal(dialog)
        return answer is True

    def provider() -> Provider:
        return services.provider

    lock = ProjectLock(project.paths, heartbeat_interval=0)
    try:
        lock.acquire()
    except LockHeldError:
        host.notify(tr(MESSAGES, "locked", lang), severity="error", timeout=10)
        return None
    try:
        outcome = await review_volume(project, settings, provider, host.ask, volume=volume, lang=lang,
                                      offline=services.offline, confirm_cost=confirm)
    except ReviewStopped:
        host.notify(tr(MESSAGES, "stopped", lang))
        return None
    except (ProviderError, StudioError, OSError) as exc:
        host.notify(tr(MESSAGES, "failed", lang, error=exc), severity="error", timeout=10)
        return None
    finally:
        lock.release()
    host.reload()
    if outcome.written:
        host.notify(tr(MESSAGES, "saved", lang, volume=outcome.volume))
    from screens.review_screen import VolumeReviewScreen  # Markdown: loaded at a volume's end, not at start

    screen = VolumeReviewScreen(outcome.markdown, lang, volume=outcome.volume, next_volume=outcome.next_volume)
    if await host.show_modal(screen) == "plan" and outcome.next_volume is not None:
        on_plan(outcome.next_volume)
    return outcome
