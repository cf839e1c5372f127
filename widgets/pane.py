"""A bordered, titled pane of the main screen, and the look that says it holds the focus.

The focused pane has the accent border (class `-focused`, styled in `screens/main_screen.tcss`) and its title
in the accent colour. A pane switch is the studio's most frequent key, so showing it must cost little:
`Pane.show_focused` restyles the pane alone and repaints its border cells, never the widgets inside it.

Rules:
- No rule below a pane may depend on `-focused`: the pane's children are not restyled when it changes.
- The title's colour lives in the title itself (`[$text-accent]大纲`), not in `border-title-color` or
  `border-title-style`: Textual repaints every child of a node whose title colour or style rule changes.
- While `show_focused` runs, a whole-pane repaint asked by the restyle (the border rule, the title) is narrowed
  to the four border strips: nothing inside the border changed.
"""

from __future__ import annotations

from typing import Self

from textual.containers import Vertical
from textual.content import Content
from textual.dom import DOMNode
from textual.geometry import Region
from textual.widget import Widget

FOCUSED_CLASS = "-focused"
FOCUSED_TITLE_STYLE = "$text-accent"


class Pane(Vertical):
    """A bordered, titled pane; `show_focused(flag)` moves the focused look to or from it."""

    def __init__(self, name: str, title: str) -> None:
        super().__init__(id=f"pane-{name}", classes="pane")
        self.pane_name = name
        self.title_text = title
        """The plain title (the border title carries the focused colour as markup)."""
        self._border_only = False
        self.border_title = Content(title)

    @property
    def shows_focused(self) -> bool:
        return self.has_class(FOCUSED_CLASS)

    def show_focused(self, focused: bool) -> None:
        """Give or take the focused look: the accent border and title, repainting only the border."""
        if focused == self.shows_focused:
            return
        self._border_only = True
        try:
            self.set_class(focused, FOCUSED_CLASS, update=False)  # `update=True` would restyle the subtree
            if self.is_attached:
                self.app.stylesheet.update_nodes([self], animate=False)
            self.border_title = Content.styled(self.title_text, FOCUSED_TITLE_STYLE) if focused else Content(
                self.title_text
            )
        finally:
            self._border_only = False

    def border_regions(self) -> list[Region]:
        """The four border strips, in the coordinates `refresh` takes (relative to the content area)."""
        ox, oy = self.content_offset
        width, height = self.outer_size
        return [
            Region(-ox, -oy, width, 1),
            Region(-ox, height - 1 - oy, width, 1),
            Region(-ox, -oy, 1, height),
            Region(width - 1 - ox, -oy, 1, height),
        ]

    def refresh(
        self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False
    ) -> Self:
        if self._border_only and not (regions or layout or recompose) and self.is_mounted:
            regions = tuple(self.border_regions())
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)


def pane_of(widget: Widget | None) -> Pane | None:
    """The pane that holds `widget` (None: not in a pane)."""
    node: DOMNode | None = widget
    while node is not None:
        if isinstance(node, Pane):
            return node
        node = node.parent
    return None


__all__ = ["FOCUSED_CLASS", "Pane", "pane_of"]
