"""The chapter pane draws its plain lines straight from the document (`widgets.compat.plain_text_line`): the same
segments as Textual's `TextArea._render_line`, row for row, and no rich `Text` rendered per line (issue 12,
instant keys: a new chapter's 43 rows at 160x48 were a third of a selection's frame).

Every row is compared at several scroll positions, with lines that fit, blank lines, a line wider than the pane
(soft-wrapped by TextArea: drawn Textual's way) and a tab; a selection (a search hit) and a cursor shown fall
back to Textual's drawing.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.widgets import TextArea
from textual.widgets.text_area import Selection

from tests.tui_helpers import WidgetApp
from widgets.chapter_view import ChapterView
from widgets.compat import plain_text_line

TEXT = "\n".join(
    [f"　　第{i}段，沈照把灯往前递了半寸，雾里的人影没有动。" for i in range(30)]
    + ["", "ABC\tDEF 有一个制表符", "雾" * 80, "“明天，”他终于开口，“明天再来。”", ""]
)


def _rows(area: TextArea) -> list[tuple[Any, Any]]:
    return [(plain_text_line(area, y), TextArea._render_line(area, y)) for y in range(area.size.height)]


async def test_plain_lines_are_textuals_lines() -> None:
    app = WidgetApp(ChapterView(id="chapter"))
    async with app.run_test(size=(60, 24)) as pilot:
        view = app.widget
        view.show_text(TEXT, title="第3章 雾")
        await pilot.pause()
        area = view.text_area
        assert area.max_scroll_y > 10
        fast = 0
        for top in (0, 5, area.max_scroll_y):
            area.scroll_to(y=top, animate=False, immediate=True)
            await pilot.pause()
            for y, (plain, textual) in enumerate(_rows(area)):
                if plain is not None:
                    fast += 1
                    assert plain == textual, (top, y)
                    assert plain.cell_length == textual.cell_length
                    assert area.render_line(y) == textual
        assert fast > 30
        # the tab line, the blank rows below the end and a wrapped line's sections: Textual's way
        tab = area.document.lines.index("ABC\tDEF 有一个制表符")
        assert area.scroll_y == area.max_scroll_y and area.scroll_y <= tab < area.scroll_y + area.size.height
        assert plain_text_line(area, tab - int(area.scroll_y)) is None
        # a line wider than the pane (never one the typesetting made): its soft-wrapped rows, and the blank rows
        # below the end, are Textual's; the short line after it is plain again
        area.load_text("雾" * 80 + "\n短行")
        area.scroll_home(animate=False, immediate=True)
        await pilot.pause()
        rows = _rows(area)
        wrapped = area.wrapped_document.height - 1
        assert wrapped >= 2
        assert [plain for plain, _ in rows[:wrapped]] == [None] * wrapped
        assert rows[wrapped][0] == rows[wrapped][1] and rows[wrapped][0] is not None
        assert [plain for plain, _ in rows[wrapped + 1 :]] == [None] * (len(rows) - wrapped - 1)


@pytest.mark.parametrize("mode", ["selection", "cursor"])
async def test_a_highlight_or_a_cursor_is_drawn_textuals_way(mode: str) -> None:
    app = WidgetApp(ChapterView(id="chapter"))
    async with app.run_test(size=(60, 24)) as pilot:
        view = app.widget
        view.show_text(TEXT, title="第3章 雾")
        await pilot.pause()
        area = view.text_area
        if mode == "selection":
            area.selection = Selection((2, 2), (2, 6))
        else:
            area.show_cursor = True
        await pilot.pause()
        assert all(plain is None for plain, _ in _rows(area))


async def test_a_new_chapter_renders_no_rich_text_per_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """Showing another chapter draws its rows without TextArea's per-line rendering (which built and rendered a
    rich `Text` and three strips for each row)."""
    app = WidgetApp(ChapterView(id="chapter"))
    async with app.run_test(size=(60, 24)) as pilot:
        view = app.widget
        view.show_text(TEXT, title="第3章 雾")
        await pilot.pause()
        calls: list[int] = []
        render_line = TextArea._render_line

        def spy(area: TextArea, y: int) -> Any:
            calls.append(y)
            return render_line(area, y)

        monkeypatch.setattr(TextArea, "_render_line", spy)
        view.show_text(TEXT.replace("沈照", "许青禾"), title="第4章 潮")
        await pilot.pause()
        await pilot.pause()
        assert view.text_area.document.lines[0].startswith("　　第0段，许青禾")
        assert calls == []
