"""The four panes' widgets, each mounted alone in a tiny app at 80x24 and 160x48 with the sample novel."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import pytest
from rich.cells import cell_len
from textual.app import App, ComposeResult
from textual.widget import Widget
from textual.widgets import Static, TextArea

from studio.init_project import init_project
from studio.project import Project
from studio.views.outline_rows import ChapterRow, ChapterStatus, VolumeRow, build_outline_rows
from studio.views.scores import scores_for_chapter
from studio.views.state_diff import state_diff_for_chapter
from widgets import compat
from widgets.chapter_view import FLUSH_HZ, ChapterView
from widgets.outline_tree import (
    STATUS_MARKS,
    OutlineTree,
    chapter_label,
    columns_for,
    storyline_tag,
)
from widgets.scores_view import ScoresView, render_scores
from widgets.state_diff_view import StateDiffView, render_state_diff

SIZES = [(80, 24), (160, 48)]


@pytest.fixture
def sample(tmp_path: Path) -> Project:
    root = tmp_path / "sample"
    init_project(root, sample=True)
    return Project.open(root)


class OneWidgetApp(App[None]):
    """Mounts one widget and records the messages that bubble up to the app."""

    def __init__(self, widget: Widget) -> None:
        super().__init__()
        self.widget = widget
        self.selected: list[OutlineTree.ChapterSelected] = []
        self.changed = 0

    def compose(self) -> ComposeResult:
        yield self.widget

    def on_outline_tree_chapter_selected(self, message: OutlineTree.ChapterSelected) -> None:
        self.selected.append(message)

    def on_text_area_changed(self, message: TextArea.Changed) -> None:
        self.changed += 1


def _static_text(widget: Widget, selector: str) -> str:
    return str(widget.query_one(selector, Static).render())


# ---------------------------------------------------------------------------------------------- outline tree


def test_chapter_label_aligns_cjk() -> None:
    rows = [
        VolumeRow(
            number=1,
            title="第一卷",
            chapters=[
                ChapterRow(1, "子时送单", 2725, 4.15, ChapterStatus.COMMITTED, "main-arc", "守灯人之路", 0),
                ChapterRow(10, "ab", None, None, ChapterStatus.PLANNED, "fog-tide", "雾潮暗涌", 1),
                ChapterRow(11, "一个非常非常非常长的章节标题超出了宽度", None, None, ChapterStatus.IN_PROGRESS),
            ],
        )
    ]
    columns = columns_for(rows)
    labels = [chapter_label(c, columns).plain for c in rows[0].chapters]
    # The status marks sit in the same terminal column on every line, whatever the title's script.
    mark_cols = [cell_len(label.split(STATUS_MARKS[c.status])[0]) for label, c in zip(labels, rows[0].chapters, strict=True)]
    assert len(set(mark_cols)) == 1
    assert labels[0].startswith("第1章  子时送单") and "2725字" in labels[0] and "4.15 ✓ 守灯" in labels[0]
    assert labels[1].endswith("∘ 雾潮")
    assert "…" in labels[2]  # a long title is cut to the column width
    assert storyline_tag(None, "main-arc") == "main"


@pytest.mark.parametrize("size", SIZES)
async def test_outline_tree_selection(sample: Project, size: tuple[int, int]) -> None:
    tree = OutlineTree(build_outline_rows(sample))
    app = OneWidgetApp(tree)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        assert tree.chapter_numbers == list(range(1, 11))
        await pilot.press("down")  # the first line is the volume
        await pilot.pause()
        assert tree.current_chapter is None and app.selected == []
        await pilot.press("down")
        await pilot.pause()
        assert tree.current_chapter == 1
        assert [(m.number, m.activated) for m in app.selected] == [(1, False)]
        await pilot.press("enter")
        await pilot.pause()
        assert (app.selected[-1].number, app.selected[-1].activated) == (1, True)
        assert tree.select_chapter(3)
        await pilot.pause()
        assert tree.current_chapter == 3
        assert (app.selected[-1].number, app.selected[-1].activated) == (3, False)
        assert not tree.select_chapter(99)


async def test_outline_tree_refresh_keeps_cursor(sample: Project) -> None:
    rows = build_outline_rows(sample)
    tree = OutlineTree(rows)
    app = OneWidgetApp(tree)
    async with app.run_test(size=(80, 24)) as pilot:
        tree.select_chapter(2)
        await pilot.pause()
        node3 = tree.chapter_node(3)
        # In place: chapter 3 becomes in progress; same nodes, new label, cursor stays.
        volume = rows[0]
        chapters = list(volume.chapters)
        chapters[2] = replace(chapters[2], status=ChapterStatus.IN_PROGRESS)
        tree.refresh_rows([replace(volume, chapters=chapters)])
        await pilot.pause()
        assert tree.chapter_node(3) is node3
        assert "✎" in str(node3.label)  # type: ignore[union-attr]
        assert tree.current_chapter == 2
        # A new chapter outside the outline: the tree is rebuilt, the cursor is still on chapter 2.
        loose = VolumeRow(number=0, chapters=[ChapterRow(11, "番外", 1000, None, ChapterStatus.COMMITTED)])
        tree.refresh_rows([replace(volume, chapters=chapters), loose])
        await pilot.pause()
        assert tree.chapter_numbers == list(range(1, 12))
        assert tree.current_chapter == 2
        # Moving back to the same chapter after a refresh does not repeat the message.
        numbers = [m.number for m in app.selected]
        assert numbers == [2]


# ---------------------------------------------------------------------------------------------- chapter view


@pytest.mark.parametrize("size", SIZES)
async def test_chapter_view_show_text(sample: Project, size: tuple[int, int]) -> None:
    view = ChapterView()
    app = OneWidgetApp(view)
    text = sample.chapter_text(1) or ""
    async with app.run_test(size=size) as pilot:
        view.show_text(text, title="第1章 子时送单")
        await pilot.pause()
        assert view.text == text
        assert view.text_area.read_only and view.text_area.soft_wrap
        assert _static_text(view, "#chapter-title") == "第1章 子时送单"
        assert app.changed == 0  # programmatic loads do not look like edits
        assert view.text_area.scroll_y == 0


async def test_chapter_view_streaming_coalesces() -> None:
    view = ChapterView()
    app = OneWidgetApp(view)
    deltas = [f"第{i}段，沈照推开灯铺的门。\n" if i % 7 == 0 else f"雾{i}" for i in range(300)]
    async with app.run_test(size=(80, 24)) as pilot:
        view.begin_stream("第3章 旧书店的熟客")
        await pilot.pause()
        assert "写作中" in _static_text(view, "#chapter-title")
        for i, delta in enumerate(deltas):
            view.append(delta)
            if i % 10 == 0:
                await asyncio.sleep(0.005)  # ~ a fast stream: many deltas per frame
        view.end_stream()
        await pilot.pause()
        assert view.text == "".join(deltas)
        assert view.text_area.text == "".join(deltas)
        print(f"\n300 deltas -> {view.flush_count} TextArea updates")
        assert 1 <= view.flush_count < 300 // 5, view.flush_count
        assert view.flush_count <= FLUSH_HZ * 2  # the loop above takes well under 2 s
        assert app.changed == 0
        assert "写作中" not in _static_text(view, "#chapter-title")
        # Pinned to the end while streaming.
        area = view.text_area
        assert area.max_scroll_y > 0 and area.scroll_y == area.max_scroll_y


async def test_chapter_view_stream_unpinned_when_scrolled_up() -> None:
    view = ChapterView()
    app = OneWidgetApp(view)
    async with app.run_test(size=(80, 24)) as pilot:
        view.begin_stream("第3章")
        for i in range(60):
            view.append(f"第{i}行雾气。\n")
        await pilot.pause(0.2)
        area = view.text_area
        assert area.scroll_y == area.max_scroll_y > 0
        area.scroll_home(animate=False)  # the author scrolls up to reread
        await pilot.pause()
        for i in range(60, 120):
            view.append(f"第{i}行雾气。\n")
        await pilot.pause(0.2)
        assert area.scroll_y == 0
        view.end_stream(final_text="定稿。")
        await pilot.pause()
        assert view.text == "定稿。" and not view.is_streaming


# ---------------------------------------------------------------------------------------------- state diff, scores


@pytest.mark.parametrize("size", SIZES)
async def test_state_diff_view(sample: Project, size: tuple[int, int]) -> None:
    view = StateDiffView()
    app = OneWidgetApp(view)
    async with app.run_test(size=size) as pilot:
        assert "未选择章节" in view.body_text
        view.show_diff(state_diff_for_chapter(sample, 2))
        await pilot.pause()
        body = view.body_text
        assert "沈照 (shen-zhao)" in body
        assert "关系·许青禾：0 → 10 (+10)" in body
        assert "随身物品：+ 许青禾留下的电话号码" in body
        assert "[推进] bell-in-fog" in body
        view.show_diff(None)
        await pilot.pause()
        assert "本章尚无状态补丁" in view.body_text
        view.show_error("changelog.jsonl line 3: invalid JSON")
        await pilot.pause()
        assert "无法读取状态变更" in view.body_text


def test_render_state_diff_english(sample: Project) -> None:
    text = render_state_diff(state_diff_for_chapter(sample, 2), "en").plain
    assert "mood: 惊魂未定 -> 将信将疑" in text and "Foreshadowing" in text


@pytest.mark.parametrize("size", SIZES)
async def test_scores_view(sample: Project, size: tuple[int, int]) -> None:
    view = ScoresView()
    app = OneWidgetApp(view)
    async with app.run_test(size=size) as pilot:
        view.show_scores(scores_for_chapter(sample, 2))
        await pilot.pause()
        body = view.body_text
        assert "情节逻辑   ×0.18 ████░ 4" in body
        assert "综合 3.92/5" in body and "建议：润色" in body
        assert "必须修改" in body and "综合分走势" in body
        view.show_scores(scores_for_chapter(sample, 3))
        await pilot.pause()
        assert "本章尚未评分" in view.body_text


def test_render_scores_english(sample: Project) -> None:
    text = render_scores(scores_for_chapter(sample, 2), "en").plain
    assert "Plot logic" in text and "Recommendation: polish" in text


# ---------------------------------------------------------------------------------------------- typesetting


LONG_PARAGRAPH = "　　" + "沈照推开灯铺的门，雾气一下子涌了进来。“你来晚了。”老陈说，“灯塔的钥匙……在我这里。”" * 6


@pytest.mark.parametrize("size", SIZES)
async def test_chapter_view_typesets_the_chinese_way(sample: Project, size: tuple[int, int]) -> None:
    view = ChapterView()
    app = OneWidgetApp(view)
    text = "# 第9章 灯塔\n\n" + LONG_PARAGRAPH + "\n\n" + (sample.chapter_text(1) or "")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        view.show_text(text, title="第9章 灯塔")
        await pilot.pause()
        shown = view.text_area.text.split("\n")
        assert not shown[0].startswith("#") and "# 第9章" not in view.text_area.text  # the title is shown once
        assert _static_text(view, "#chapter-title") == "第9章 灯塔"
        width = view.display_layout.width
        assert width < 200 and all(cell_len(line) <= width for line in shown)
        assert len([line for line in shown if line]) > 3
        origins = view.display_layout.origins
        for row, line in enumerate(shown):
            if origins[row][1] > 0:  # a line the typesetter broke (not a paragraph's own start)
                assert line[0] not in "。，？！”」…", line
            if row + 1 < len(shown) and origins[row + 1][1] > 0:
                assert line[-1] not in "“「", line
        assert shown[0].startswith("　　沈")  # the indent stays with its paragraph's first character
        assert view.text == text  # the source is kept as it is


async def test_chapter_view_repaints_same_height_text() -> None:
    """Two texts that wrap to the same number of lines: the second one is on screen, not the first."""
    view = ChapterView()
    app = OneWidgetApp(view)
    async with app.run_test(size=(80, 24)) as pilot:
        view.show_text("# 第1章 甲\n\n甲甲甲甲甲的第一段。\n\n甲的第二段。", title="第1章 甲")
        await pilot.pause()
        assert any("甲甲甲甲甲" in line for line in compat.screen_lines(app.screen))
        view.show_text("# 第2章 乙\n\n乙乙乙乙乙的第一段。\n\n乙的第二段。", title="第2章 乙")
        await pilot.pause()
        lines = compat.screen_lines(app.screen)
        assert any("乙乙乙乙乙" in line for line in lines)
        assert not any("甲甲甲甲甲" in line for line in lines)


async def test_chapter_view_streaming_typesets_the_paragraph_being_written() -> None:
    view = ChapterView()
    app = OneWidgetApp(view)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        view.begin_stream("第3章")
        source = "# 第3章 雾\n\n" + LONG_PARAGRAPH + "\n\n" + LONG_PARAGRAPH
        for i in range(0, len(source), 7):
            view.append(source[i : i + 7])
            if i % 70 == 0:
                await pilot.pause(0.08)
        view.end_stream()
        await pilot.pause()
        assert view.text == source
        streamed = view.text_area.text
        view.show_text(source, title="第3章")  # the same text typeset in one go
        await pilot.pause()
        assert streamed == view.text_area.text
        assert "# 第3章" not in streamed


async def test_chapter_view_typesets_again_on_resize() -> None:
    view = ChapterView()
    app = OneWidgetApp(view)
    async with app.run_test(size=(160, 48)) as pilot:
        view.show_text(LONG_PARAGRAPH, title="第9章")
        await pilot.pause()
        wide = view.display_layout.width
        rows_wide = len(view.display_layout.lines)
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        await pilot.pause()
        assert view.display_layout.width < wide
        assert len(view.display_layout.lines) > rows_wide
        assert all(cell_len(line) <= view.display_layout.width for line in view.text_area.text.split("\n"))


async def test_chapter_view_show_match_scrolls_to_the_hit() -> None:
    view = ChapterView()
    app = OneWidgetApp(view)
    body = "\n\n".join(f"第{i}段，雾气很重。" for i in range(80))
    text = "# 第5章 雾\n\n" + body + "\n\n灯塔的钥匙在这里。"
    async with app.run_test(size=(80, 24)) as pilot:
        view.show_text(text, title="第5章 雾")
        await pilot.pause()
        line = text.split("\n").index("灯塔的钥匙在这里。") + 1
        view.show_match(line, "钥匙")
        await pilot.pause()
        area = view.text_area
        row, col = view.display_row(line, 5)
        assert area.scroll_y > 0 and area.scroll_y <= row < area.scroll_y + area.scrollable_content_region.height
        assert area.selected_text == "钥匙"
