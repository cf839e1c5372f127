"""Foreshadowing ledger updates from `foreshadow` ops (seed 001 9.2) and the overdue check.

Transitions (nothing the model said is lost; every surprise is a warning and still lands in history):
- planted, new id -> new item (status planted; description = detail). Its `scope` and
  `target_resolve_range` come from the op (`planted_scope`), defaulting to a short thread due in chapters
  n+3..n+10 (`DEFAULT_SHORT_RANGE`), so threads planted while writing can go overdue too; the author may edit
  both in the ledger.
- planted, known id -> warning; a "planted" history line is added, status unchanged.
- advanced -> history + status advanced + last_updated_chapter. A resolved item is reopened, with a
  warning (the state's active_foreshadowing lists it again, so ledger and state agree).
- resolved -> history + status resolved. Resolving an already resolved item: warning + history.
- advanced/resolved of an unknown id -> the item is created with that status and a warning
  (planted_chapter stays unknown: None).
"""

from __future__ import annotations

from collections.abc import Iterable

from studio.models.changelog import OpWarning
from studio.models.foreshadowing import (
    ForeshadowingHistoryEntry,
    ForeshadowingItem,
    ForeshadowingLedger,
    ForeshadowScope,
)
from studio.models.patch import StateOp
from studio.op_reasons import op_warning, reason

DEFAULT_SHORT_RANGE = (3, 10)  # a thread planted while writing, with no range given: due in chapters n+3..n+10
_SCOPES = ("short", "medium", "long")


def planted_scope(op: StateOp, chapter: int) -> tuple[ForeshadowScope, tuple[int, int] | None]:
    """The scope and target range a `planted` op carries (`scope`, `target_resolve_range` as [first, last]
    chapters), each falling back to the default: short, chapters n+3..n+10. Medium and long threads get no
    range unless given one (only short threads go overdue)."""
    extra = op.model_extra or {}
    raw_scope = extra.get("scope")
    scope: ForeshadowScope = raw_scope if raw_scope in _SCOPES else "short"
    raw = extra.get("target_resolve_range")
    if (
        isinstance(raw, list | tuple)
        and len(raw) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in raw)
        and 1 <= raw[0] <= raw[1]
    ):
        return scope, (raw[0], raw[1])
    if scope != "short":
        return scope, None  # medium and long threads are never overdue: no default range
    return scope, (chapter + DEFAULT_SHORT_RANGE[0], chapter + DEFAULT_SHORT_RANGE[1])


def apply_foreshadow_ops(
    ledger: ForeshadowingLedger, ops: Iterable[StateOp], chapter: int, storyline_id: str | None
) -> tuple[ForeshadowingLedger, list[OpWarning]]:
    """Apply the `foreshadow` ops among `ops` (others are ignored) to a copy of `ledger`, in order.

    Returns the new ledger and warnings. Pure: `ledger` is not changed.
    """
    items = [item.model_copy(deep=True) for item in ledger.foreshadowing]
    by_id = {item.id: item for item in items}
    warnings: list[OpWarning] = []
    for op in ops:
        if op.op != "foreshadow":
            continue
        action = op.value
        detail = op.detail or ""
        history = ForeshadowingHistoryEntry(chapter=chapter, action=action, detail=detail)
        item = by_id.get(op.path)
        if item is None:
            if action != "planted":
                warnings.append(op_warning(op.to_data(), reason("never_planted", id=op.path, action=action)))
            scope, target = planted_scope(op, chapter) if action == "planted" else (None, None)
            item = ForeshadowingItem(
                id=op.path,
                description=detail,
                scope=scope,
                target_resolve_range=target,
                status=action,
                planted_chapter=chapter if action == "planted" else None,
                planted_storyline=storyline_id if action == "planted" else None,
                last_updated_chapter=chapter,
                history=[history],
            )
            items.append(item)
            by_id[item.id] = item
            continue
        if action == "planted" and item.planted_chapter != chapter:  # a plan's thread planted where planned: fine
            why = reason("already_planted", id=op.path, chapter=item.planted_chapter)
            warnings.append(op_warning(op.to_data(), why))
        elif action == "advanced" and item.status == "resolved":
            warnings.append(op_warning(op.to_data(), reason("reopened", id=op.path)))
        elif action == "resolved" and item.status == "resolved":
            warnings.append(op_warning(op.to_data(), reason("already_resolved", id=op.path)))
        if action != "planted":
            item.status = action
        item.last_updated_chapter = chapter
        item.history = [*item.history, history]
    return ledger.model_copy(update={"foreshadowing": items}), warnings


def overdue_items(ledger: ForeshadowingLedger, current_chapter: int) -> list[ForeshadowingItem]:
    """Unresolved `short` items past the end of their target range (seed 001 9.2: only short scope
    is ever overdue; medium and long never trigger the warning, nor does an item without a range)."""
    return [
        item
        for item in ledger.foreshadowing
        if item.scope == "short"
        and item.status != "resolved"
        and item.target_resolve_range is not None
        and current_chapter > item.target_resolve_range[1]
    ]
