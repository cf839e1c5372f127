"""Instant keys while a chapter streams (issue 12): a chapter selection and a draft flush lay nothing out and
repaint only what they change.

Structural, not timed: spies on the screen's layouts (`Screen._refresh_layout`, a reflow of every widget),
the compositor's dirty regions and the styled lines rendered per widget. The draft is held mid-stream by the
bench's `HeldStreamProvider` (every delta delivered, then the run waits), so no delta lands inside a measure.

Before: each selection laid the screen out twice (the chapter text's and the diff/scores bodies' sizes
follow their content) and each flush that added a line laid it out once and repainted every visible line.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from rich.text import Text
from textual._compositor import Compositor
from textual._styles_cache import StylesCache
from textual.geometry import Region
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget

from studio.views import typeset as typeset_module
from studio.views.typeset import typeset
from tests.tui_helpers import WidgetApp, count_styled_rows, held_stream
from widgets import chapter_view
from widgets.chapter_view import ChapterView
from widgets.scores_view import ScoresView
from widgets.text_pane import TextPane

FLUSH_DELTA = "沈照把灯往前递了半寸，雾里的人影没有动。"


class Spy:
    """What the screen does between `clear()` and the reads: layouts, dirty regions, lines per widget."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.layouts = 0
        self.dirty: list[Region] = []
        self.lines: Counter[Widget] = Counter()
        current: list[Widget] = []
        update_widgets, render_widget, refresh_layout = (
            Compositor.update_widgets, StylesCache.render_widget, Screen._refresh_layout)

        def spy_update(compositor: Compositor, widgets: set[Widget]) -> None:
            update_widgets(compositor, widgets)
            self.dirty.extend(compositor._dirty_regions)

        def spy_render_widget(cache: StylesCache, widget: Widget, crop: Region) -> list[Strip]:
            current[:] = [widget]
            return render_widget(cache, widget, crop)

        def count_row(_cache: StylesCache) -> None:
            if current:
                self.lines[current[0]] += 1

        def spy_layout(screen: Screen[Any], *args: Any, **kwargs: Any) -> None:
            self.layouts += 1
            refresh_layout(screen, *args, **kwargs)

        monkeypatch.setattr(Compositor, "update_widgets", spy_update)
        monkeypatch.setattr(StylesCache, "render_widget", spy_render_widget)
        count_styled_rows(monkeypatch, count_row)
        monkeypatch.setattr(Screen, "_refresh_layout", spy_layout)

    def clear(self) -> None:
        self.layouts = 0
        self.dirty.clear()
        self.lines.clear()

    def by_type(self) -> dict[str, int]:
        found: Counter[str] = Counter()
        for widget, count in self.lines.items():
            found[type(widget).__name__] += count
        return dict(found)


async def settled(pilot: Any, step: Callable[[], Awaitable[object] | None]) -> None:
    """Run `step`, then let every refresh it asked for (and the draft's flush timer) reach the screen."""
    result = step()
    if result is not None:
        await result
    await pilot.pause()
    await pilot.pause(0.2)
    await pilot.pause()


def _inside(region: Region, widget: Widget) -> bool:
    return widget.region.contains_region(region)


async def test_a_selection_while_a_draft_streams_lays_out_nothing(
    sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Up / down in the outline between the chapter being written (its draft) and the one before it: at most
    one layout (a scrollbar that appears or goes), and only the outline, the chapter's title and text, the
    diff and scores panes, their scrollbars and the header repaint, each at most once."""
    async with held_stream(sample, settle=0.3) as held:
        pilot, screen, view, inflight = held.pilot, held.screen, held.view, held.inflight
        spy = Spy(monkeypatch)
        chrome = screen.query_one("#studio-header")
        allowed = {"OutlineTree", "ReaderArea", "Static", "StateDiffView", "ScoresView", "ScrollBar", "StudioHeader"}
        for key, chapter in (("up", inflight - 1), ("down", inflight), ("up", inflight - 1), ("down", inflight)):
            spy.clear()
            await settled(pilot, lambda: pilot.press(key))  # noqa: B023 (called at once)
            assert screen.selected == chapter
            assert view.is_streaming == (chapter == inflight)
            assert spy.layouts <= 1, (key, spy.layouts)
            rendered = spy.by_type()
            assert set(rendered) <= allowed, rendered
            for widget, count in spy.lines.items():  # each repainted once at most (the header's stage
                if widget is not chrome:               # clock ticks on its own while the run goes on)
                    assert count <= widget.size.height, (type(widget).__name__, count)
            for region in spy.dirty:
                assert any(_inside(region, w) for w in (
                    screen.outline, view, screen.diff_view, screen.scores_view, chrome)), region
        assert view.text == screen.draft_text  # the whole draft so far, back in the view in the same frame


def _rows_of(region: Region, area: Widget) -> range:
    top = region.y - area.region.y
    return range(top, top + region.height)


async def test_a_draft_flush_repaints_only_the_changed_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    """A flush lays nothing out; while the draft fits on the screen it repaints the rows from the paragraph
    being written on (not every visible line); scrolled up away from the end, it repaints none of the text
    (only the scrollbar's thumb moves)."""
    app = WidgetApp(ChapterView(id="chapter"))
    async with app.run_test(size=(60, 30)) as pilot:
        view = app.widget
        area = view.text_area
        view.begin_stream("第3章 雾", "第一段。\n\n第二段，沈照推开灯铺的门。\n")
        await pilot.pause(0.2)
        spy = Spy(monkeypatch)
        for _ in range(6):  # a few lines, still less than a screen
            origins = view.display_layout.origins
            first_changed = next(row for row, (paragraph, _) in enumerate(origins) if paragraph == origins[-1][0])
            # (the first row of the paragraph being written, the last one)
            spy.clear()
            await settled(pilot, lambda: view.append(FLUSH_DELTA))
            assert spy.layouts == 0
            assert area.scroll_y == 0 and area.max_scroll_y == 0
            text_regions = [r for r in spy.dirty if _inside(r, area)]
            assert text_regions, "the new text was not painted"
            for region in text_regions:
                assert min(_rows_of(region, area)) >= first_changed, (region, first_changed)
            assert spy.lines[area] <= len(view.display_layout.lines) - first_changed
        # a long draft, scrolled up: the flushes lay nothing out and repaint no text row
        view.append("\n".join(f"第{i}段，雾里的人影没有动。" for i in range(60)))
        await pilot.pause(0.3)
        assert area.max_scroll_y > 10
        area.scroll_to(y=0, animate=False, immediate=True)
        await pilot.pause()
        for _ in range(3):
            spy.clear()
            await settled(pilot, lambda: view.append(FLUSH_DELTA + "\n"))
            assert spy.layouts == 0
            assert area.scroll_y == 0
            assert spy.lines[area] == 0, spy.by_type()
        assert view.text.endswith(FLUSH_DELTA + "\n")


def _drawn_text(pane: TextPane) -> list[str]:
    width, height = pane.size
    return ["".join(segment.text for segment in strip).strip() for strip in pane.render_lines(
        Region(0, 0, width, height))]


async def test_the_diff_and_scores_bodies_change_without_a_layout(monkeypatch: pytest.MonkeyPatch) -> None:
    """A new body repaints the pane and lays nothing out while its scrollbar stays as it was; the same body
    again repaints nothing; a body that needs a scrollbar takes the scrollbar's column from the pane alone (no
    layout either), and is wrapped at the same width as without it."""
    app = WidgetApp(ScoresView(id="scores"))
    async with app.run_test(size=(40, 12)) as pilot:
        pane = app.widget
        await pilot.pause()
        spy = Spy(monkeypatch)
        short = Text("综合 3.92/5\n情节逻辑 ×0.18 ████░ 4")
        await settled(pilot, lambda: pane.show_body(short))
        assert spy.layouts == 0 and spy.lines[pane] > 0
        assert _drawn_text(pane)[:2] == ["综合 3.92/5", "情节逻辑 ×0.18 ████░ 4"]
        spy.clear()
        await settled(pilot, lambda: pane.show_body(Text("综合 3.92/5\n情节逻辑 ×0.18 ████░ 4")))
        assert spy.layouts == 0 and not spy.dirty and not spy.lines  # equal text: nothing repainted
        wide = "雾" * 40  # wraps: 80 cells in a pane of 40 less padding and the scrollbar's column
        spy.clear()
        await settled(pilot, lambda: pane.show_body(Text(wide)))
        assert spy.layouts == 0
        narrow_lines = [line for line in _drawn_text(pane) if line]
        long = Text(wide + "\n" + "\n".join(f"第{i}行" for i in range(30)))
        spy.clear()
        await settled(pilot, lambda: pane.show_body(long))
        # the scrollbar appeared: its column is taken from the pane alone, with no layout of the screen
        # (`widgets.compat.rearrange_scrollbars`; Textual laid out once or twice)
        assert spy.layouts == 0
        assert pane.show_vertical_scrollbar and pane.max_scroll_y > 0
        assert [line for line in _drawn_text(pane) if line][: len(narrow_lines)] == narrow_lines
        pane.focus()
        await pilot.press("j")  # scrolling still works (no body widget to scroll: the pane draws its lines)
        await pilot.pause()
        assert pane.scroll_y == 1
        assert _drawn_text(pane)[0] == narrow_lines[1]
        spy.clear()
        await settled(pilot, lambda: pane.show_body(short))
        assert pane.scroll_y == 0 and pane.body_text == short.plain


async def test_a_draft_selected_again_is_typeset_only_where_it_grew(monkeypatch: pytest.MonkeyPatch) -> None:
    """Away from the draft (another chapter shown) and back while it streams: only the paragraph that was being
    written and what came since are typeset again, not the whole draft; the lines are the whole draft's. A
    draft that does not continue the one left (a retry that started over) is typeset whole."""
    app = WidgetApp(ChapterView(id="chapter"))
    async with app.run_test(size=(60, 30)) as pilot:
        view = app.widget
        draft = "# 第3章 雾\n\n" + "\n".join(f"　　第{i}段，沈照推开灯铺的门，雾里的人影没有动。" for i in range(40))
        view.begin_stream("第3章 雾", draft)
        await pilot.pause()
        view.show_text("另一章的正文。", title="第2章")
        await pilot.pause()
        whole: list[str] = []
        wrapped: list[str] = []
        real_typeset, real_wrap = chapter_view.typeset, typeset_module.wrap_paragraph

        def spy_typeset(text: str, width: int, **kwargs: Any) -> Any:
            whole.append(text)
            return real_typeset(text, width, **kwargs)

        def spy_wrap(paragraph: str, width: int) -> list[str]:
            wrapped.append(paragraph)
            return real_wrap(paragraph, width)

        monkeypatch.setattr(chapter_view, "typeset", spy_typeset)
        monkeypatch.setattr(typeset_module, "wrap_paragraph", spy_wrap)
        grown = draft + FLUSH_DELTA + "\n　　新的一段。"
        view.begin_stream("第3章 雾", grown)
        await pilot.pause()
        assert whole == [] and len(wrapped) == 2, (len(whole), wrapped)
        assert view.is_streaming and view.text == grown
        assert view.display_layout == real_typeset(grown, view.display_layout.width)
        assert view.text_area.text == "\n".join(view.display_layout.lines)
        view.show_text("另一章的正文。", title="第2章")
        view.begin_stream("第3章 雾", "　　重新开始。")
        await pilot.pause()
        assert whole == ["　　重新开始。"]
        assert view.display_layout == typeset("　　重新开始。", view.display_layout.width)
