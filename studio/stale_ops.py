"""Logged state ops that no longer apply (issue 11), and the exact fix `repair` may offer for them.

A changelog line's op "no longer applies" when replaying the log reaches it and the engine refuses it (a path
that names a character by its display name where a slug belongs, an op edited by hand, a rule a newer version
added). The state file is not affected (it was written when the op applied), but every replay is: `undo`,
`rebuild` and `repair`'s own rebuild stop there.

`plan_stale_ops(entries, state)` looks only at a log that replays from its start (an init snapshot or version
0) and whose end is the state's version; each line that stops the replay is fixed in memory, one op at a time:

- `corrected`: the path's entity is a display name (or alias) that exactly one entity of the state before the
  line carries: the op gets that slug;
- `skipped`: otherwise the op moves from the line's `ops` to its `warnings` (kept whole, code
  `marked_by_repair`): replay skips it, the author's text of it stays in the file.

The fix is offered only when the fixed log replays to exactly the current state (same `to_data()`): then undo
and rebuild get back every version the log records, and nothing the author has is changed. Otherwise nothing
is offered as a fix (`StaleOps.exact` is False) and `repair` says what to do by hand: skipping the op would
make the log describe a different state than the one on disk.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from studio.errors import FormatError, StateVersionMismatch
from studio.i18n import Lang
from studio.models.changelog import ChangelogEntry, OpWarning
from studio.models.state import CurrentState
from studio.op_reasons import reason, reason_text
from studio.state_engine import apply_ops, replay

_OPS_AT = re.compile(r"^\$\[(\d+)\]\.ops$")
_ENTITY_TOPS = ("characters", "items", "locations", "factions")


@dataclass(frozen=True)
class StaleOp:
    """One op of line `index` (0-based among the log's lines) that no longer applies, and what the fix does."""

    index: int
    chapter: int
    op: dict[str, Any]
    why: OpWarning
    fixed: dict[str, Any] | None  # the corrected op; None: skipped on replay

    def why_text(self, lang: Lang) -> str:
        return reason_text(self.why, lang)


@dataclass
class StaleOps:
    found: list[StaleOp] = field(default_factory=list)
    entries: list[ChangelogEntry] = field(default_factory=list)  # the log with every found op fixed
    exact: bool = False  # the fixed log replays to exactly the current state


def _stale_line(entries: Sequence[ChangelogEntry]) -> int | None:
    """The index of the first line whose ops stop the replay; None when it replays or stops for another cause."""
    try:
        replay(entries)
    except FormatError as exc:
        for problem in exc.problems:
            match = _OPS_AT.match(problem.json_path)
            if match:
                return int(match.group(1))
        return None
    except StateVersionMismatch:
        return None
    return None


def _slug_for(name: str, top: str, state: CurrentState) -> str | None:
    """The one entity of `top` whose display name or alias is `name`; None when none or several are."""
    entities: dict[str, Any] = state.to_data().get(top) or {}
    owners = [
        slug for slug, data in entities.items()
        if isinstance(data, dict) and (data.get("display_name") == name or name in (data.get("aliases") or []))
    ]
    return owners[0] if len(owners) == 1 else None


def _corrected(op: dict[str, Any], state: CurrentState) -> dict[str, Any] | None:
    path = op.get("path")
    if not isinstance(path, str):
        return None
    parts = path.split(".")
    if len(parts) < 2 or parts[0] not in _ENTITY_TOPS:
        return None
    slug = _slug_for(parts[1], parts[0], state)
    if slug is None or slug == parts[1]:
        return None
    candidate = {**op, "path": ".".join([parts[0], slug, *parts[2:]])}
    _, _, warnings = apply_ops(state, [candidate])
    return None if warnings else candidate


def _fix_line(entries: list[ChangelogEntry], index: int, today: str) -> tuple[ChangelogEntry, list[StaleOp]]:
    """Line `index` with each op that does not apply corrected or moved to its warnings."""
    entry = entries[index]
    state = replay(entries[:index]) if index else CurrentState()
    if entry.snapshot is not None:
        state = CurrentState.model_validate(entry.snapshot)
    kept: list[dict[str, Any]] = []
    marked: list[OpWarning] = []
    found: list[StaleOp] = []
    for op in (o.to_data() for o in entry.ops):
        after, _, warnings = apply_ops(state, [op])
        if not warnings:
            kept.append(op)
            state = after
            continue
        fixed = _corrected(op, state)
        found.append(StaleOp(index, entry.chapter, op, warnings[0], fixed))
        if fixed is not None:
            kept.append(fixed)
            state, _, _ = apply_ops(state, [fixed])
            continue
        why = warnings[0]
        mark = reason("marked_by_repair", date=today, why=reason_text(why, "en"), why_zh=reason_text(why, "zh"))
        marked.append(OpWarning(entry=op, reason=mark.text("en"), code=mark.code, params=dict(mark.params)))
    data = entry.to_data()
    data["ops"] = kept
    data["warnings"] = [*data.get("warnings", []), *(w.to_data() for w in marked)]
    return ChangelogEntry.model_validate(data), found


def plan_stale_ops(entries: Sequence[ChangelogEntry], state: CurrentState, *, today: str | None = None) -> StaleOps:
    """Every logged op that stops the replay of `entries`, and whether fixing them gives back `state` exactly."""
    out = StaleOps(entries=list(entries))
    if not entries or entries[-1].state_version != state.state_version:
        return out
    if entries[0].kind != "init" and entries[0].base_state_version != 0:
        return out  # a log begun on a state it does not record never replays from its start
    day = today or date.today().isoformat()
    for _ in range(len(entries)):
        index = _stale_line(out.entries)
        if index is None:
            break
        line, found = _fix_line(out.entries, index, day)
        if not found:  # the engine refused the line as a whole: nothing op by op to fix
            break
        out.entries[index] = line
        out.found += found
    if out.found:
        try:
            out.exact = replay(out.entries).to_data() == state.to_data()
        except (FormatError, StateVersionMismatch):
            out.exact = False
    return out


def first_stale_ops(entries: Sequence[ChangelogEntry]) -> list[StaleOp]:
    """The ops of the first line that stops the replay of `entries` from their start (none: it replays, or stops
    for another cause): what `repair` names when it cannot rebuild a state because of them."""
    if not entries or (entries[0].kind != "init" and entries[0].base_state_version != 0):
        return []
    index = _stale_line(entries)
    if index is None:
        return []
    return _fix_line(list(entries), index, date.today().isoformat())[1]


def entry_line(entry: ChangelogEntry) -> str:
    """A changelog line as the state engine writes it."""
    return json.dumps(entry.to_data(), ensure_ascii=False, separators=(",", ":"))


def op_text(op: dict[str, Any]) -> str:
    """An op as the author reads it in a message: its JSON on one line."""
    return json.dumps(op, ensure_ascii=False)
