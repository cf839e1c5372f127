"""Keys that answer at once: scrolling without animation, `j`/`k` in lists and panes, a footer that rebuilds
only when what it shows changes.

Measured (Textual 8.2, 2-core machine): PgUp/PgDn in a long `TextArea` animated for 0.7-0.9 s at 220-250 ms of
CPU per press (about 8 ms without the animation); `Footer` recomposes itself (about 25 widgets) on every focus
change, twice per pane switch, 150-200 ms of CPU per key, although its keys are the same in every pane.

- `InstantScroll`: a mixin for scrolling widgets whose keyboard scroll actions jump instead of animating.
- `ReaderArea`: the chapter pane's read-only `TextArea`: with no cursor shown, arrows, `j`/`k` and PgUp/PgDn
  scroll at once; no blinking (nothing to blink, and each blink was a frame written).
- `JK_BINDINGS`: `j`/`k` as down/up, for lists (the outline) and panes.
- `QuietFocus`: a mixin for the panes' widgets, which look the same focused or not (the pane's border shows the
  focus): gaining or losing the focus repaints none of the widget. Textual's `Widget` repaints all of a widget
  on every focus and blur: the chapter text (43 lines at 160x48) and the outline, every pane switch.
- `StudioFooter`: Textual's `Footer` (same look, clickable keys) that recomposes only when the shown keys
  (key, description, enabled) differ from the last time.
"""

from __future__ import annotations

from typing import Any, ClassVar, cast

from textual import events
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer, TextArea

JK_BINDINGS: list[BindingType] = [
    Binding("j", "cursor_down", "Down", show=False, id="move_down"),
    Binding("k", "cursor_up", "Up", show=False, id="move_up"),
]
"""`j`/`k` in lists; the ids make them remappable (`[ui.keymap] move_down = "..."`) like the screen's keys."""


class InstantScroll:
    """Mixin: the keyboard's scroll actions of a scrolling widget, without animation."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "scroll_down", "Down", show=False, id="move_down"),
        Binding("k", "scroll_up", "Up", show=False, id="move_up"),
    ]

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


class ReaderArea(QuietFocus, TextArea):
    """A read-only text area read like a pager: with no cursor, every scroll key jumps at once. It does not
    blink: TextArea's blink timer repaints the (hidden) cursor's line twice a second while it has the focus,
    so the studio never went quiet with the chapter pane focused (a frame written every 0.5 s)."""

    BINDINGS: ClassVar[list[BindingType]] = JK_BINDINGS

    def __init__(self, text: str = "", **kwargs: Any) -> None:
        super().__init__(text, **kwargs)
        self.set_reactive(TextArea.cursor_blink, False)

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


class StudioFooter(Footer):
    """`Footer` that recomposes only when the keys it shows changed (not on every focus change)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._shown: tuple[tuple[str, str, bool, str], ...] | None = None
        self.recompose_count = 0
        """How often the keys changed (the bench and tests read it)."""

    def bindings_changed(self, screen: Screen[Any]) -> None:
        if self.is_attached and screen is self.screen and screen.app.app_focus:
            shown = shown_keys(screen)
            if shown == self._shown:
                return
            self._shown = shown
            self.recompose_count += 1
        super().bindings_changed(screen)


__all__ = ["JK_BINDINGS", "InstantScroll", "QuietFocus", "ReaderArea", "StudioFooter", "shown_keys"]
