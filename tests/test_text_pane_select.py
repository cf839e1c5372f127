"""Mouse selection in the diff and scores panes (`widgets.text_pane.TextPane`).

The pane draws its own lines (no `Static` body), so it takes part in Textual's text selection the way Textual's
`Log` does: the wrapped lines carry each character's (column, line) offset in the unwrapped text, the pane
answers `get_selection` from its body and paints the selected span in the screen's selection style.
Authors copy names and figures from these panes: the selected text is the body's own, full-width characters
included, even where the pane wrapped a long line.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from rich.text import Text
from textual.geometry import Offset
from textual.pilot import Pilot
from textual.selection import Selection
from textual.strip import Strip

from tests.tui_helpers import WidgetApp
from widgets.state_diff_view import StateDiffView
from widgets.text_pane import TextPane

BODY = "第3章 状态变化\n[人物] 沈照\n  位置：码头 -> 雾港旧仓\n" + "雾" * 30  # the last line wraps at 30 cells


@contextlib.asynccontextmanager
async def diff_pane() -> AsyncIterator[tuple[WidgetApp[StateDiffView], Pilot[None]]]:
    """A diff pane 34 cells wide showing `BODY`."""
    app = WidgetApp(StateDiffView(id="diff"))
    async with app.run_test(size=(34, 12)) as pilot:
        app.widget.show_body(Text(BODY))
        await pilot.pause()
        yield app, pilot


def _selected_cells(pane: TextPane, selection_bgcolor: object, y: int) -> str:
    """The characters of visible row `y` painted with the selection's background."""
    strip: Strip = pane.render_line(y)
    return "".join(text for text, style, _ in strip if style is not None and style.bgcolor == selection_bgcolor)


async def test_a_selection_returns_the_bodys_chinese_text_and_is_painted() -> None:
    async with diff_pane() as (app, pilot):
        pane = app.widget
        screen = app.screen
        assert pane.allow_select
        # line 2, from "码头" to the end of "雾港旧仓"
        screen.selections = {pane: Selection(Offset(5, 2), Offset(15, 2))}
        await pilot.pause()
        assert screen.get_selected_text() == "码头 -> 雾港旧仓"
        selection_bg = screen.get_component_rich_style("screen--selection").bgcolor
        assert _selected_cells(pane, selection_bg, 2) == "码头 -> 雾港旧仓"
        assert _selected_cells(pane, selection_bg, 1) == ""
        # across lines, into the wrapped one: the text is the body's, not the screen rows'
        screen.selections = {pane: Selection(Offset(5, 1), Offset(20, 3))}
        await pilot.pause()
        assert screen.get_selected_text() == "沈照\n  位置：码头 -> 雾港旧仓\n" + "雾" * 20
        assert _selected_cells(pane, selection_bg, 1) == "沈照"
        assert _selected_cells(pane, selection_bg, 4) == "雾" * 5  # the wrapped row: characters 15..19
        # cleared: nothing painted as selected, the cached lines are the plain ones again
        screen.clear_selection()
        await pilot.pause()
        assert screen.get_selected_text() is None
        assert all(_selected_cells(pane, selection_bg, y) == "" for y in range(6))


async def test_dragging_the_mouse_over_a_diff_line_selects_its_text() -> None:
    async with diff_pane() as (app, pilot):
        pane = app.widget
        # row 1 is "[人物] 沈照": the pane's left padding is one cell, "[人物] " takes 7 cells, 沈 and 照 two each
        await pilot.mouse_down(pane, offset=(8, 1))
        await pilot.hover(pane, offset=(10, 1))
        await pilot.mouse_up(pane, offset=(10, 1))
        await pilot.pause()
        assert app.screen.get_selected_text() == "沈照"


async def test_a_new_body_drops_the_panes_selection() -> None:
    """The selection's offsets point into the text it was made on: a new body (another chapter) drops it."""
    async with diff_pane() as (app, pilot):
        pane = app.widget
        app.screen.selections = {pane: Selection(Offset(0, 0), Offset(3, 0))}
        await pilot.pause()
        pane.show_body(Text(BODY))  # the same text: the selection stays
        assert app.screen.get_selected_text() == "第3章"
        pane.show_body(Text("第4章 状态变化"))
        await pilot.pause()
        assert app.screen.get_selected_text() is None
