"""`m` clears the "needs review" mark of the selected chapter (left by the impact report of a rebuild)."""

from __future__ import annotations

from pathlib import Path

from studio.models.review_marks import load_review_marks, record_review_marks
from studio.paths import ProjectPaths
from tests.tui_helpers import main_screen, make_app, notified


async def test_m_marks_the_selected_chapter_reviewed(sample: Path) -> None:
    paths = ProjectPaths(sample)
    record_review_marks(paths, {2: ["沈照·位置：灯铺 → 码头"]}, caused_by_chapter=1)
    app = make_app(sample)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        assert screen.selected == 2
        assert 2 in screen.needs_rebuild
        await pilot.press("m")
        await pilot.pause()
        assert 2 not in screen.needs_rebuild
        assert load_review_marks(paths).for_chapter(2) == []
        await pilot.press("m")  # nothing left to clear: says so
        await pilot.pause()
        assert any("没有“需复查”标记" in m for m in notified(app))
