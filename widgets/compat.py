"""Every private Textual API the studio relies on, in one place (checked against Textual 8.2).

When Textual changes, this is the only module to fix. Each function says which private name it touches and why
there is no public way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App
from textual.binding import Binding
from textual.dom import DOMNode
from textual.keys import _normalize_key_list
from textual.notifications import Notification, Notify
from textual.widgets import Tree


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


def clear_tree_line_cache(tree: Tree[Any]) -> None:
    """`Tree._clear_line_cache`: drop the rendered lines (they re-render on the next paint) without
    `Tree._invalidate`'s rebuild of every line and layout."""
    tree._clear_line_cache()


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


__all__ = [
    "keymap",
    "clear_tree_line_cache",
    "key_bindings",
    "normalize_keys",
    "notifications",
    "post_notification",
    "rewrite_bindings",
    "withdraw_notification",
]
