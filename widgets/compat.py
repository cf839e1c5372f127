"""Every private Textual API the studio relies on, in one place (checked against Textual 8.2).

When Textual changes, this is the only module to fix. Each function says which private name it touches and why
there is no public way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual._compositor import Compositor
from textual.app import App
from textual.binding import Binding
from textual.dom import DOMNode
from textual.geometry import Size
from textual.keys import _normalize_key_list
from textual.notifications import Notification, Notify
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets._footer import FooterKey
from textual.widgets._toast import Toast


def normalize_keys(keys: str) -> str:
    """`textual.keys._normalize_key_list`: the canonical form of a binding's key list ("a,B" style)."""
    return _normalize_key_list(keys)


def update_scroll_limits(widget: Widget, virtual_size: Size) -> None:
    """`Widget._scroll_update`: after a new virtual size, show or hide the scrollbars, set their windows and
    clamp the scroll offsets, as a layout does; the public way (`virtual_size = ...`) lays out the screen."""
    widget._scroll_update(virtual_size)


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


def screen_lines(screen: Screen[Any]) -> list[str]:
    """`Screen._compositor.render_strips`: the screen's lines as plain text, as the terminal would show them
    (tests look for holes in wide text)."""
    return [strip.text for strip in screen._compositor.render_strips()]


__all__ = [
    "FooterKey",  # textual.widgets._footer (not exported): one key of `Footer`; `StudioFooter` builds its row
    "keep_toasts_whole",
    "screen_lines",
    "keymap",
    "key_bindings",
    "normalize_keys",
    "notifications",
    "post_notification",
    "rewrite_bindings",
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
