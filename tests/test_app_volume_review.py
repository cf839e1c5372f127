"""The volume review in the studio (offline provider): the run stops at the volume end, the dialog offers the
review, the clean-up question is asked, the report is shown (Chinese, scrollable), and planning the next volume
is requested with `PlanRequested(volume=2)`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from textual.pilot import Pilot

from pipeline.decisions import QuestionKind
from pipeline.providers.offline import OfflineProvider
from screens.decision_dialog import DecisionDialog
from screens.review_screen import VolumeReviewScreen
from studio.fileio import read_text
from studio.models.checkpoint import Checkpoint, OrchestratorState
from studio.paths import ProjectPaths
from studio.planning.review import final_state_path, review_path
from studio.state_engine import load_state
from studio.tui.app import NovelStudioApp
from studio.tui.messages import PlanRequested
from tests.test_volume_review import short_volume, temporary_entries
from tests.tui_helpers import RecordingStudio

posted: list[int | None] = []


@dataclass
class _RecordedPlanRequested(PlanRequested):
    def __post_init__(self) -> None:
        posted.append(self.volume)


async def _wait_for(pilot: Pilot[None], app: NovelStudioApp, kind: QuestionKind | None, screen_type: type) -> object:
    """Pump until a screen of `screen_type` (a DecisionDialog of `kind`) is on top; other questions get their
    recommended answer."""
    for _ in range(600):
        await pilot.pause(0.05)
        screen = app.screen
        if isinstance(screen, screen_type):
            if kind is None or (isinstance(screen, DecisionDialog) and screen.question.kind is kind):
                return screen
        if isinstance(screen, DecisionDialog) and screen.question.kind is not kind:
            await pilot.press("enter")
    raise AssertionError(f"no {screen_type.__name__} {kind or ''}")


async def test_volume_end_review_cleanup_report_then_plan(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = short_volume(tmp_path)
    temporary_entries(root)
    posted.clear()
    monkeypatch.setattr("screens.main_screen.PlanRequested", _RecordedPlanRequested)
    app = RecordingStudio(root, lang="zh", offline=True, provider_factory=lambda s: OfflineProvider(delay_s=0))
    paths = ProjectPaths(root)
    async with app.run_test(size=(110, 34)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        dialog = await _wait_for(pilot, app, QuestionKind.VOLUME_END, DecisionDialog)
        assert isinstance(dialog, DecisionDialog)
        assert [o.key for o in dialog.question.options] == ["review", "export", "later"]
        assert any("卷末回顾" in fact for fact in dialog.question.facts)
        await pilot.press("1")  # review
        cleanup = await _wait_for(pilot, app, QuestionKind.REVIEW_CLEANUP, DecisionDialog)
        assert isinstance(cleanup, DecisionDialog)
        assert any("items.broken-shade" in fact for fact in cleanup.question.facts)
        await pilot.press("1")  # remove them
        report = await _wait_for(pilot, app, None, VolumeReviewScreen)
        assert isinstance(report, VolumeReviewScreen)
        assert "# 第 1 卷回顾（第 1-3 章）" in report.markdown and "## 下一卷建议" in report.markdown
        assert report.next_volume == 2
        await pilot.press("pagedown", "end", "home")  # scrolls, stays open
        assert app.screen is report
        await pilot.press("p")
        await pilot.pause()
        assert not isinstance(app.screen, VolumeReviewScreen)
    assert posted == [2]
    assert "已清理 3 个临时条目" in read_text(review_path(paths, 1))
    assert final_state_path(paths, 1).is_file() and "broken-shade" not in load_state(paths).items
    assert Checkpoint.load(paths.checkpoint).orchestrator_state is OrchestratorState.VOL_PLANNING


async def test_escape_keeps_the_state_and_does_not_plan(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = short_volume(tmp_path)
    temporary_entries(root)
    posted.clear()
    monkeypatch.setattr("screens.main_screen.PlanRequested", _RecordedPlanRequested)
    app = RecordingStudio(root, lang="zh", offline=True, provider_factory=lambda s: OfflineProvider(delay_s=0))
    paths = ProjectPaths(root)
    async with app.run_test(size=(110, 34)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        await _wait_for(pilot, app, QuestionKind.VOLUME_END, DecisionDialog)
        before = load_state(paths)
        await pilot.press("1")
        await _wait_for(pilot, app, QuestionKind.REVIEW_CLEANUP, DecisionDialog)
        await pilot.press("escape")  # backs out: keep everything
        await _wait_for(pilot, app, None, VolumeReviewScreen)
        await pilot.press("escape")
        await pilot.pause()
    assert posted == []
    assert load_state(paths) == before
    assert "作者选择保留" in read_text(review_path(paths, 1))
