"""Deterministic application of StyleRefiner edits.

StyleRefiner replies with a list of edits ``{original, refined, reason, occurrence?}`` instead of a new chapter.
``apply_edits`` decides, for every edit and in a fixed order, whether it is applied, and applies the kept ones.
It is pure: the same text and edits always give the same result.

Rules, in the order they are checked:

1. ``no_op``: ``original == refined``; ``adds_blacklist``: the refined text has more hits of some blacklist entry
   than the original (the refiner may never bring a listed phrase in; issue 9), counted with the checks'
   matcher, so a shape like ``一股…涌上心头`` and an entry's own pattern count too. Every tier counts (a limited
   phrase is still one the refiner must not add), and where a hit stands is not asked: a narration-only word
   brought into dialogue is refused too (the edit alone does not show whether it is dialogue).
2. Location by exact substring search. Occurrences are every start index where ``original`` matches, overlapping
   matches included (``"啊啊"`` occurs twice in ``"啊啊啊"``). With ``occurrence`` (1-based) that occurrence is
   taken, else ``occurrence_out_of_range``; without it the span must occur exactly once, else ``ambiguous``
   (several) or ``not_found`` (none).
3. ``overlap``: in the refiner's order, an edit whose span intersects the span of an earlier edit still in play
   is dropped (the earlier one wins). Spans are half-open ``[start, end)``: touching spans do not overlap.
   This runs before the cap, so an earlier edit later dropped for the cap still blocks an overlapping one.
4. ``over_cap``: the change budget is ``cap_chars = floor(cap_ratio * len(text))`` code points of the whole
   chapter text (title and whitespace included, the same unit as the cost: the summed ``len(original)`` of the
   applied edits). The budget is filled first with the edits that remove a banned entry's hit (the original
   contains it, the refined text does not), then with those that remove a limited entry's hit, each group in the
   refiner's order, then with the others in the refiner's order. An edit larger than what is left is dropped and filling goes on with the next one, so a
   smaller later edit may still fit. ``cap_ratio`` is taken as its decimal literal (``Decimal(str(0.15))``), so
   ``0.15 * 200`` is exactly 30.

Blacklist matching is the checks' matcher (``studio.checks.matcher``, one definition of a blacklist hit): a
phrase anywhere in the span, and a shape with an ellipsis (``一股…涌上心头``) as the pattern it stands for, so a
shape the refiner rewrites counts as removed. An entry counts as removed when it matches the original and not
the refined text (overlapping hits all count, as a plain substring test would).

The kept edits are applied from the end of the text backwards so the offsets of the others stay valid.
``apply_decisions`` re-applies any subset of the decisions (the author's hunk-by-hunk review).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from decimal import Decimal
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from studio.checks.matcher import Entry, Matcher

__all__ = [
    "DropReason",
    "EditDecision",
    "RefineEdit",
    "RefineReply",
    "RefineResult",
    "apply_decisions",
    "apply_edits",
    "cap_chars_for",
    "find_occurrences",
]

DropReason = Literal[
    "not_found", "ambiguous", "occurrence_out_of_range", "overlap", "over_cap", "no_op", "adds_blacklist"
]
EditStatus = Literal["applied", "dropped"]


class RefineEdit(BaseModel):
    """One edit as StyleRefiner proposes it."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    original: str = Field(min_length=1)
    refined: str
    reason: str = ""
    occurrence: int | None = Field(default=None, ge=1)


class RefineReply(BaseModel):
    """The whole StyleRefiner reply: ``{"edits": [...]}``.

    ``edits`` is required: a reply without it is some other JSON (a chapter, a judge reply), not "no edits";
    the repair loop sends it back. No edits is ``{"edits": []}``.
    """

    model_config = ConfigDict(extra="ignore")

    edits: list[RefineEdit]


class EditDecision(BaseModel):
    """What happened to one edit. ``index`` is its position in the refiner's list."""

    model_config = ConfigDict(frozen=True)

    index: int
    original: str
    refined: str
    reason: str = ""
    occurrence: int | None = None
    status: EditStatus
    drop_reason: DropReason | None = None
    start: int | None = None
    end: int | None = None
    blacklist_removed: tuple[str, ...] = ()

    @property
    def span(self) -> tuple[int, int] | None:
        if self.start is None or self.end is None:
            return None
        return (self.start, self.end)

    @property
    def applicable(self) -> bool:
        """Located and clear of overlaps: may be applied (``over_cap`` ones only by the author's choice)."""
        return self.span is not None and (self.status == "applied" or self.drop_reason == "over_cap")


class RefineResult(BaseModel):
    text: str
    decisions: list[EditDecision]
    changed_chars: int
    cap_chars: int

    @property
    def applied(self) -> list[EditDecision]:
        return [d for d in self.decisions if d.status == "applied"]

    @property
    def dropped(self) -> list[EditDecision]:
        return [d for d in self.decisions if d.status == "dropped"]


def find_occurrences(text: str, needle: str) -> list[int]:
    """Every start index of ``needle`` in ``text``, overlapping matches included."""
    if not needle:
        return []
    starts: list[int] = []
    position = text.find(needle)
    while position != -1:
        starts.append(position)
        position = text.find(needle, position + 1)
    return starts


def cap_chars_for(text: str, cap_ratio: float) -> int:
    """``floor(cap_ratio * len(text))`` with ``cap_ratio`` read as its decimal literal."""
    if cap_ratio < 0:
        raise ValueError(f"cap_ratio must be >= 0, got {cap_ratio}")
    return math.floor(Decimal(str(cap_ratio)) * len(text))


def _blacklist_removed(edit: RefineEdit, matcher: Matcher) -> tuple[str, ...]:
    """The blacklist entries (as listed) that match the original and not the refined text, in list order."""
    if not matcher:
        return ()
    before = {m.entry.ref for m in matcher.all_matches(edit.original)}
    if not before:
        return ()
    after = {m.entry.ref for m in matcher.all_matches(edit.refined)}
    return tuple(e.ref for e in matcher.entries if e.ref in before and e.ref not in after)


def _blacklist_added(edit: RefineEdit, matcher: Matcher) -> tuple[str, ...]:
    """The blacklist entries (as listed) the refined text uses more often than the original."""
    if not matcher:
        return ()
    before = matcher.count(edit.original)
    after = matcher.count(edit.refined)
    return tuple(ref for ref, n in after.items() if n > before.get(ref, 0))


def _decision(
    index: int,
    edit: RefineEdit,
    status: EditStatus,
    drop_reason: DropReason | None = None,
    span: tuple[int, int] | None = None,
    removed: tuple[str, ...] = (),
) -> EditDecision:
    return EditDecision(
        index=index,
        original=edit.original,
        refined=edit.refined,
        reason=edit.reason,
        occurrence=edit.occurrence,
        status=status,
        drop_reason=drop_reason,
        start=None if span is None else span[0],
        end=None if span is None else span[1],
        blacklist_removed=removed,
    )


def apply_edits(
    text: str,
    edits: Sequence[RefineEdit],
    *,
    blacklist: Sequence[str] | Matcher = (),
    cap_ratio: float = 0.15,
) -> RefineResult:
    """Decide every edit (see the module docstring) and apply the kept ones to ``text``. ``blacklist``: the
    project's matcher (``studio.checks.matcher.blacklist_matcher``: tiers, patterns) or plain phrases (banned)."""
    cap = cap_chars_for(text, cap_ratio)
    decisions: list[EditDecision | None] = [None] * len(edits)
    located: list[tuple[int, int, int]] = []  # (index, start, end) in refiner order, clear of overlaps
    removed: dict[int, tuple[str, ...]] = {}
    matcher = blacklist if isinstance(blacklist, Matcher) else Matcher(Entry.parse(w) for w in blacklist if w.strip())
    banned = {e.ref for e in matcher.entries if e.tier == "banned"}

    for index, edit in enumerate(edits):
        removed[index] = _blacklist_removed(edit, matcher)
        if edit.original == edit.refined:
            decisions[index] = _decision(index, edit, "dropped", "no_op")
            continue
        if _blacklist_added(edit, matcher):
            decisions[index] = _decision(index, edit, "dropped", "adds_blacklist", removed=removed[index])
            continue
        starts = find_occurrences(text, edit.original)
        reason: DropReason | None = None
        start = -1
        if edit.occurrence is not None:
            if edit.occurrence <= len(starts):
                start = starts[edit.occurrence - 1]
            else:
                reason = "not_found" if not starts else "occurrence_out_of_range"
        elif len(starts) == 1:
            start = starts[0]
        else:
            reason = "not_found" if not starts else "ambiguous"
        if reason is not None:
            decisions[index] = _decision(index, edit, "dropped", reason, removed=removed[index])
            continue
        end = start + len(edit.original)
        if any(start < other_end and other_start < end for _, other_start, other_end in located):
            decisions[index] = _decision(index, edit, "dropped", "overlap", (start, end), removed[index])
            continue
        located.append((index, start, end))

    budget = cap
    first = [item for item in located if banned.intersection(removed[item[0]])]
    then = [item for item in located if removed[item[0]] and not banned.intersection(removed[item[0]])]
    others = [item for item in located if not removed[item[0]]]
    kept: list[tuple[int, int, int]] = []
    for index, start, end in first + then + others:
        edit = edits[index]
        size = end - start
        if size <= budget:
            budget -= size
            kept.append((index, start, end))
            status: EditStatus = "applied"
            drop: DropReason | None = None
        else:
            status, drop = "dropped", "over_cap"
        decisions[index] = _decision(index, edit, status, drop, (start, end), removed[index])

    final = [d for d in decisions if d is not None]
    assert len(final) == len(edits)
    new_text = _splice(text, [(start, end, edits[index].refined) for index, start, end in kept])
    return RefineResult(text=new_text, decisions=final, changed_chars=cap - budget, cap_chars=cap)


def _splice(text: str, replacements: list[tuple[int, int, str]]) -> str:
    """Apply non-overlapping ``(start, end, new)`` replacements from the end backwards."""
    for start, end, new in sorted(replacements, key=lambda r: r[0], reverse=True):
        text = text[:start] + new + text[end:]
    return text


def apply_decisions(text: str, decisions: Sequence[EditDecision], accepted: Collection[int]) -> str:
    """Apply to the original ``text`` only the decisions whose ``index`` is in ``accepted``.

    An accepted decision must be applicable (applied, or dropped only for the cap: the author may override the
    budget) and its span must still hold its original in ``text``; otherwise ValueError.
    """
    by_index = {d.index: d for d in decisions}
    replacements: list[tuple[int, int, str]] = []
    for index in sorted(set(accepted)):
        decision = by_index.get(index)
        if decision is None:
            raise ValueError(f"no edit decision with index {index}")
        if not decision.applicable or decision.start is None or decision.end is None:
            raise ValueError(f"edit {index} cannot be applied ({decision.drop_reason})")
        if text[decision.start : decision.end] != decision.original:
            raise ValueError(
                f"edit {index}: the text at [{decision.start}, {decision.end}) is not its original"
            )
        replacements.append((decision.start, decision.end, decision.refined))
    replacements.sort(key=lambda r: r[0])
    for (_, first_end, _), (second_start, _, _) in zip(replacements, replacements[1:], strict=False):
        if second_start < first_end:
            raise ValueError("accepted edits overlap")
    return _splice(text, replacements)
