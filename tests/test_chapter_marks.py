"""The chapters' marks and notes (`studio.tui.marks.ChapterMarks`) and their two outline marks (issue 12, item 5):
"edited, not rebuilt" and "needs review" differ, in symbols (NO_COLOR) as well as colours."""

from __future__ import annotations

from pathlib import Path

from studio.init_project import init_project
from studio.models.review_marks import ReviewMarks
from studio.project import Project
from studio.tui.marks import ChapterMarks
from studio.views.outline_rows import (
    STATUS_MARKS,
    ChapterRow,
    ChapterStatus,
    build_outline_rows,
    find_chapter,
)
from widgets.outline_tree import Columns, chapter_label, status_legend


def _review(chapter: int, cause: int, *reasons: str) -> ReviewMarks:
    marks = ReviewMarks()
    marks.add(chapter, list(reasons), cause)
    return marks


def test_edited_and_review_have_their_own_symbols() -> None:
    assert STATUS_MARKS[ChapterStatus.NEEDS_REBUILD] != STATUS_MARKS[ChapterStatus.NEEDS_REVIEW]
    assert len(set(STATUS_MARKS.values())) == len(STATUS_MARKS)
    columns = Columns(number=6, title=6, words=0)
    edited = chapter_label(ChapterRow(2, "灯", 100, 4.0, ChapterStatus.NEEDS_REBUILD), columns).plain
    review = chapter_label(ChapterRow(2, "灯", 100, 4.0, ChapterStatus.NEEDS_REVIEW), columns).plain
    assert edited != review  # without colour the two still read differently
    assert "↻" in edited and "⚑" in review
    assert "⚑ 需复查" in status_legend("zh")


def test_outline_rows_give_edited_precedence_over_review(tmp_path: Path) -> None:
    root = tmp_path / "novel"
    init_project(root, sample=True)
    project = Project.open(root)
    rows = build_outline_rows(project, needs_rebuild={1}, needs_review={1, 2})
    one, two = find_chapter(rows, 1), find_chapter(rows, 2)
    assert one is not None and one.status is ChapterStatus.NEEDS_REBUILD
    assert two is not None and two.status is ChapterStatus.NEEDS_REVIEW
    three = find_chapter(build_outline_rows(project, needs_review={3}), 3)
    assert three is not None and three.status is ChapterStatus.PLANNED  # not written: nothing to review


def test_lines_say_why_with_symbols() -> None:
    marks = ChapterMarks().with_edited(3).with_review(_review(3, 1, "沈照不在灯铺"))
    lines = marks.lines(3, "zh")
    assert lines[0].startswith("↻")
    assert lines[1].startswith("⚑") and "第1章" in lines[1]
    assert lines[2] == "  - 沈照不在灯铺"
    assert marks.lines(4, "zh") == []
    assert marks.lines(3, "en")[0].startswith("↻ edited by hand")


def test_notes_stay_replace_and_clear() -> None:
    marks = ChapterMarks().with_note(2, "rebuild", "第2章已重建（状态版本 3 → 4）")
    marks = marks.with_note(2, "error", "出错了").with_note(None, "error", "运行出错")
    assert marks.lines(2, "zh") == ["↺ 第2章已重建（状态版本 3 → 4）", "✗ 出错了", "✗ 运行出错"]
    assert marks.lines(5, "zh") == ["✗ 运行出错"]  # the run's error shows with every chapter
    replaced = marks.with_note(2, "rebuild", "第2章已重建（状态版本 4 → 5）")
    assert replaced.lines(2, "zh")[-2] == "↺ 第2章已重建（状态版本 4 → 5）"  # the newest note of its chapter
    assert sum("已重建" in line for line in replaced.lines(2, "zh")) == 1
    cleared = replaced.without_notes(2, "error").without_notes(None)
    assert cleared.lines(2, "zh") == ["↺ 第2章已重建（状态版本 4 → 5）"]
    assert cleared != replaced and cleared == ChapterMarks().with_note(2, "rebuild", "第2章已重建（状态版本 4 → 5）")


async def test_stage_error_and_pause_stay_under_the_chapter_title(tmp_path: Path) -> None:
    from pipeline.events import ChapterCommitted, Paused, StageError
    from studio.tui.messages import PipelineEventPosted
    from tests.tui_helpers import main_screen, make_app

    root = tmp_path / "novel"
    init_project(root, sample=True)
    app = make_app(root)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        assert screen.selected == 2 and screen.chapter_view.marks_text == ""
        screen.post_message(PipelineEventPosted(StageError(2, "draft", "connection", "Connection refused")))
        screen.post_message(PipelineEventPosted(Paused(2, "gate_low", "第 2 章等待作者决定（评分偏低）")))
        await pilot.pause()
        await pilot.pause()
        marks = screen.chapter_view.marks_text.splitlines()
        assert marks[0].startswith("✗ 第2章 起草 阶段出错：连不上服务商") and "Connection refused" in marks[0]
        assert marks[1].startswith("‖ 已暂停：第 2 章等待作者决定")
        screen.post_message(PipelineEventPosted(ChapterCommitted(2, 2700, 4.1)))
        await pilot.pause()
        await pilot.pause()
        assert "✗" not in screen.chapter_view.marks_text and "‖" not in screen.chapter_view.marks_text
