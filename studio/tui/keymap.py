"""Keys remappable from the settings file (issue 4, section 3).

    [ui.keymap]
    write_next = "w"        # binding id -> key (or "a,b" for several keys)

`check_keymap(keymap, defaults)` validates the table against the studio's bindings (`binding_defaults(sets)`:
every binding with an id in the given binding lists; the App passes the main screen's and its own): an unknown binding id, an empty or malformed key, or a key
that two actions would share after the remap is reported as a readable problem and that entry is left out.
`apply_keymap(app, keymap, defaults, lang)` applies what is valid with `App.set_keymap` and notifies the problems;
it never raises.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from textual.app import App
from textual.binding import Binding

from studio.i18n import Catalog, Lang, tr
from widgets.compat import normalize_keys

MESSAGES: Catalog = {
    "unknown": (
        "快捷键设置：没有名为 “{action}” 的操作（可用：{known}）",
        "Key settings: there is no action “{action}” (known: {known})",
    ),
    "bad_key": ("快捷键设置：{action} 的按键 “{key}” 无效", "Key settings: “{key}” is not a valid key for {action}"),
    "clash": (
        "快捷键设置：按键 “{key}” 同时分给了 {actions}；已保留原来的按键",
        "Key settings: the key “{key}” is given to {actions}; the default keys were kept",
    ),
    "title": ("快捷键设置有误", "Key settings"),
}

_KEY = re.compile(r"^[A-Za-z0-9_+\-]+$|^.$")


@dataclass
class KeymapCheck:
    """What `check_keymap` kept (`keymap`, normalised) and the problems it found (localised lines)."""

    keymap: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def binding_defaults(binding_sets: Iterable[Iterable[Any]]) -> dict[str, str]:
    """binding id -> its default key(s), normalised, from the given BINDINGS lists."""
    out: dict[str, str] = {}
    for bindings in binding_sets:
        for binding in bindings:
            if isinstance(binding, Binding) and binding.id:
                out.setdefault(binding.id, normalize_keys(binding.key))
    return out


def _valid_key(key: str) -> bool:
    return bool(key) and bool(_KEY.match(key))


def check_keymap(keymap: Mapping[str, Any], defaults: Mapping[str, str], lang: Lang = "zh") -> KeymapCheck:
    """Validate `keymap` (binding id -> keys) against `defaults` (binding id -> default keys)."""
    result = KeymapCheck()
    candidate: dict[str, str] = {}
    for action, raw in keymap.items():
        if action not in defaults:
            known = ", ".join(sorted(defaults))
            result.problems.append(tr(MESSAGES, "unknown", lang, action=action, known=known))
            continue
        keys = [k.strip() for k in str(raw).split(",")] if isinstance(raw, str) else [""]
        bad = [k for k in keys if not _valid_key(k)]
        if bad:
            result.problems.append(tr(MESSAGES, "bad_key", lang, action=action, key=bad[0] or str(raw)))
            continue
        candidate[action] = normalize_keys(",".join(keys))
    # Clashes: a key shared by two actions once the remap applies. The remapped entries involved are dropped
    # (and the check repeated, since dropping one can leave another clash behind).
    while True:
        owners: dict[str, list[str]] = {}
        for action, default in defaults.items():
            for key in candidate.get(action, default).split(","):
                owners.setdefault(key, []).append(action)
        clashes = {key: actions for key, actions in owners.items() if len(actions) > 1}
        culprits = {a for actions in clashes.values() for a in actions if a in candidate}
        if not culprits:
            break
        for key, actions in clashes.items():
            if any(a in candidate for a in actions):
                result.problems.append(tr(MESSAGES, "clash", lang, key=key, actions=", ".join(actions)))
        for action in culprits:
            candidate.pop(action, None)
    result.keymap = candidate
    return result


def apply_keymap(
    app: App[Any], keymap: Mapping[str, Any] | None, defaults: Mapping[str, str], lang: Lang = "zh"
) -> KeymapCheck:
    """Apply the valid part of `keymap` to `app` (replacing any earlier one) and notify the problems."""
    try:
        check = check_keymap(keymap or {}, defaults, lang)
    except Exception as exc:  # a settings table of the wrong shape: report, never crash
        check = KeymapCheck(problems=[str(exc)])
    try:
        app.set_keymap(check.keymap)
    except Exception as exc:
        check.problems.append(str(exc))
    if check.problems:
        app.notify("\n".join(check.problems), title=tr(MESSAGES, "title", lang), severity="warning", timeout=15,
                   markup=False)
    return check


__all__ = ["MESSAGES", "KeymapCheck", "apply_keymap", "binding_defaults", "check_keymap"]
