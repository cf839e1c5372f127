"""A scroll view's new virtual size (its scrollable content) without a layout of the whole screen.

Textual's `Widget.virtual_size` is a reactive with `layout=True`: every change lays out the whole screen (about
8 ms at 160x48 with the studio's four panes): each draft flush that adds a line to the chapter text, and each
chapter selection (the new text, state diff and scores), twice. Yet a `ScrollView` whose size comes from its
CSS (`height: 1fr`) keeps its region whatever it holds: only its scroll limits and scrollbar depend on it.

`set_virtual_size(view, size)` updates exactly those, as Textual does for a scroll view after a layout
(`ScrollView._size_updated`):
- the scrollbars' windows, and the scroll offsets clamped to the new limits;
- a view anchored to its end (`Widget.anchor`, the reader has not scrolled away) scrolls to the new end, as
  the compositor does for it during a layout;
- a scrollbar that appears or goes takes its column from the view alone (`compat.update_scroll_limits`: the
  view's content region and bars re-placed in the compositor's map, no layout of the screen); a view whose size
  may depend on its bars (an `auto` dimension), or one pinned to its end, lays the screen out once as in Textual.

Repainting the content is the caller's: only it knows which lines changed (`ScrollView.refresh_lines`; a
scroll repaints the view by itself). Before the view has been laid out it sets the reactive as Textual does.
Rely on it only for views whose region does not depend on their content (never `height: auto`).
"""

from __future__ import annotations

from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.widget import Widget

from widgets import compat


def set_virtual_size(view: ScrollView, size: Size) -> None:
    """Give `view` a new virtual size without a layout of the screen (see the module's rules for the exceptions)."""
    if size == view.virtual_size:
        return
    if not view.is_mounted or not view.container_size:
        view.virtual_size = size  # not laid out yet: the first layout measures it anyway
        return
    view.set_reactive(Widget.virtual_size, size)
    compat.update_scroll_limits(view, size)  # scrollbars shown or hidden (in place), clamped offsets
    if compat.pinned_to_end(view):
        end = size.height - (view.container_size.height - view.scrollbar_size_horizontal)
        view.scroll_y = end  # validated: 0 when it all fits
        view.scroll_target_y = view.scroll_y


__all__ = ["set_virtual_size"]
