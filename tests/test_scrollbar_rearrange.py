"""A pane's scrollbar that appears or goes re-arranges that pane alone (`widgets.compat.update_scroll_limits`).

Textual lays out the whole screen when a scrollbar appears or goes (`show_vertical_scrollbar` is a layout
reactive): 8-15 ms of CPU and 2-3 frames on the studio's slowest chapter selections. The diff, scores and
chapter panes have a size fixed by their CSS, so the studio places their content region and scrollbars in the
compositor's map itself. These tests hold it to Textual's own result: the same map as a layout makes, the same
screen (`App.export_screenshot`) as with the shortcut disabled, the same wrap (a TextArea re-wraps one cell
narrower when its scrollbar appears), and no layout of the screen.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rich.text import Text
from textual._compositor import Compositor, MapGeometry
from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget

from widgets import compat
from widgets.chapter_view import ChapterView
from widgets.instant_keys import ReaderArea
from widgets.scores_view import ScoresView
from widgets.state_diff_view import StateDiffView

SHORT = Text("第3章  综合 3.92/5\n情节逻辑 ×0.18 ████░ 4")
LONG = Text("雾" * 40 + "\n" + "\n".join(f"第{i}行 沈照推开灯铺的门" for i in range(30)))
WIDE = "沈照推开灯铺的门，雾里的人影没有动。" * 3  # one long line: soft-wrapped by a TextArea


class Panes(App[None]):
    """The diff and scores panes side by side, a chapter pane and a plain reader area below."""

    CSS = """
    Horizontal { height: 1fr; }
    StateDiffView, ScoresView { width: 1fr; }
    ChapterView, ReaderArea { height: 1fr; }
    """

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield StateDiffView(id="diff")
            yield ScoresView(id="scores")
        yield ChapterView(id="chapter")
        yield ReaderArea(id="reader", soft_wrap=True, read_only=True)


class Layouts:
    """Counts the screen's layouts (`Screen._refresh_layout`)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        real = Screen._refresh_layout

        def spy(screen: Screen[Any], *args: Any, **kwargs: Any) -> None:
            self.count += 1
            real(screen, *args, **kwargs)

        monkeypatch.setattr(Screen, "_refresh_layout", spy)


def _arranged(app: App[None]) -> list[tuple[Widget, MapGeometry]]:
    """The map a layout of the screen would make now, in its order (the order the compositor paints in)."""
    screen = app.screen
    compositor: Compositor = screen._compositor
    arranged, _ = compositor._arrange_root(screen, compositor.size, visible_only=False)
    return list(arranged.items())


async def _settle(pilot: Pilot[None]) -> None:
    await pilot.pause()
    await pilot.pause(0.05)
    await pilot.pause()


STEPS = [
    "diff: bar appears", "scores: bar appears", "diff: bar goes", "chapter: bar appears",
    "reader: bar appears, re-wrapped", "reader: bar goes, re-wrapped", "scores: bar goes", "chapter: bar goes",
]


def _steps(app: Panes) -> list[tuple[str, Callable[[], None]]]:
    diff = app.query_one(StateDiffView)
    scores = app.query_one(ScoresView)
    chapter = app.query_one(ChapterView)
    reader = app.query_one(ReaderArea)
    return [
        ("diff: bar appears", lambda: diff.show_body(LONG)),
        ("scores: bar appears", lambda: scores.show_body(LONG)),
        ("diff: bar goes", lambda: diff.show_body(SHORT)),
        ("chapter: bar appears", lambda: chapter.show_text("\n".join(f"第{i}段。" for i in range(40)), title="第2章")),
        ("reader: bar appears, re-wrapped", lambda: reader.load_text("\n".join([WIDE] * 12))),
        ("reader: bar goes, re-wrapped", lambda: reader.load_text(WIDE)),
        ("scores: bar goes", lambda: scores.show_body(SHORT)),
        ("chapter: bar goes", lambda: chapter.show_text("短的一章。", title="第3章")),
    ]


async def _run(monkeypatch: pytest.MonkeyPatch, *, in_place: bool) -> tuple[list[str], list[int], list[int]]:
    """The screenshots after each step, the layouts each step made and the reader's wrap width after it."""
    monkeypatch.setattr(compat, "REARRANGE_IN_PLACE", in_place)
    app = Panes()
    shots: list[str] = []
    layouts: list[int] = []
    widths: list[int] = []
    async with app.run_test(size=(70, 40)) as pilot:
        app.query_one(StateDiffView).show_body(SHORT)
        app.query_one(ScoresView).show_body(SHORT)
        await _settle(pilot)
        spy = Layouts(monkeypatch)
        steps = _steps(app)
        assert [name for name, _ in steps] == STEPS
        for name, step in steps:
            before = spy.count
            step()
            await _settle(pilot)
            layouts.append(spy.count - before)
            shots.append(app.export_screenshot())
            widths.append(app.query_one(ReaderArea).wrap_width)
            # the map is the one a layout makes (regions, clips, content sizes, and the bars' paint order)
            assert list(app.screen._compositor._full_map.items()) == _arranged(app), name
        reader = app.query_one(ReaderArea)
        assert not reader.show_vertical_scrollbar
    return shots, layouts, widths


async def test_a_scrollbar_toggle_draws_what_a_layout_draws_without_one(monkeypatch: pytest.MonkeyPatch) -> None:
    textual_shots, textual_layouts, textual_widths = await _run(monkeypatch, in_place=False)
    shots, layouts, widths = await _run(monkeypatch, in_place=True)
    assert all(count >= 1 for count in textual_layouts)  # each step toggles a bar: Textual lays out
    assert layouts == [0] * len(layouts)
    for index, name in enumerate(STEPS):
        assert shots[index] == textual_shots[index], name
    # the reader's text re-wraps one cell narrower with its bar, and back without it, as in Textual
    assert widths == textual_widths
    assert widths[4] == widths[3] - 2 and widths[5] == widths[3]  # Textual's default bar: 2 cells


def test_the_private_names_it_relies_on_exist() -> None:
    """`compat.update_scroll_limits` / `rearrange_scrollbars` use these private Textual names (8.2)."""
    for name in ("_scroll_update", "_refresh_scrollbars", "_arrange_scrollbars", "_get_scrollable_region",
                 "_size_updated", "_render_widget"):
        assert callable(getattr(Widget, name, None)) or isinstance(getattr(Widget, name, None), property), name
    widget = Widget()
    for name in ("_layout_required", "_vertical_scrollbar", "_horizontal_scrollbar", "_scrollbar_corner",
                 "_cover_widget", "_anchored", "_anchor_released"):
        assert hasattr(widget, name), name
    compositor = Compositor()
    for name in ("_full_map", "_visible_map", "_dirty_regions", "_cuts", "_layers", "_layers_visible",
                 "_visible_widgets"):
        assert hasattr(compositor, name), name
    assert MapGeometry._fields[:7] == (
        "region", "order", "clip", "virtual_size", "container_size", "virtual_region", "dock_gutter")
