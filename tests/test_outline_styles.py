"""The outline keeps its drawn lines across focus changes (`OutlineTree.notify_style_update`), never across a
change of styles: a line drawn in any focus state is redrawn when the styles it was drawn with change."""

from __future__ import annotations

from studio.views.outline_rows import ChapterRow, ChapterStatus, VolumeRow
from tests.tui_helpers import WidgetApp
from widgets.outline_tree import OutlineTree


def _rows() -> list[VolumeRow]:
    chapters = [ChapterRow(number=n, title=f"第{n}章的标题", word_count=3000 + n, overall=4.0,
                           status=ChapterStatus.COMMITTED) for n in range(1, 6)]
    return [VolumeRow(number=1, title="子时灯", chapters=chapters)]


class Unfocused(WidgetApp[OutlineTree]):
    """The tree mounted without the focus (as the outline is when the chapter pane starts focused)."""

    AUTO_FOCUS = None


def _styles(tree: OutlineTree) -> list[object]:
    return [segment.style for y in range(3) for segment in tree.render_line(y)]


async def test_lines_drawn_while_focused_are_redrawn_after_a_theme_change() -> None:
    """Regression: the tree remembered the styles of a focus state only when a style update came in that
    state; the focus moves without one (`QuietFocus`), so lines drawn while focused were kept after a theme
    change that arrived while focused ("a state it never recorded" was taken as unchanged)."""
    tree = OutlineTree(_rows(), id="outline")
    app = Unfocused(tree)
    app.theme = "textual-dark"
    async with app.run_test(size=(80, 12)) as pilot:
        await pilot.pause()
        assert not tree.has_focus
        tree.focus()
        await pilot.pause()
        assert tree.has_focus
        tree.refresh()
        await pilot.pause()  # lines drawn (and cached) in the focused state
        before = _styles(tree)
        app.theme = "textual-light"
        await pilot.pause()
        after = _styles(tree)
        assert before != after
