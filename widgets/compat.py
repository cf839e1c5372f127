"""Every private Textual API the studio relies on, in one place (checked against Textual 8.2).

When Textual changes, this is the only module to fix. Each function says which private name it touches and why
there is no public way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual._compositor import ChopsUpdate, Compositor
from textual.app import App
from textual.binding import Binding
from textual.dom import DOMNode
from textual.geometry import Region
from textual.keys import _normalize_key_list
from textual.notifications import Notification, Notify
from textual.screen import Screen
from textual.strip import Strip
from textual.widgets._toast import Toast


def normalize_keys(keys: str) -> str:
    """`textual.keys._normalize_key_list`: the canonical form of a binding's key list ("a,B" style)."""
    return _normalize_key_list(keys)


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


# ------------------------------------------------------------------------------------------ sparse updates


def _render_partial_update_sparse(self: Compositor) -> ChopsUpdate | None:
    """`Compositor.render_partial_update`, rendering only the widgets that meet an updated span.

    Textual's version crops to the box around all updated regions and, on every line that holds an updated
    span, renders and cuts every widget of that line, wherever the span is. A pane switch repaints the two
    panes' borders: the side borders put a span on every line, so the whole screen was cut up again for four
    one-cell columns (about 30 ms of CPU at 160x48). Here a widget is rendered only on the lines where an
    updated span meets its columns. The chops outside the spans may then hold a strip of a widget below the
    one on top; `ChopsUpdate` writes only the spans, so none of them reaches the terminal."""
    update_regions = self._dirty_regions.copy()
    self._dirty_regions.clear()
    if not update_regions:
        return None
    screen = self.size.region
    spans = [(y, x1, x2) for y, x1, x2 in self._regions_to_spans(update_regions) if 0 <= y < screen.height]
    if not spans:
        return None
    spans_by_line: dict[int, list[tuple[int, int]]] = {}
    for y, x1, x2 in spans:
        spans_by_line.setdefault(y, []).append((x1, x2))
    cuts = self.cuts
    chops: list[dict[int, Strip | None]] = [dict.fromkeys(cut_set[:-1]) for cut_set in cuts]
    for widget, (region, clip) in self.visible_widgets.items():
        shown = region.intersection(clip)
        if not shown:
            continue
        left, right = shown.column_span
        lines = [
            y
            for y in shown.line_range
            if any(x1 < right and x2 > left for x1, x2 in spans_by_line.get(y, ()))
        ]
        if not lines:
            continue
        top, bottom = lines[0], lines[-1]
        strips = widget.render_lines(Region(left - region.x, top - region.y, shown.width, bottom - top + 1))
        wanted = set(lines)
        for y, strip in zip(range(top, bottom + 1), strips, strict=False):
            if y not in wanted:
                continue
            chops_line = chops[y]
            line_cuts = [cut for cut in cuts[y] if right >= cut >= left]
            for cut, piece in zip(line_cuts, strip.divide([cut - left for cut in line_cuts[1:]]), strict=False):
                if chops_line.get(cut) is None:  # front to back: the first strip for a cut wins
                    chops_line[cut] = piece
    return ChopsUpdate(chops, spans, [cut_set[1:] for cut_set in cuts])


_ORIGINAL_PARTIAL_UPDATE = Compositor.render_partial_update


def sparse_partial_updates(enabled: bool = True) -> None:
    """Install `_render_partial_update_sparse` as `Compositor.render_partial_update` (`textual._compositor`,
    private: `_dirty_regions`, `_regions_to_spans`, `cuts`, `ChopsUpdate`); `enabled=False` puts Textual's back
    (tests compare the two). The App calls it once at start-up."""
    Compositor.render_partial_update = (  # type: ignore[method-assign]
        _render_partial_update_sparse if enabled else _ORIGINAL_PARTIAL_UPDATE
    )


def screen_lines(screen: Screen[Any]) -> list[str]:
    """`Screen._compositor.render_strips`: the screen's lines as plain text, as the terminal would show them
    (tests look for holes in wide text)."""
    return [strip.text for strip in screen._compositor.render_strips()]


__all__ = [
    "keep_toasts_whole",
    "screen_lines",
    "sparse_partial_updates",
    "keymap",
    "key_bindings",
    "normalize_keys",
    "notifications",
    "post_notification",
    "rewrite_bindings",
    "withdraw_notification",
]
