"""The outline's chapter columns give way in the pane's width: number, score (two decimals), status mark and
storyline tag always stay; the title shrinks first (with an ellipsis), then the word counts go.

Label widths of the real main screen (outline pane content less the tree's guide): 76 cells at 80x24 (the
outline is the whole screen there), 21 at 100x30 and 36 at 160x48 (a quarter of the screen).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.cells import cell_len

from studio.i18n import Lang
from studio.init_project import init_project
from studio.project import Project
from studio.views.outline_rows import STATUS_MARKS, ChapterRow, ChapterStatus, VolumeRow, build_outline_rows
from tests.tui_helpers import make_app
from widgets.outline_tree import TITLE_MIN_CELLS, OutlineTree, chapter_label, columns_for, volume_label

PANE_LABEL_CELLS = {(80, 24): 76, (100, 30): 21, (160, 48): 36}


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    return init_project(tmp_path / "sample", sample=True)


def big_book() -> list[VolumeRow]:
    """500 chapters: long titles, word counts in the thousands, scores, two storylines, some planned."""
    chapters = [
        ChapterRow(n, f"第{n}个很长很长的章节标题" if n % 3 else "短", 3000 + n if n <= 480 else None,
                   3.0 + (n % 100) / 100 if n <= 480 else None,
                   ChapterStatus.COMMITTED if n <= 480 else ChapterStatus.PLANNED,
                   "main" if n % 2 else "fog", "守灯人之路" if n % 2 else "雾潮暗涌", n % 2)
        for n in range(1, 501)
    ]
    return [VolumeRow(number=1, title="第一卷", chapters=chapters)]


def labels(rows: list[VolumeRow], width: int | None) -> list[str]:
    columns = columns_for(rows, "zh", width)
    return [chapter_label(c, columns, "zh").plain for v in rows for c in v.chapters]


def assert_essentials(rows: list[VolumeRow], width: int) -> None:
    chapters = [c for v in rows for c in v.chapters]
    lines = labels(rows, width)
    for chapter, line in zip(chapters, lines, strict=True):
        assert cell_len(line) <= width, (width, line)
        assert line.startswith(f"第{chapter.number}章"), line
        if chapter.overall is not None:
            assert f" {chapter.overall:.2f} " in line, line  # two decimals
        assert STATUS_MARKS[chapter.status] in line, line
        assert line.endswith((chapter.storyline_name or "")[:2]), line  # the storyline tag ends the line
    mark_columns = {cell_len(line.split(STATUS_MARKS[c.status])[0]) for line, c in zip(lines, chapters, strict=True)}
    assert len(mark_columns) == 1, mark_columns  # aligned


@pytest.mark.parametrize("size", sorted(PANE_LABEL_CELLS))
def test_every_pane_width_keeps_number_score_mark_and_tag(sample: Path, size: tuple[int, int]) -> None:
    width = PANE_LABEL_CELLS[size]
    assert_essentials(build_outline_rows(Project.open(sample)), width)
    assert_essentials(big_book(), width)


def test_160x48_cuts_the_title_and_keeps_the_word_counts(sample: Path) -> None:
    rows = build_outline_rows(Project.open(sample))
    lines = labels(rows, PANE_LABEL_CELLS[(160, 48)])
    assert lines[0].startswith("第1章  子时送单") and "2725字 4.15 ✓ 守灯" in lines[0]
    assert "守灯司的…" in lines[1] and "2747字 3.92 ✓" in lines[1]  # 守灯司的规矩, cut with an ellipsis


def test_160x48_english_rows_keep_the_titles_chinese_rows_keep(sample: Path) -> None:
    rows = build_outline_rows(Project.open(sample))
    zh_columns = columns_for(rows, "zh", PANE_LABEL_CELLS[(160, 48)])
    en_columns = columns_for(rows, "en", PANE_LABEL_CELLS[(160, 48)])
    assert en_columns.title >= zh_columns.title and en_columns.words  # the bare number is no wider than 2725字
    line = chapter_label(rows[0].chapters[0], en_columns, "en").plain
    assert line.startswith("Ch 1  子时送单") and "2,725 4.15 ✓ 守灯" in line, line


def test_100x30_drops_the_word_counts_and_then_the_title(sample: Path) -> None:
    rows = build_outline_rows(Project.open(sample))
    lines = labels(rows, PANE_LABEL_CELLS[(100, 30)])
    assert lines[0].rstrip() == "第1章  4.15 ✓ 守灯"
    assert "字" not in "".join(line[3:] for line in lines)  # no word count (the number's 章 aside)


def test_80x24_shows_everything(sample: Path) -> None:
    rows = build_outline_rows(Project.open(sample))
    assert labels(rows, PANE_LABEL_CELLS[(80, 24)]) == labels(rows, None)  # nothing gives way
    assert "第2章  守灯司的规矩 2747字 3.92 ✓ 守灯" in labels(rows, 76)[1]


def test_the_title_gives_way_before_the_word_counts() -> None:
    """Narrowing one cell at a time: the title shrinks to its minimum while the word counts stay; they go
    before the title does; the title goes last; number, score, mark and tag stay down to their own width."""
    rows = big_book()
    natural = columns_for(rows, "zh")
    previous = natural
    kept = cell_len(labels(rows, 1)[0])  # the narrowest line: number, score, mark, tag
    for width in range(cell_len(labels(rows, None)[0]) + 5, kept - 1, -1):
        columns = columns_for(rows, "zh", width)
        assert columns.number == natural.number and columns.score == natural.score
        if columns.words:
            assert columns.title >= TITLE_MIN_CELLS  # the words stay only while the title keeps its minimum
        if previous.words and not columns.words:
            assert previous.title == TITLE_MIN_CELLS and columns.title > previous.title  # the title grows back
        assert columns.title == 0 or columns.title >= TITLE_MIN_CELLS  # never a stub of a title
        assert_essentials(rows, width)
        previous = columns
    assert previous.title == 0 and previous.words == 0


def test_no_score_column_before_any_chapter_is_scored() -> None:
    rows = [VolumeRow(1, "第一卷", [ChapterRow(1, "开端", None, None, ChapterStatus.PLANNED, "m", "主线", 0)])]
    assert columns_for(rows, "zh", 20).score == 0
    assert labels(rows, 20) == ["第1章 开端 ∘ 主线"]


@pytest.mark.parametrize("size", sorted(PANE_LABEL_CELLS))
async def test_the_studio_outline_at_each_size(sample: Path, size: tuple[int, int]) -> None:
    """The real main screen: chapter 1's line shows its score, mark and tag in the pane as drawn."""
    app = make_app(sample)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.press("1")  # the outline pane (the only one shown at 80x24)
        await pilot.pause()
        tree = app.screen.query_one(OutlineTree)
        drawn = [tree.render_line(y).text for y in range(tree.size.height)]
        line = next(text for text in drawn if "第1章" in text)
        assert "4.15 ✓ 守灯" in line, drawn
        assert cell_len(line.rstrip()) <= tree.size.width


def volume(title: str = "第一卷 子时灯", chapters: int = 10, written: int = 2) -> VolumeRow:
    rows = [
        ChapterRow(n, f"第{n}章的标题", 2700 if n <= written else None, 4.0 if n <= written else None,
                   ChapterStatus.COMMITTED if n <= written else ChapterStatus.PLANNED, "m", "守灯人之路", 0)
        for n in range(1, chapters + 1)
    ]
    return VolumeRow(number=1, title=title, chapters=rows)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_volume_line_shortens_its_stats_before_the_name(lang: Lang) -> None:
    """Narrowing one cell at a time: the line always fits; the word count goes first, then the unit, and the
    name is cut only once the stats are the bare `2/10`; then the stats go and the name alone is cut."""
    row = volume()
    full = volume_label(row, lang).plain
    assert full == ("第一卷 子时灯  2/10章 · 5400字" if lang == "zh" else "第一卷 子时灯  2/10 ch · 5,400 chars")
    seen: list[str] = []
    for width in range(cell_len(full) + 3, 0, -1):
        line = volume_label(row, lang, width).plain
        assert cell_len(line) <= width, (width, line)
        if line.startswith("第一卷 子时灯  "):
            assert line.endswith("2/10" if "…" in line else ("字", "chars", "章", "ch", "2/10")), line
        else:  # the name is cut: the stats are bare or gone
            assert "…" in line and ("章" not in line and " ch" not in line), line
        if line not in seen:
            seen.append(line)
    unit = "章" if lang == "zh" else " ch"
    assert seen[:3] == [full, f"第一卷 子时灯  2/10{unit}", "第一卷 子时灯  2/10"], seen
    assert "第一卷 子…  2/10" in seen and seen[-1] == "…", seen  # cut beside the bare stats, then alone


@pytest.mark.parametrize("lang", ["zh", "en"])
async def test_the_volume_line_fits_the_100x30_pane(sample: Path, lang: Lang) -> None:
    """The real main screen at 100x30: the volume line shows the whole name and its chapter count, and the
    outline does not scroll sideways (a cut `2/10 c` and a horizontal scrollbar mark before the fix)."""
    app = make_app(sample, lang=lang)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        tree = app.screen.query_one(OutlineTree)
        drawn = [tree.render_line(y).text for y in range(tree.size.height)]
        head = next(text for text in drawn if "第一卷" in text)
        assert head.rstrip().endswith("第一卷 子时灯  2/10章" if lang == "zh" else "第一卷 子时灯  2/10"), drawn
        assert tree.max_scroll_x == 0 and not tree.show_horizontal_scrollbar
        await pilot.resize_terminal(160, 48)
        await pilot.pause()
        drawn = [tree.render_line(y).text for y in range(tree.size.height)]
        head = next(text for text in drawn if "第一卷" in text)
        assert "2/10章 · 5472字" in head if lang == "zh" else "2/10 ch · 5,472 chars" in head, drawn
