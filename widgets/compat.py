"""Every private Textual API the studio relies on, in one place (checked against Textual 8.2).

When Textual changes, this is the only module to fix. Each function says which private name it touches and why
there is no public way.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

from rich.align import Align
from rich.cells import cell_len
from rich.console import Console
from rich.segment import Segment
from rich.text import Text
from textual._compositor import ChopsUpdate, Compositor, MapGeometry
from textual._segment_tools import line_pad
from textual._styles_cache import StylesCache
from textual._wrap import compute_wrap_offsets
from textual.app import App
from textual.binding import Binding
from textual.command import CommandList, CommandPalette
from textual.document._wrapped_document import WrappedDocument
from textual.dom import DOMNode
from textual.events import Resize, Show
from textual.expand_tabs import get_tab_widths
from textual.geometry import Region, Size
from textual.keys import _normalize_key_list
from textual.notifications import Notification, Notify
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import TextArea, Tree
from textual.widgets._footer import FooterKey
from textual.widgets._toast import Toast
from textual.widgets.option_list import Option
from textual.widgets.tree import TreeNode


def normalize_keys(keys: str) -> str:
    """`textual.keys._normalize_key_list`: the canonical form of a binding's key list ("a,B" style)."""
    return _normalize_key_list(keys)


def update_scroll_limits(widget: Widget, virtual_size: Size) -> None:
    """`Widget._scroll_update`: after a new virtual size, show or hide the scrollbars, set their windows and
    clamp the scroll offsets, as a layout does; the public way (`virtual_size = ...`) lays out the screen.

    A scrollbar that appears or goes lays out the whole screen in Textual (`show_vertical_scrollbar` and the
    bar's `display` ask for a layout): 8-15 ms of CPU and 2-3 frames at 160x48. When the widget's outer size
    cannot depend on its scrollbars (no `auto` dimension) it is re-arranged alone instead
    (`rearrange_scrollbars`): its content region and its bars placed in the compositor's map exactly as a
    layout would place them, and the widget repainted. Watchers still run (TextArea re-wraps one cell
    narrower in its `_watch_show_vertical_scrollbar`, as in a layout)."""
    if not REARRANGE_IN_PLACE or widget in _rearranging or not _rearrangeable(widget):
        widget._scroll_update(virtual_size)
        return
    shown = (widget.show_vertical_scrollbar, widget.show_horizontal_scrollbar)
    pending = {node for node in _scrollbar_nodes(widget) if node._layout_required}
    _rearranging.add(widget)  # a watcher may come back here (TextArea: re-wrap, new virtual size)
    try:
        widget._scroll_update(virtual_size)
    finally:
        _rearranging.discard(widget)
    for node in _scrollbar_nodes(widget):  # the layouts the toggle asked for (none asked before it)
        if node not in pending:
            node._layout_required = False
    if (widget.show_vertical_scrollbar, widget.show_horizontal_scrollbar) != shown and not rearrange_scrollbars(
        widget
    ):
        widget.refresh(layout=True)


REARRANGE_IN_PLACE = True
"""False: a scrollbar toggle lays out the screen, as in Textual (tests compare the two ways' frames)."""

_rearranging: set[Widget] = set()
"""The widgets whose scroll limits `update_scroll_limits` is updating (a watcher's call inside is Textual's)."""


def _rearrangeable(widget: Widget) -> bool:
    return (
        widget.is_mounted
        and widget.container_size != Size(0, 0)
        and not widget.styles.auto_dimensions  # its outer size may depend on its scrollbars
        and not widget.loading
        and widget._cover_widget is None
        and widget._render_widget is widget
        and not pinned_to_end(widget)  # the compositor scrolls it to its end while arranging
    )


def _scrollbar_nodes(widget: Widget) -> list[Widget]:
    """The widget and the scrollbars it has made (`Widget._vertical_scrollbar` etc., made on first use)."""
    bars = (widget._vertical_scrollbar, widget._horizontal_scrollbar, widget._scrollbar_corner)
    return [widget, *(bar for bar in bars if bar is not None)]


def rearrange_scrollbars(widget: Widget) -> bool:
    """Place `widget`'s content region and scrollbars in its screen's compositor map after its scrollbars
    appeared or went, as `Compositor._arrange_root` places a scrollable non-container widget (private:
    `Screen._compositor`, `Compositor._full_map`, `_visible_map`, `_dirty_regions` and the caches derived from
    the map, `Widget._arrange_scrollbars`, `Widget._get_scrollable_region`, `Widget._size_updated`), and
    repaint it. Its outer region is unchanged (the caller checks its size cannot depend on them), so nothing
    else on the screen moves. False: it is in no map (not laid out yet); lay it out."""
    try:
        compositor = widget.screen._compositor
    except Exception:  # NoScreen and the like: not on a screen
        return False
    maps = [m for m in (compositor._full_map, compositor._visible_map) if m is not None and widget in m]
    if not maps:
        return False
    bars = set(_scrollbar_nodes(widget)[1:])
    shown: dict[Widget, tuple[MapGeometry, bool]] = {}
    """The bars placed anew or resized: their geometry, and True for those placed anew."""
    for index, old_map in enumerate(maps):
        region, order, clip, _, container_size, virtual_region, dock_gutter = old_map[widget]
        container_region = region.shrink(widget.styles.gutter)
        placed: dict[Widget, MapGeometry] = {}  # the bars before the widget: they are drawn over it
        if (widget.show_vertical_scrollbar or widget.show_horizontal_scrollbar) and (
            widget.styles.scrollbar_visibility == "visible"
        ):
            for bar, bar_region in widget._arrange_scrollbars(container_region):
                placed[bar] = MapGeometry(
                    bar_region, order, clip, container_size, container_size, bar_region, dock_gutter
                )
                if index == 0 and (bar not in old_map or old_map[bar].region.size != bar_region.size):
                    shown[bar] = (placed[bar], bar not in old_map)
        content = widget._get_scrollable_region(container_region)
        placed[widget] = MapGeometry(
            region, order, clip, content.size, container_size, virtual_region, dock_gutter
        )
        new_map: dict[Widget, MapGeometry] = {}
        for node, geometry in old_map.items():
            if node is widget:
                new_map.update(placed)
            elif node not in bars:
                new_map[node] = geometry
        old_map.clear()
        old_map.update(new_map)
        if region_shown := region.intersection(clip):
            compositor._dirty_regions.add(region_shown)
    compositor._cuts = None
    compositor._layers = None
    compositor._layers_visible = None
    compositor._visible_widgets = None
    for bar, (geometry, new) in shown.items():  # as `Screen._refresh_layout` sizes and tells a bar shown or resized
        bar._size_updated(geometry.region.size, geometry.virtual_size, geometry.container_size, layout=False)
        bar.post_message(Resize(geometry.region.size, geometry.virtual_size, geometry.container_size))
        if new:
            bar.post_message(Show())
    widget.refresh()
    return True


def export_screenshot(app: App[Any], *, title: str | None = None, simplify: bool = False) -> str:
    """`App.export_screenshot`'s SVG, without rendering the screen to ANSI on the way (private:
    `Screen._compositor`, `App._background_screens`). Textual prints the frame to a truecolor console to record
    it, and rich keeps a style's ANSI codes on the style (`Style._ansi`) whatever the colour system; the styles
    are shared with the terminal's frames (rich caches parsed and combined styles), so after a screenshot a
    256-colour terminal was sent 24-bit colours. The SVG is made from the recorded segments alone, so a console
    with no colour system records the same SVG, byte for byte (tested)."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True, color_system=None,
                      record=True, legacy_windows=False, safe_box=False)
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens,
                                                      simplify=simplify))
    return console.export_svg(title=title or app.title)


def pinned_to_end(widget: Widget) -> bool:
    """`Widget._anchored` and not `Widget._anchor_released`: anchored and not scrolled away by the reader (the
    compositor then keeps it at its end); `is_anchored` says only the first."""
    return widget._anchored and not widget._anchor_released


def key_bindings(node: DOMNode) -> dict[str, list[Binding]]:
    """`DOMNode._bindings.key_to_bindings`: a node's bindings by key, after `App.set_keymap` remapped them."""
    return node._bindings.key_to_bindings


def rewrite_bindings(node: DOMNode, rewrite: Callable[[Binding], Binding]) -> None:
    """Replace each of a node's bindings with `rewrite(binding)` (localised descriptions); no public setter."""
    table = node._bindings.key_to_bindings
    for key, bindings in table.items():
        table[key] = [rewrite(b) for b in bindings]


def keymap(app: App[Any]) -> dict[str, str]:
    """`App._keymap`: binding id -> keys, as set by `App.set_keymap` (normalised)."""
    return dict(app._keymap)


def post_notification(app: App[Any], notification: Notification) -> None:
    """Show a `Notification` built by the caller (so it can be withdrawn later with `withdraw_notification`)."""
    app.post_message(Notify(notification))


def withdraw_notification(app: App[Any], notification: Notification) -> None:
    """`App._unnotify`: take back a notification still on screen; a dismissed one is ignored."""
    try:
        app._unnotify(notification)
    except KeyError:
        pass


def notifications(app: App[Any]) -> list[Notification]:
    """`App._notifications`: the notifications shown so far (tests and benches read them)."""
    return list(app._notifications)


# ---------------------------------------------------------------------------------------------- whole toasts

_ORIGINAL_CUTS = Compositor.cuts


def _cuts_keeping_toasts_whole(self: Compositor) -> list[list[int]]:
    """`Compositor.cuts` without the cuts inside a toast's region.

    The compositor splits every screen line at the edge of every visible widget (the "cuts"), splits each
    widget's line there too (`Strip.divide`) and writes each piece at its cut; a double-width character that
    straddles a cut is replaced by two spaces (rich's `Segment.divide`). A toast drawn over the panes was cut
    at the panes' borders, so Chinese text in it got holes at 100+ columns. Nothing is drawn above a toast (its
    layer is the top one), so every piece inside its region comes from the toast: the cuts there can go.
    One kind needs care: a widget that starts inside the toast and reaches out past its right edge (the pane
    on the right, past the toast's margin). The compositor places a widget's pieces from its first cut on, so
    such a widget keeps a cut inside the toast: in the toast's right padding, where no character can straddle it
    (or at the widget's own edge when the toast has no right padding)."""
    cuts: list[list[int]] = _ORIGINAL_CUTS.fget(self)  # type: ignore[attr-defined]
    if self.__dict__.get("_whole_toasts_for") is cuts:
        return cuts
    visible = [region.intersection(clip) for region, clip in self.visible_widgets.values()]
    for widget, (region, clip) in self.visible_widgets.items():
        if not isinstance(widget, Toast):
            continue
        x, y, width, height = region.intersection(clip)
        if not (width and height):
            continue
        right = x + width
        padded = widget.styles.padding.right >= 1
        for line_y in range(y, min(y + height, len(cuts))):
            keep: set[int] = set()
            for other in visible:
                if other.y <= line_y < other.y + other.height and x < other.x < right < other.x + other.width:
                    keep.add(max(other.x, right - 1) if padded else other.x)
            line = cuts[line_y]
            line[:] = sorted({cut for cut in line if not x < cut < right} | keep)
    self.__dict__["_whole_toasts_for"] = cuts
    return cuts


def keep_toasts_whole() -> None:
    """Install `_cuts_keeping_toasts_whole` as `Compositor.cuts` (`textual._compositor`, private; idempotent).
    The App calls it once at start-up."""
    Compositor.cuts = property(_cuts_keeping_toasts_whole)  # type: ignore[method-assign,assignment]


# ---------------------------------------------------------------------------------------------- lean repaints

class LeanCompositor(Compositor):
    """`Compositor` whose partial updates render only what they write.

    Textual's `render_partial_update` takes the box around every dirty region, renders every widget that
    overlaps the box, and splits all of their lines at every cut (`_render_chops`), although it writes only the
    dirty spans. A pane switch dirties the two panes' border columns: their box is the whole height of both
    panes, so the outline, the chapter text (TextArea renders each line it is asked for), their containers and
    scrollbars were all rendered and split on every line: about 16 ms of the 30 ms a pane switch cost.

    Here a widget is rendered only where its visible region meets a dirty region, and only those lines are
    split. What is written is the same: `ChopsUpdate` writes the dirty spans alone, and every piece of a dirty
    span comes from a widget that covers it, which therefore meets the dirty region on that line (cuts are at
    every widget's edges, so a widget covers a piece whole or not at all). Full updates are Textual's own."""

    def render_partial_update(self) -> ChopsUpdate | None:
        """`Compositor.render_partial_update` (private names: `_dirty_regions`, `_regions_to_spans`, `cuts`)
        with `_lean_chops` for `_render_chops`."""
        update_regions = self._dirty_regions.copy()
        self._dirty_regions.clear()
        if not update_regions:
            return None
        screen = self.size.region
        dirty = [region for region in (r.intersection(screen) for r in update_regions) if region]
        if not dirty:
            return None
        spans = list(self._regions_to_spans(dirty))
        chops = self._lean_chops(dirty)
        chop_ends = [cut_set[1:] for cut_set in self.cuts]
        return ChopsUpdate(chops, spans, chop_ends)

    def _lean_chops(self, dirty: list[Region]) -> list[dict[int, Strip | None]]:
        """`Compositor._render_chops` for the pieces the update writes: front to back, each widget renders the
        lines where a piece of a dirty span that no widget above it filled lies in its region, and crops
        those pieces alone from them (`Strip.crop`, where Textual divided every line at every cut)."""
        cuts = self.cuts
        chops: list[dict[int, Strip | None]] = [dict.fromkeys(cut_set[:-1]) for cut_set in cuts]
        pending: dict[int, dict[int, int]] = {}
        # line -> {cut: the next cut} of the pieces still to fill (a piece meets a dirty span on its line); a widget
        # fills the pieces that lie whole in its region (as `_render_chops`: a piece that runs past a widget's
        # right edge, where a toast took the cut away, is not that widget's)
        for y, x1, x2 in self._regions_to_spans(dirty):
            line_cuts = cuts[y]
            for cut, end in zip(line_cuts, line_cuts[1:], strict=False):
                if cut < x2 and end > x1:
                    pending.setdefault(y, {})[cut] = end
        for widget, (region, clip) in self.visible_widgets.items():  # front to back: the first piece wins
            if not pending:
                break
            shown = region.intersection(clip)
            if not shown:
                continue
            first_cut, last_cut = shown.column_span
            rows = [
                y for y in range(shown.y, shown.y + shown.height)
                if (line := pending.get(y)) is not None
                and any(first_cut <= cut and end <= last_cut for cut, end in line.items())
            ]
            if not rows:
                continue
            top = rows[0]
            strips = widget.render_lines(Region(shown.x - region.x, top - region.y, shown.width, rows[-1] + 1 - top))
            for y in rows:
                if y - top >= len(strips):
                    break
                strip = strips[y - top]
                line = pending[y]
                for cut, end in [(cut, end) for cut, end in line.items() if first_cut <= cut and end <= last_cut]:
                    chops[y][cut] = strip.crop(cut - first_cut, end - first_cut)
                    del line[cut]
                if not line:
                    del pending[y]
        return chops


def wrap_fitting(wrapped: WrappedDocument, width: int, tab_width: int) -> None:
    """`WrappedDocument.wrap` (its private tables, Textual 8.2), except that a line that cannot be wider than
    `width` (no tab, at most `width // 2` characters: a character is 2 cells at most) is not measured: it has
    no break. The chapter pane's lines are typeset to fit its width, so TextArea measured each of a new
    chapter's ~150 lines (`compute_wrap_offsets`, about 1 ms) to find no break. Same tables as `wrap`."""
    if width <= 0:
        wrapped.wrap(width, tab_width)
        return
    wrapped._width = width
    if tab_width:
        wrapped._tab_width = tab_width
    tab_size = wrapped._tab_width
    fits = width // 2
    wrap_offsets: list[list[int]] = []
    offset_to_line_info: list[tuple[int, int]] = []
    line_index_to_offsets: list[list[int]] = []
    line_tab_widths: list[list[int]] = []
    y = 0
    for index, line in enumerate(wrapped.document.lines):
        if len(line) <= fits and "\t" not in line:
            offsets: list[int] = []
            line_tab_widths.append([0] if line else [])  # `get_tab_widths` of a line without a tab
        else:
            sections = get_tab_widths(line, tab_size)
            offsets = compute_wrap_offsets(line, width, tab_size=tab_size, precomputed_tab_sections=sections)
            line_tab_widths.append([tab for _, tab in sections])
        wrap_offsets.append(offsets)
        rows = len(offsets) + 1
        line_index_to_offsets.append(list(range(y, y + rows)))
        offset_to_line_info.extend((index, section) for section in range(rows))
        y += rows
    wrapped._wrap_offsets = wrap_offsets
    wrapped._offset_to_line_info = offset_to_line_info
    wrapped._line_index_to_offsets = line_index_to_offsets
    wrapped._tab_width_cache = line_tab_widths


def rewrap_fitting(area: TextArea) -> None:
    """`TextArea._rewrap_and_refresh_virtual_size` (private, Textual 8.2: a new text and a resize call it) with
    `wrap_fitting`; it clears the private line cache as the original does."""
    wrapped_document = area.wrapped_document
    wrap_fitting(wrapped_document, area.wrap_width, area.indent_width)
    area._line_cache.clear()
    area._refresh_size()


def plain_text_line(area: TextArea, y: int) -> Strip | None:
    """`TextArea._render_line(y)` of a reader's plain line, built straight from the document's line: no cursor,
    selection, highlighting, line numbers, suggestion or placeholder, soft wrap on and the line not wrapped (the
    chapter pane's lines are typeset to fit), no tab. The same segments as Textual's (tests compare them for
    every row), without its rich `Text`, its render and three intermediate strips (each with seven caches):
    about a third of the cost of drawing a new chapter's 43 rows at 160x48. None: draw it Textual's way.
    (`PlainRows`: the same, with what does not change from row to row read once.)"""
    rows = PlainRows.of(area)
    return rows.line(y) if rows is not None else None


class PlainRows:
    """The plain rows of a `TextArea` as it is now (`plain_text_line`), what they share read once: a frame's
    rows are drawn with one `PlainRows` (TextArea's `render_line` builds a 25-part cache key of reactives per row).
    Private names: `TextArea._theme` (the theme object), `WrappedDocument._offset_to_line_info` (row -> line).

    `made`: a row already built for the same line text, width and styles (a chapter shown again, a row
    scrolled back into view) is the same `Strip` (`line(y)` looks it up and stores new ones there)."""

    __slots__ = ("_area", "_base_style", "_blank_style", "_made", "_rows", "_scroll_y", "_width", "_wrapped")

    def __init__(self, area: TextArea, made: dict[tuple[str, int, Any, Any], Strip] | None = None) -> None:
        self._area = area
        wrapped = area.wrapped_document
        self._wrapped = wrapped
        self._rows = wrapped._offset_to_line_info
        self._scroll_y = area.scroll_offset.y
        theme = area._theme
        self._base_style = theme.base_style if theme and theme.base_style is not None else area.rich_style
        self._blank_style = theme.base_style if theme else None
        self._width = area.scrollable_content_region.size.width - area.gutter_width
        self._made = made

    @classmethod
    def of(cls, area: TextArea, made: dict[tuple[str, int, Any, Any], Strip] | None = None) -> PlainRows | None:
        """The plain rows of `area`, or None when none is plain (a cursor, a selection, line numbers...)."""
        if (area.show_cursor or area.show_line_numbers or not area.soft_wrap or area.language is not None
                or area.suggestion or area.placeholder or not area.selection.is_empty):
            return None
        return cls(area, made)

    def line(self, y: int) -> Strip | None:
        """Row `y` of the view (0 = the top row shown), or None: draw it Textual's way."""
        rows = self._rows
        row = self._scroll_y + y
        if not 0 <= row < len(rows):
            return None
        line_index, section = rows[row]
        if section or self._wrapped.get_offsets(line_index):
            return None
        text = self._area.document.get_line(line_index)
        if "\t" in text:
            return None
        made = self._made
        if made is not None:
            key = (text, self._width, self._base_style, self._blank_style)
            strip = made.get(key)
            if strip is None:
                strip = made[key] = self._build(text)
            return strip
        return self._build(text)

    def _build(self, text: str) -> Strip:
        segments = [Segment(text + " ")]  # the cursor's room at the line's end, as TextArea draws it
        cells = cell_len(text) + 1
        width = self._width
        if cells < width:
            segments.append(Segment(" " * (width - cells), self._blank_style))
            cells = width
        return Strip(Segment.apply_style(segments, self._base_style), cells)


class PlainRowStyles(StylesCache):
    """`StylesCache` (private: `textual._styles_cache`) that styles the content rows of a widget drawn with no
    border, outline, hatch, tint or opacity the short way, with the same result.

    Textual's `StylesCache.render_line` reads the widget's border, outline, gutter, hatch and tint again for
    every row and builds two closures and a few styles, although for such a widget a content row is only the
    content line fitted to the content width and padded left and right with the background (about 60 us per
    row: most of what drawing a new chapter's 43 rows cost at 160x48). Here those are read once per
    `render` call; a row of any other kind (a border, a padding row above or below, an outline, a tint, any
    opacity) is Textual's own."""

    def __init__(self) -> None:
        super().__init__()
        self._plain_gutter: tuple[int, int] | None = None
        """(top, bottom) gutter rows while the widget being rendered qualifies (None: Textual's way)."""

    def render(self, styles: Any, size: Size, *args: Any, **kwargs: Any) -> list[Strip]:
        opacity = kwargs.get("opacity", 1.0)
        plain = (
            opacity == 1.0
            and styles.text_opacity == 1.0
            and not styles.tint.a
            and not (styles.has_rule("hatch") and styles.hatch != "none")
            and not any(edge for edge, _color in styles.border)
            and not any(edge for edge, _color in styles.outline)
        )
        gutter = styles.gutter
        self._plain_gutter = (gutter.top, gutter.bottom) if plain else None
        try:
            return super().render(styles, size, *args, **kwargs)
        finally:
            self._plain_gutter = None

    def render_line(  # the same arguments as `StylesCache.render_line`, positional as `render` passes them
        self, styles: Any, y: int, size: Size, content_size: Size, padding: Any, base_background: Any,
        background: Any, render_content_line: Callable[[int], Strip], *rest: Any,
    ) -> Strip:
        plain = self._plain_gutter
        if plain is None or y < plain[0] or y >= size.height - plain[1]:
            return super().render_line(
                styles, y, size, content_size, padding, base_background, background, render_content_line, *rest)
        inner, _outer = self.get_inner_outer(base_background, background)
        content_width, content_height = content_size
        style = inner.rich_style
        content_y = y - plain[0]
        if content_y < content_height:
            line = render_content_line(content_y)
            cells = line.cell_length
            if cells < content_width:  # `Strip.adjust_cell_length`'s padding, without its intermediate strip
                segments = [*line, Segment(" " * (content_width - cells), style)]
            else:
                segments = list(line.adjust_cell_length(content_width, style))
        else:
            segments = [Segment(" " * content_width, style)]  # `Strip.blank`'s one segment
        pad_left, pad_right = padding.left, padding.right
        return Strip(line_pad(segments, pad_left, pad_right, style) if pad_left or pad_right else segments, size.width)


def use_plain_row_styles(widget: Widget) -> None:
    """`Widget._styles_cache` (private, no public way to choose it): style `widget`'s rows with
    `PlainRowStyles`. Call it in the widget's constructor."""
    widget._styles_cache = PlainRowStyles()


def use_lean_compositor(screen: Screen[Any]) -> None:
    """`Screen._compositor` (private, no public way to choose it): give a screen, before it is mounted, a
    `LeanCompositor`."""
    screen._compositor = LeanCompositor()


def screen_lines(screen: Screen[Any]) -> list[str]:
    """`Screen._compositor.render_strips`: the screen's lines as plain text, as the terminal would show them
    (tests look for holes in wide text)."""
    return [strip.text for strip in screen._compositor.render_strips()]


def set_tree_label_quietly(node: TreeNode[Any], label: Text) -> None:
    """`TreeNode._label`: give a node the label it is being drawn with, from inside `Tree.render_label`.
    `TreeNode.set_label` also schedules a repaint of the node's line: drawn twice (the outline builds its
    labels when drawn: `widgets.outline_tree`)."""
    node._label = label


def clear_tree_line_cache(tree: Tree[Any]) -> None:
    """`Tree._clear_line_cache`: forget the drawn lines (their labels changed) without `Tree._invalidate`'s
    rebuild of the line table and repaint, which a tree about to draw needs neither of."""
    tree._clear_line_cache()


__all__ = [
    "rewrap_fitting",
    "wrap_fitting",
    "FooterKey",  # textual.widgets._footer (not exported): one key of `Footer`; `StudioFooter` builds its row
    "LeanCompositor",
    "PlainRowStyles",
    "PlainRows",
    "use_plain_row_styles",
    "clear_tree_line_cache",
    "keep_toasts_whole",
    "screen_lines",
    "use_lean_compositor",
    "keymap",
    "key_bindings",
    "plain_text_line",
    "LocalisedPalette",
    "normalize_keys",
    "notifications",
    "post_notification",
    "rewrite_bindings",
    "set_tree_label_quietly",
    "withdraw_notification",
]


# ---------------------------------------------------------------------------------------------- the terminal's input


def terminal_input_fd(app: App[Any]) -> int | None:
    """`App._driver`: the descriptor the terminal driver (`LinuxDriver`) reads keys from (its `fileno`); None
    headless, in a browser (`serve`'s driver reads a pipe and ends by itself at EOF) or on other platforms."""
    try:
        from textual.drivers.linux_driver import LinuxDriver
    except ImportError:  # no termios: not a POSIX terminal
        return None
    driver = app._driver
    return driver.fileno if isinstance(driver, LinuxDriver) else None


def stop_terminal_input(app: App[Any]) -> None:
    """`App._driver.disable_input()` (a public method of a private attribute): end the driver's input thread,
    which at EOF spins on `select` + `os.read` returning b"" until the app's teardown does the same. Call it on
    the App's loop (it restores SIGWINCH, which only the main thread may)."""
    driver = app._driver
    if driver is not None:
        driver.disable_input()


# ---------------------------------------------------------------------------------------------- the command palette


class LocalisedPalette(CommandPalette):
    """Textual's command palette whose "No matches found" line says `no_matches` (the UI's language).

    `CommandPalette._start_no_matches_countdown` (private) writes the English line inline, in a timer's closure;
    this is its body with our words (the same countdown, option id and style)."""

    def __init__(self, *, no_matches: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.no_matches = no_matches

    def _start_no_matches_countdown(self, search_value: str) -> None:
        self._stop_no_matches_countdown()

        def show_no_matches() -> None:
            if search_value:
                self.query_one(CommandList).add_option(
                    Option(Align.center(Text(self.no_matches, style="not bold")), disabled=True, id=self._NO_MATCHES)
                )
                self._list_visible = True
            else:
                self._list_visible = False  # discover mode: nothing to say

        self._no_matches_timer = self.set_timer(self._NO_MATCHES_COUNTDOWN, show_no_matches)
