"""Instant keys (issue 12): a pane switch does not rebuild the footer, restyles only the two panes and the
widgets that gain and lose the focus, and re-renders no outline line; scroll keys jump without animation,
`j`/`k` move in the outline and scroll the panes."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import pytest
from rich.text import Text
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode
from textual.widget import Widget
from textual.widgets import Tree

from studio.tui.heap import frozen_count, settle_heap
from tests.tui_helpers import main_screen, make_app
from widgets.instant_keys import StudioFooter
from widgets.pane import Pane


async def test_pane_switch_does_not_rebuild_the_footer(sample: Path) -> None:
    app = make_app(sample)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        footer = screen.query_one(StudioFooter)
        before = footer.recompose_count
        assert before >= 1  # it was built once
        for key in ("1", "2", "3", "4", "tab", "tab", "1"):
            await pilot.press(key)
            await pilot.pause()
        assert footer.recompose_count == before
        assert "写下一章" in "".join(str(k.render()) for k in footer.children)


async def test_pane_switch_restyles_the_panes_not_their_contents(
    sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`.pane:focus-within` made Textual restyle both panes' whole subtrees on every switch (the chapter pane's
    title, marks line, view...); now only the two panes are restyled, however many widgets the panes hold (the
    widgets whose focus changed look the same either way: `widgets.instant_keys.QuietFocus`). The focused pane
    still gets its accent border (the `-focused` class)."""
    app = make_app(sample)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        restyled: list[DOMNode] = []
        update_nodes = Stylesheet.update_nodes

        def spy(self: Stylesheet, nodes: Any, animate: bool = False) -> None:
            nodes = list(nodes)
            restyled.extend(nodes)
            update_nodes(self, nodes, animate=animate)

        monkeypatch.setattr(Stylesheet, "update_nodes", spy)
        outline, area = screen.outline, screen.chapter_view.text_area
        for key, focused, blurred in (("1", outline, area), ("2", area, outline)):
            restyled.clear()
            await pilot.press(key)
            await pilot.pause()
            assert screen.focused is focused
            panes = {screen.query_one("#pane-outline"), screen.query_one("#pane-chapter")}
            assert set(restyled) == panes, [type(n).__name__ for n in restyled]
            assert blurred.has_focus is False
            marked = [p.pane_name for p in screen.query(Pane) if p.has_class("-focused")]
            assert marked == ["outline" if focused is outline else "chapter"]


async def test_pane_switch_re_renders_no_outline_line(sample: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tree rebuilt its line table and re-rendered every line on any style update (focus moving in or out);
    its line cache is keyed by focus already, so once both looks were drawn a switch re-renders nothing
    (the cost grew with the number of chapters)."""
    app = make_app(sample)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        for key in ("1", "2"):  # draw both looks once
            await pilot.press(key)
            await pilot.pause()
        built: list[int] = []
        invalidated: list[int] = []
        build, invalidate = Tree._build, Tree._invalidate

        def spy_build(self: Tree[Any]) -> None:
            built.append(1)
            build(self)

        def spy_invalidate(self: Tree[Any]) -> None:
            invalidated.append(1)
            invalidate(self)

        monkeypatch.setattr(Tree, "_build", spy_build)
        monkeypatch.setattr(Tree, "_invalidate", spy_invalidate)
        cached = len(screen.outline._line_cache)
        for key in ("1", "2", "1", "2"):
            await pilot.press(key)
            await pilot.pause()
        assert built == [] and invalidated == []
        assert len(screen.outline._line_cache) == cached  # every line came from the cache
        assert screen.focused is screen.chapter_view.text_area


async def test_outline_redraws_when_the_theme_changes(sample: Path) -> None:
    """Keeping the outline's lines across focus changes must not keep them across a change of styles."""
    app = make_app(sample)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        for key in ("1", "2", "1"):
            await pilot.press(key)
            await pilot.pause()
        outline = screen.outline
        before = outline.render_line(0)
        app.theme = "textual-light" if app.theme != "textual-light" else "textual-dark"
        await pilot.pause()
        after = outline.render_line(0)
        assert [s.style for s in before] != [s.style for s in after]


async def test_page_keys_scroll_the_chapter_at_once(sample: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        area = screen.chapter_view.text_area
        animated: list[str] = []
        animate = app.animator.animate

        def spy(obj: Any, attribute: str, *args: Any, **kwargs: Any) -> None:
            animated.append(attribute)
            animate(obj, attribute, *args, **kwargs)

        monkeypatch.setattr(app.animator, "animate", spy)
        area.load_text("\n".join(f"第{i}段。" for i in range(300)))
        await pilot.press("2")
        await pilot.pause()
        assert area.scroll_y == 0
        await pilot.press("pagedown")
        # no animation: the new offset is there in the same frame, not 0.7 s later
        assert area.scroll_y > 5
        y = area.scroll_y
        await pilot.press("j")
        assert area.scroll_y == y + 1
        await pilot.press("k", "k")
        assert area.scroll_y == y - 1
        await pilot.press("pageup")
        assert area.scroll_y == 0
        assert "scroll_y" not in animated


async def test_j_and_k_move_in_the_outline(sample: Path) -> None:
    app = make_app(sample)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        await pilot.press("1")
        await pilot.pause()
        start = screen.outline.cursor_line
        await pilot.press("k")
        await pilot.pause()
        assert screen.outline.cursor_line == start - 1
        await pilot.press("j")
        await pilot.pause()
        assert screen.outline.cursor_line == start


async def test_j_and_k_scroll_the_scores_pane(sample: Path) -> None:
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        await pilot.press("4")
        await pilot.pause()
        pane = screen.scores_view
        # more than the pane holds at this size (it returned early when there was nothing to scroll, and so
        # never saw that `j`/`k` did not reach the pane: `InstantScroll`'s bindings were lost)
        pane.show_body(Text("\n".join(f"第{i}行" for i in range(60))))
        await pilot.pause()
        assert pane.has_focus and pane.max_scroll_y > 0
        await pilot.press("j")
        assert pane.scroll_y == 1
        await pilot.press("k")
        assert pane.scroll_y == 0


async def test_j_and_k_can_be_remapped_and_help_says_so(sample: Path) -> None:
    app = make_app(sample)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        app.set_keymap({"move_down": "w", "move_up": "b"})
        await pilot.press("1")
        await pilot.pause()
        start = screen.outline.cursor_line
        await pilot.press("b")
        await pilot.pause()
        assert screen.outline.cursor_line == start - 1
        rows = dict(screen.binding_rows())
        assert any("w" in key.split(",") and "b" in key.split(",") for key in rows)


def test_settle_heap_takes_what_is_alive_out_of_full_collections() -> None:
    """After start-up (and after a run) the studio freezes the heap, so a full collection inside a key press
    walks only what was made since (it walked ~140,000 objects, 100-150 ms, every few pane switches)."""
    kept = [object() for _ in range(10)]
    try:
        settle_heap()
        assert frozen_count() > len(kept)
        assert gc.get_freeze_count() == frozen_count()
    finally:
        gc.unfreeze()


async def test_a_headless_studio_never_freezes_the_heap(sample: Path) -> None:
    """Tests run many Apps in one process: freezing there would keep every test's widgets for good."""
    before = frozen_count()
    app = make_app(sample)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        await pilot.press("1")
        await pilot.pause()
    assert frozen_count() == before


async def test_selecting_a_chapter_does_not_lay_out_the_header_or_the_title(
    sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`Static.update` asks for a layout of the whole screen; the header (one or two lines, whatever it says)
    and the chapter title (one line) only repaint, on a chapter selection and on the header's ticking clock."""
    app = make_app(sample)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        screen = main_screen(app)
        await pilot.press("1")
        await pilot.pause()
        laid_out: list[str] = []
        refresh = Widget.refresh

        def spy(self: Widget, *regions: Any, **kwargs: Any) -> Widget:
            if kwargs.get("layout"):
                laid_out.append(self.id or type(self).__name__)
            return refresh(self, *regions, **kwargs)

        monkeypatch.setattr(Widget, "refresh", spy)
        before = screen.selected
        await pilot.press("k")
        await pilot.pause()
        assert screen.selected != before
        screen.header.start_stage("draft")
        screen.header.stop_stage()
        await pilot.pause()
        assert "studio-header" not in laid_out and "chapter-title" not in laid_out, laid_out
        assert f"第{screen.selected}章" in screen.header.plain()
        assert f"第{screen.selected}章" in screen.chapter_view.title
