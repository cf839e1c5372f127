"""Instant keys (issue 12): a pane switch does not rebuild the footer, scroll keys jump without animation,
`j`/`k` move in the outline and scroll the panes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.tui_helpers import main_screen, make_app
from widgets.instant_keys import StudioFooter


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
        if pane.max_scroll_y == 0:
            return  # nothing to scroll at this size
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
