"""Keys that answer at once: scrolling without animation, `j`/`k` in lists and panes, a footer that rebuilds
only when what it shows changes.

Measured (Textual 8.2, 2-core machine): PgUp/PgDn in a long `TextArea` animated for 0.7-0.9 s at 220-250 ms of
CPU per press (about 8 ms without the animation); `Footer` recomposes itself (about 25 widgets) on every focus
change, twice per pane switch, 150-200 ms of CPU per key, although its keys are the same in every pane.

- `InstantScroll`: a mixin for scrolling widgets whose keyboard scroll actions jump instead of animating.
- `ReaderArea`: the chapter pane's read-only `TextArea`: with no cursor shown, arrows, `j`/`k` and PgUp/PgDn
  scroll at once; no blinking (nothing to blink, and each blink was a frame written). Its plain rows are built
  straight from the document, what they share read once per frame, and reused for the same line text (a
  chapter selected again, a row scrolled back); its rows are styled once per frame (`compat.PlainRowStyles`).
- `JK_BINDINGS`: `j`/`k` as down/up, for lists (the outline) and panes.
- `QuietFocus`: a mixin for the panes' widgets, which look the same focused or not (the pane's border shows the
  focus): gaining or losing the focus repaints none of the widget. Textual's `Widget` repaints all of a widget
  on every focus and blur: the chapter text (43 lines at 160x48) and the outline, every pane switch.
- `StudioFooter`: Textual's `Footer` (same look, clickable keys) that recomposes only when the shown keys
  (key, description, enabled) differ from the last time. Its keys are in the order the screen declares them
  (a remapped key keeps its place; Textual moved it to the end), and it shows whole keys only: when they do
  not all fit its width, keys give way from the right end, one whole key at a time (hidden, not
  rebuilt, so a resize costs no recompose). The keys it keeps (the help key; quit) and the command palette's
  key never give way, so every hidden key stays reachable through help and the palette. Textual's own
  footer let the last keys run under the palette's key, cut mid-word ("r 审阅润▏^p 命令面板" at 80x24).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, ClassVar, cast

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.reactive import Reactive, reactive
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Footer, TextArea
from textual.widgets.text_area import Selection

from widgets.compat import FooterKey, PlainRows, plain_text_line, rewrap_fitting, use_plain_row_styles
from widgets.virtual_size import set_virtual_size

JK_BINDINGS: list[BindingType] = [
    Binding("j", "cursor_down", "Down", show=False, id="move_down"),
    Binding("k", "cursor_up", "Up", show=False, id="move_up"),
]
"""`j`/`k` in lists; the ids make them remappable (`[ui.keymap] move_down = "..."`) like the screen's keys."""


class InstantScroll:
    """Mixin: the keyboard's scroll actions of a scrolling widget, without animation, and `j`/`k`.

    Textual merges the `BINDINGS` of `DOMNode` classes only, so a mixin's own were lost (`j`/`k` did not
    scroll the diff and scores panes): each subclass that declares none gets these as its own."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "scroll_down", "Down", show=False, id="move_down"),
        Binding("k", "scroll_up", "Up", show=False, id="move_up"),
    ]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "BINDINGS" not in cls.__dict__:
            cls.BINDINGS = list(InstantScroll.BINDINGS)

    def action_scroll_up(self) -> None:
        self.scroll_up(animate=False)  # type: ignore[attr-defined]

    def action_scroll_down(self) -> None:
        self.scroll_down(animate=False)  # type: ignore[attr-defined]

    def action_page_up(self) -> None:
        self.scroll_page_up(animate=False)  # type: ignore[attr-defined]

    def action_page_down(self) -> None:
        self.scroll_page_down(animate=False)  # type: ignore[attr-defined]

    def action_scroll_home(self) -> None:
        self.scroll_home(animate=False)  # type: ignore[attr-defined]

    def action_scroll_end(self) -> None:
        self.scroll_end(animate=False)  # type: ignore[attr-defined]


class QuietFocus:
    """Mixin for a widget whose look does not depend on the focus (listed before its widget base): gaining or
    losing the focus neither repaints nor restyles it. `Widget` repaints all of a widget on every focus and
    blur, and restyles it (Tree: its 7 component classes), although nothing it shows changes. The widget's
    CSS must give `:focus` the same look as without (tests draw each such widget both ways and compare).
    (A plain mixin: a `Widget` subclass here would cut the widget's component classes.)"""

    def watch_has_focus(self, _has_focus: bool) -> None:
        """`Widget.watch_has_focus` restyles the widget and its scrollbars: not needed, the look is the same."""

    def on_focus(self, event: events.Focus) -> None:
        event.prevent_default()  # the handlers of the classes after this one (`Widget._on_focus`) are skipped
        widget = cast(Widget, self)
        widget.has_focus = True
        if widget.parent is not None:
            widget.parent.post_message(events.DescendantFocus(widget))

    def on_blur(self, event: events.Blur) -> None:
        event.prevent_default()
        widget = cast(Widget, self)
        widget.has_focus = False
        if widget.parent is not None:
            widget.parent.post_message(events.DescendantBlur(widget))


ROWS_KEPT = 512
"""Plain rows a `ReaderArea` keeps for reuse (about 12 screens of 43 rows at 160x48)."""


class ReaderArea(QuietFocus, TextArea):
    """A read-only text area read like a pager: with no cursor, every scroll key jumps at once. It does not
    blink: TextArea's blink timer repaints the (hidden) cursor's line twice a second while it has the focus,
    so the studio never went quiet with the chapter pane focused (a frame written every 0.5 s).

    A new text or an edit that changes its line count does not lay out the screen (`widgets.virtual_size`):
    its region comes from the CSS. What changed is repainted by whoever changed it (`refresh`,
    `refresh_lines`): TextArea's own edits relied on the layout for that."""

    BINDINGS: ClassVar[list[BindingType]] = JK_BINDINGS

    selection: Reactive[Selection] = reactive(Selection(), init=False, always_update=True, repaint=False)
    """As TextArea's, without repainting the whole area on every assignment: each edit assigns it (a draft
    flush too, to the same value). `_watch_selection` repaints when what it draws changes."""

    def __init__(self, text: str = "", **kwargs: Any) -> None:
        super().__init__(text, **kwargs)
        self.set_reactive(TextArea.cursor_blink, False)
        self._plain_rows: PlainRows | None = None
        """The plain rows of the frame being drawn (`render_lines`)."""
        self._rows_made: dict[tuple[str, int, Any, Any], Strip] = {}
        """(line text, width, styles) -> its plain row, the most recent last (`compat.PlainRows`)."""
        use_plain_row_styles(self)  # its rows styled once per frame, not once per row (`compat.PlainRowStyles`)

    def _watch_selection(self, previous_selection: Selection, selection: Selection) -> None:
        super()._watch_selection(previous_selection, selection)
        if selection != previous_selection and (
            self.show_cursor or not previous_selection.is_empty or not selection.is_empty
        ):
            self.refresh()  # a highlight (a search hit) or the cursor moved

    def _watch__cursor_visible(self) -> None:
        """`TextArea._watch__cursor_visible` (private, Textual 8.2: each focus and blur sets `_cursor_visible`)
        repaints the cursor's line: with no cursor shown there is nothing on it to change."""
        if self.show_cursor:
            super()._watch__cursor_visible()

    def render_lines(self, crop: Region) -> list[Strip]:
        """The rows of `crop`: the plain ones (the chapter pane's: no cursor, no highlight) straight from the
        document, with what they share read once for the frame (`compat.PlainRows`), any other Textual's way.
        A plain row already made for the same line text, width and styles is reused (a chapter shown again, a
        row scrolled back into view): the last `ROWS_KEPT` made are kept."""
        self._plain_rows = PlainRows.of(self, self._rows_made)
        try:
            return super().render_lines(crop)
        finally:
            self._plain_rows = None
            while len(self._rows_made) > ROWS_KEPT:
                del self._rows_made[next(iter(self._rows_made))]

    def render_line(self, y: int) -> Strip:
        rows = self._plain_rows
        strip = rows.line(y) if rows is not None else None
        return strip if strip is not None else super().render_line(y)

    def _render_line(self, y: int) -> Strip:
        """`TextArea._render_line` (private, Textual 8.2: `render_line` calls it on a miss of its line cache),
        for a row drawn outside `render_lines`: a plain one straight from the document as well."""
        strip = plain_text_line(self, y)
        return strip if strip is not None else super()._render_line(y)

    def _rewrap_and_refresh_virtual_size(self) -> None:
        """`TextArea._rewrap_and_refresh_virtual_size` (private, Textual 8.2) with a wrap that does not measure
        the lines that cannot be wider than the wrap width (`compat.rewrap_fitting`): the same wrapped lines."""
        rewrap_fitting(self)

    def _refresh_size(self) -> None:
        """`TextArea._refresh_size` (private, Textual 8.2: every edit and new text calls it) without the layout
        its `virtual_size` assignment asks for."""
        if self.soft_wrap:
            size = Size(0, self.wrapped_document.height)
        else:
            width, height = self.document.get_size(self.indent_width)
            size = Size(width + self.gutter_width + 1, height)  # +1: room for the cursor at a line's end
        set_virtual_size(self, size)
        self._refresh_scrollbars()

    def action_cursor_up(self, select: bool = False) -> None:
        if self.show_cursor:
            super().action_cursor_up(select)
        else:
            self.scroll_up(animate=False)

    def action_cursor_down(self, select: bool = False) -> None:
        if self.show_cursor:
            super().action_cursor_down(select)
        else:
            self.scroll_down(animate=False)

    def action_cursor_page_up(self) -> None:
        if self.show_cursor:
            super().action_cursor_page_up()
        else:
            self.scroll_page_up(animate=False)

    def action_cursor_page_down(self) -> None:
        if self.show_cursor:
            super().action_cursor_page_down()
        else:
            self.scroll_page_down(animate=False)


def shown_keys(screen: Screen[Any]) -> tuple[tuple[str, str, bool, str], ...]:
    """What a footer shows for `screen`: (key, description, enabled, tooltip) of every shown binding."""
    return tuple(
        (binding.key, binding.description, enabled, tooltip)
        for (_node, binding, enabled, tooltip) in screen.active_bindings.values()
        if binding.show or binding.action == "app.command_palette"
    )


FOOTER_KEEP = ("help", "quit")
"""Binding ids (the `[ui.keymap]` names) whose keys a `StudioFooter` never hides: help lists every key."""


def fitted(widths: list[int], keep: list[bool], room: int) -> list[bool]:
    """Which keys show (True) when keys of these `widths` (left to right) share `room` cells: all when they
    fit, else the rightmost key not in `keep` gives way, then the next, until the rest fit (or only kept keys
    are left). Whole keys only; a key that gives way never makes room for a later one (a stable order)."""
    shown = [True] * len(widths)
    total = sum(widths)
    for index in reversed(range(len(widths))):
        if total <= room:
            break
        if not keep[index]:
            shown[index] = False
            total -= widths[index]
    return shown


def declared_order(screen: Screen[Any]) -> dict[str, int]:
    """binding id -> its place in the screen's BINDINGS (base classes first). A remapped binding moves to the
    end of Textual's key table; the footer keeps it where the screen declared it."""
    order: dict[str, int] = {}
    for cls in reversed(type(screen).__mro__):
        for binding in cls.__dict__.get("BINDINGS", ()):
            if isinstance(binding, Binding) and binding.id:
                order.setdefault(binding.id, len(order))
    return order


class StudioFooter(Footer):
    """`Footer` that recomposes only when the keys it shows changed (not on every focus change), and shows
    whole keys only (see the module docstring): keys that do not fit give way from the right, except those
    whose binding id is in `keep` and the command palette's key. Binding groups are shown as single keys."""

    def __init__(self, *, keep: Collection[str] = FOOTER_KEEP, id: str | None = None) -> None:
        super().__init__(id=id)
        self.keep = frozenset(keep)
        self._shown: tuple[tuple[str, str, bool, str], ...] | None = None
        self.recompose_count = 0
        """How often the keys changed (the bench and tests read it)."""
        self._row: list[tuple[FooterKey, bool]] = []
        """The keys left of the palette's key, in order, each with whether it is kept."""
        self._palette: FooterKey | None = None
        self._widths: dict[FooterKey, int] = {}
        """Each key's width in cells, measured once per build (a resize only compares numbers)."""

    def compose(self) -> ComposeResult:
        self._row, self._palette = [], None
        self._widths.clear()
        if not self._bindings_ready:
            return
        screen = self.screen
        active = screen.active_bindings
        order = declared_order(screen)
        first: dict[str, tuple[Binding, bool, str]] = {}  # one key per action (its first binding), as Footer
        for _node, binding, enabled, tooltip in active.values():
            if binding.show:
                first.setdefault(binding.action, (binding, enabled, tooltip))
        row = sorted(first.values(), key=lambda item: order.get(item[0].id or "", len(order)))
        for binding, enabled, tooltip in row:
            key = FooterKey(
                binding.key,
                self.app.get_key_display(binding),
                binding.description,
                binding.action,
                disabled=not enabled,
                tooltip=tooltip,
            ).data_bind(compact=Footer.compact)
            self._row.append((key, binding.id in self.keep))
            yield key
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            palette = active.get(self.app.COMMAND_PALETTE_BINDING)
            if palette is not None:
                _node, binding, enabled, tooltip = palette
                self._palette = FooterKey(
                    binding.key,
                    self.app.get_key_display(binding),
                    binding.description,
                    binding.action,
                    classes="-command-palette",
                    disabled=not enabled,
                    tooltip=binding.tooltip or binding.description,
                )
                yield self._palette

    def bindings_changed(self, screen: Screen[Any]) -> None:
        if self.is_attached and screen is self.screen and screen.app.app_focus:
            shown = shown_keys(screen)
            if shown == self._shown:
                return
            self._shown = shown
            self.recompose_count += 1
        super().bindings_changed(screen)

    async def recompose(self) -> None:
        await super().recompose()
        self.fit()

    def _on_resize(self, event: events.Resize) -> None:
        self.fit()

    def fit(self) -> None:
        """Show the keys that fit whole in the footer's width and hide the rest (see `fitted`)."""
        if not self._row or not self.is_mounted:
            return
        room = self.size.width - (self._width(self._palette) if self._palette is not None else 0)
        widths = [self._width(key) for key, _kept in self._row]
        shown = fitted(widths, [kept for _key, kept in self._row], room)
        for (key, _kept), show in zip(self._row, shown, strict=True):
            if key.display != show:
                key.display = show

    def _width(self, key: FooterKey) -> int:
        """The cells `key` takes in the row: its text, padding, border and margin (hidden or not)."""
        width = self._widths.get(key)
        if width is None:
            styles = key.styles
            width = key.get_content_width(Size(0, 0), Size(0, 0)) + styles.gutter.width + styles.margin.width
            self._widths[key] = width
        return width


__all__ = [
    "FOOTER_KEEP", "JK_BINDINGS", "InstantScroll", "QuietFocus", "ReaderArea", "StudioFooter", "declared_order",
    "fitted", "shown_keys",
]
