"""Instant keys (issue 12): a pane switch repaints the two panes' borders and nothing inside them.

Structural, not timed: a spy on the compositor's dirty regions and on the styled lines rendered per widget,
independent of the number of chapters. The widgets that take the focus look the same focused or not (the
pane's accent border and title are the cue), which is what lets a switch leave them alone: checked by
drawing each one both ways, in the dark and the light theme.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from textual._compositor import Compositor
from textual._styles_cache import StylesCache
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

from tests.tui_helpers import count_styled_rows, main_screen, make_app
from widgets.pane import Pane


def _border_strips(pane: Pane) -> list[Region]:
    x, y, width, height = pane.region
    return [Region(x, y, width, 1), Region(x, y + height - 1, width, 1), Region(x, y, 1, height),
            Region(x + width - 1, y, 1, height)]


async def test_pane_switch_repaints_only_the_two_pane_borders(
    sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: the focused Tree and TextArea were tinted and every focus change repainted them whole, and the
    title's colour rule repainted every widget in both panes (14,000 cells at 160x48, both panes' lines
    rendered again). Now only the border cells of the two panes are repainted (the chapter text's hidden cursor
    line, which TextArea refreshed when its cursor's visibility followed the focus, no longer is)."""
    app = make_app(sample)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        for key in ("1", "2"):
            await pilot.press(key)
            await pilot.pause()
        dirty: list[Region] = []
        rendered: Counter[str] = Counter()
        current: list[Widget] = []
        update_widgets, render_widget = Compositor.update_widgets, StylesCache.render_widget

        def spy_update(self: Compositor, widgets: set[Widget]) -> None:
            update_widgets(self, widgets)
            dirty.extend(self._dirty_regions)

        def spy_render_widget(self: StylesCache, widget: Widget, crop: Region) -> list[Strip]:
            current[:] = [widget]
            return render_widget(self, widget, crop)

        def count_row(_cache: StylesCache) -> None:
            rendered[type(current[0]).__name__ if current else "?"] += 1

        monkeypatch.setattr(Compositor, "update_widgets", spy_update)
        monkeypatch.setattr(StylesCache, "render_widget", spy_render_widget)
        count_styled_rows(monkeypatch, count_row)
        outline_pane, chapter_pane = screen.query_one("#pane-outline", Pane), screen.query_one("#pane-chapter", Pane)
        area = screen.chapter_view.text_area
        for key, focused in (("1", screen.outline), ("2", area), ("1", screen.outline), ("2", area)):
            dirty.clear()
            rendered.clear()
            await pilot.press(key)
            await pilot.pause()
            assert screen.focused is focused
            assert outline_pane.shows_focused == (key == "1") and chapter_pane.shows_focused == (key == "2")
            borders = _border_strips(outline_pane) + _border_strips(chapter_pane)
            for region in dirty:
                assert any(strip.contains_region(region) for strip in borders), (region, dirty)
            assert dirty, "the border was not repainted"
            inside = sum(n for name, n in rendered.items() if name != "Pane")
            assert inside <= 1, rendered  # the text area's (hidden) cursor line at most


async def test_pane_switch_between_the_side_panes_repaints_their_borders_only(
    sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(sample)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        await pilot.press("3")
        await pilot.pause()
        dirty: list[Region] = []
        update_widgets = Compositor.update_widgets

        def spy_update(self: Compositor, widgets: set[Widget]) -> None:
            update_widgets(self, widgets)
            dirty.extend(self._dirty_regions)

        monkeypatch.setattr(Compositor, "update_widgets", spy_update)
        await pilot.press("4")
        await pilot.pause()
        assert screen.focused is screen.scores_view
        borders = _border_strips(screen.query_one("#pane-diff", Pane)) + _border_strips(
            screen.query_one("#pane-scores", Pane))
        assert dirty and all(any(strip.contains_region(r) for strip in borders) for r in dirty), dirty


def _drawn(widget: Widget) -> list[list[tuple[str, object]]]:
    """The widget's lines as drawn with the styles of its current focus state (restyled first: the studio
    skips the restyle on focus changes precisely because it must make no difference)."""
    widget.app.update_styles(widget, animate=False)
    widget.refresh()
    width, height = widget.size
    return [[(segment.text, segment.style) for segment in strip] for strip in widget.render_lines(
        Region(0, 0, width, height))]


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
async def test_the_panes_widgets_look_the_same_focused_or_not(sample: Path, theme: str) -> None:
    """The focus is shown by the pane (accent border and title), so the outline, the chapter text and the
    diff and scores panes are drawn alike with and without it; otherwise a pane switch would have to repaint
    them whole (Tree's and TextArea's own `:focus` looks are overridden)."""
    app = make_app(sample)
    async with app.run_test(size=(160, 48)) as pilot:
        app.theme = theme
        await pilot.pause()
        screen = main_screen(app)
        for widget in (screen.outline, screen.chapter_view.text_area, screen.diff_view, screen.scores_view):
            screen.set_focus(None)
            await pilot.pause()
            blurred = _drawn(widget)
            screen.set_focus(widget)
            await pilot.pause()
            assert widget.has_focus and widget.has_pseudo_class("focus")
            focused = _drawn(widget)
            assert focused == blurred, type(widget).__name__
            if widget in (screen.outline, screen.chapter_view.text_area):  # the others draw their body inside
                assert any(text.strip() for line in focused for text, _ in line)  # something was drawn
