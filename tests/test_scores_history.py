"""A chapter selection reads one evaluation: the scores pane's sparkline comes from the outline rows."""

from __future__ import annotations

from pathlib import Path

import pytest

import studio.views.scores as scores_module
from studio.project import Project
from studio.views.outline_rows import build_outline_rows
from studio.views.scores import scores_for_chapter
from tests.tui_helpers import main_screen, make_app


def test_history_from_rows_gives_the_same_pane(sample: Path) -> None:
    project = Project.open(sample)
    rows = build_outline_rows(project)
    history = [(c.number, c.overall) for v in rows for c in v.chapters if c.overall is not None]
    assert history
    for n in (1, 2, 3):
        assert scores_for_chapter(project, n, history=history) == scores_for_chapter(project, n)


def test_the_fresh_score_of_the_chapter_replaces_its_history_entry(sample: Path) -> None:
    project = Project.open(sample)
    stale = [(1, 1.0), (2, 1.0)]
    model = scores_for_chapter(project, 2, history=stale)
    assert model.overall is not None and model.trend_high == pytest.approx(max(1.0, model.overall))


async def test_selecting_a_chapter_does_not_scan_every_evaluation(sample: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(sample)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        scans: list[int] = []
        real = scores_module.chapter_scores

        def counted(project: Project) -> dict[int, scores_module.ChapterScore]:
            scans.append(1)
            return real(project)

        monkeypatch.setattr(scores_module, "chapter_scores", counted)
        screen.show_chapter(1, select=True)
        await pilot.pause()
        screen.show_chapter(2, select=True)
        await pilot.pause()
        assert scans == []
        assert screen.scores_view.model is not None and screen.scores_view.model.overall is not None
