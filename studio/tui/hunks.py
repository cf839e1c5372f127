"""Refine-review hunks: the StyleRefiner's edits as reviewable units, and the author's verdicts on them.

Pure (no Textual): the review screen (``screens.refine_review``) only renders what is built here.

- ``build_hunks(decisions, draft)`` turns the located edits (``EditDecision.applicable``: applied by the refiner,
  or dropped only for the change budget) into ``Hunk``s in reading order, each with its position in the chapter
  and a character-level diff of original vs refined (``difflib.SequenceMatcher(autojunk=False)``: no word
  splitting, so Chinese diffs by character; autojunk would drop frequent characters such as 的 and ，).
  Edits that could not be located (not found, ambiguous, overlapping, no-op) cannot be applied and are not hunks;
  ``unapplicable(decisions)`` lists them so the screen can say how many were skipped.
- ``ReviewState`` holds one verdict per hunk (accepted / rejected / undecided) and a cursor. When the review
  finishes, an undecided hunk keeps the refiner's decision (applied -> accepted, over the budget -> rejected).
- ``ReviewState.outcome(draft)`` -> ``ReviewOutcome(accepted, text, record)`` where ``text`` comes from
  ``pipeline.refine_edits.apply_decisions`` on the pre-refine ``draft`` and ``record`` is one JSON-ready dict per
  hunk for the refine log.
"""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    # imported where a review uses them: the refine edits bring the blacklist matcher and its models, which the
    # studio's start (the dialogs import `fold_offsets` from here) does not need before its first paint
    from pipeline.refine_edits import DropReason, EditDecision

__all__ = [
    "CONTEXT_CHARS",
    "Hunk",
    "HunkPosition",
    "ReviewOutcome",
    "ReviewState",
    "Segment",
    "SegmentKind",
    "Verdict",
    "build_hunks",
    "char_diff",
    "fold_offsets",
    "locate",
    "marked_original",
    "marked_refined",
    "marked_text",
    "unapplicable",
]

SegmentKind = Literal["equal", "delete", "insert", "replace"]
Verdict = Literal["accepted", "rejected", "undecided"]

CONTEXT_CHARS = 16  # characters of unchanged text shown either side of a hunk, within its line


@dataclass(frozen=True)
class Segment:
    """One run of the character diff. ``original`` is empty for an insert, ``refined`` for a delete."""

    kind: SegmentKind
    original: str
    refined: str


@dataclass(frozen=True)
class HunkPosition:
    """Where a hunk starts in the chapter: 1-based line and column (in characters), char offset, percent."""

    line: int
    column: int
    offset: int
    percent: float


@dataclass(frozen=True)
class Hunk:
    """One reviewable edit. ``index`` is the edit's index in the refiner's list (what apply_decisions takes)."""

    index: int
    status: Literal["applied", "dropped"]
    drop_reason: DropReason | None
    position: HunkPosition
    start: int
    end: int
    original: str
    refined: str
    reason: str
    segments: tuple[Segment, ...]
    before: str = ""  # unchanged context before the span (same line, at most CONTEXT_CHARS)
    after: str = ""  # unchanged context after the span
    blacklist_removed: tuple[str, ...] = ()

    @property
    def refiner_applied(self) -> bool:
        return self.status == "applied"


def char_diff(original: str, refined: str, *, cleanup: bool = True) -> tuple[Segment, ...]:
    """Character-level diff (CJK-aware: every code point is a token), in order.

    With ``cleanup`` an unchanged run squeezed between two changes and no longer than either of them is folded
    into one replacement, so ``嘴角微微上扬`` -> ``咧了下嘴`` reads as one change, not around a shared 嘴.
    """
    matcher = difflib.SequenceMatcher(None, original, refined, autojunk=False)
    segments: list[Segment] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        kind: SegmentKind
        if tag == "equal":
            kind = "equal"
        elif tag == "delete":
            kind = "delete"
        elif tag == "insert":
            kind = "insert"
        else:
            kind = "replace"
        segments.append(Segment(kind, original[i1:i2], refined[j1:j2]))
    if cleanup:
        segments = _fold_small_equalities(segments)
    return tuple(segments)


def _changed_len(seg: Segment) -> int:
    return max(len(seg.original), len(seg.refined))


def _change(original: str, refined: str) -> Segment:
    if not original:
        return Segment("insert", "", refined)
    if not refined:
        return Segment("delete", original, "")
    return Segment("replace", original, refined)


def _fold_small_equalities(segments: list[Segment]) -> list[Segment]:
    changed = True
    while changed:
        changed = False
        for i in range(1, len(segments) - 1):
            left, middle, right = segments[i - 1], segments[i], segments[i + 1]
            if middle.kind != "equal" or left.kind == "equal" or right.kind == "equal":
                continue
            if len(middle.original) <= min(_changed_len(left), _changed_len(right)):
                merged = _change(
                    left.original + middle.original + right.original,
                    left.refined + middle.refined + right.refined,
                )
                segments[i - 1 : i + 2] = [merged]
                changed = True
                break
    # Adjacent changes (after folding) become one.
    out: list[Segment] = []
    for seg in segments:
        if out and seg.kind != "equal" and out[-1].kind != "equal":
            prev = out.pop()
            seg = _change(prev.original + seg.original, prev.refined + seg.refined)
        out.append(seg)
    return out


def locate(text: str, offset: int) -> HunkPosition:
    """The 1-based line and column of ``offset`` in ``text``, and how far into the text it is (0-100)."""
    offset = max(0, min(offset, len(text)))
    line = text.count("\n", 0, offset) + 1
    line_start = text.rfind("\n", 0, offset) + 1
    percent = 0.0 if not text else round(100.0 * offset / len(text), 1)
    return HunkPosition(line=line, column=offset - line_start + 1, offset=offset, percent=percent)


def _context(text: str, start: int, end: int, size: int) -> tuple[str, str]:
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    if line_end == -1:
        line_end = len(text)
    return text[max(line_start, start - size) : start], text[end : min(line_end, end + size)]


def build_hunks(decisions: Sequence[EditDecision], draft: str, *, context: int = CONTEXT_CHARS) -> list[Hunk]:
    """The applicable decisions as hunks, sorted by their position in ``draft`` (the pre-refine text)."""
    hunks: list[Hunk] = []
    for decision in decisions:
        if not decision.applicable or decision.start is None or decision.end is None:
            continue
        start, end = decision.start, decision.end
        before, after = _context(draft, start, end, context)
        hunks.append(
            Hunk(
                index=decision.index,
                status=decision.status,
                drop_reason=decision.drop_reason,
                position=locate(draft, start),
                start=start,
                end=end,
                original=decision.original,
                refined=decision.refined,
                reason=decision.reason,
                segments=char_diff(decision.original, decision.refined),
                before=before,
                after=after,
                blacklist_removed=decision.blacklist_removed,
            )
        )
    hunks.sort(key=lambda h: (h.start, h.index))
    return hunks


def unapplicable(decisions: Sequence[EditDecision]) -> list[EditDecision]:
    """The decisions that are not hunks: never located, or overlapping, or no-ops."""
    return [d for d in decisions if not d.applicable]


def marked_original(segments: Sequence[Segment]) -> str:
    """The original with removed characters wrapped as ``[-删-]`` (readable without colour)."""
    return "".join(
        s.original if s.kind == "equal" else (f"[-{s.original}-]" if s.original else "") for s in segments
    )


def marked_refined(segments: Sequence[Segment]) -> str:
    """The refined text with added characters wrapped as ``{+增+}``."""
    return "".join(
        s.refined if s.kind == "equal" else (f"{{+{s.refined}+}}" if s.refined else "") for s in segments
    )


def marked_text(segments: Sequence[Segment]) -> str:
    """One line, wdiff style: ``他[-微微-]{+轻轻+}一笑``."""
    parts: list[str] = []
    for s in segments:
        if s.kind == "equal":
            parts.append(s.original)
            continue
        if s.original:
            parts.append(f"[-{s.original}-]")
        if s.refined:
            parts.append(f"{{+{s.refined}+}}")
    return "".join(parts)


@dataclass(frozen=True)
class ReviewOutcome:
    """What the review screen returns: refiner indices accepted, the resulting text, the refine-log record."""

    accepted: tuple[int, ...]
    text: str
    record: list[dict[str, object]] = field(default_factory=list)


class ReviewState:
    """The author's verdict on each hunk and the current hunk."""

    def __init__(self, hunks: Sequence[Hunk], decisions: Sequence[EditDecision] | None = None) -> None:
        self.hunks: list[Hunk] = list(hunks)
        self.verdicts: list[Verdict] = ["undecided"] * len(self.hunks)
        self.current = 0
        # apply_decisions needs the decisions; rebuild minimal ones from the hunks when not given.
        self._decisions: list[EditDecision] = (
            list(decisions) if decisions is not None else [_decision_of(h) for h in self.hunks]
        )

    @classmethod
    def from_decisions(
        cls, decisions: Sequence[EditDecision], draft: str, *, context: int = CONTEXT_CHARS
    ) -> ReviewState:
        return cls(build_hunks(decisions, draft, context=context), decisions)

    # -- queries ---------------------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.hunks)

    @property
    def hunk(self) -> Hunk | None:
        return self.hunks[self.current] if self.hunks else None

    @property
    def verdict(self) -> Verdict | None:
        return self.verdicts[self.current] if self.hunks else None

    def count(self, verdict: Verdict) -> int:
        return sum(1 for v in self.verdicts if v == verdict)

    @property
    def done(self) -> bool:
        return "undecided" not in self.verdicts

    def final_verdicts(self) -> list[tuple[Verdict, str]]:
        """Per hunk: the verdict that will be applied and who made it ("author" or "refiner")."""
        out: list[tuple[Verdict, str]] = []
        for hunk, verdict in zip(self.hunks, self.verdicts, strict=True):
            if verdict == "undecided":
                out.append(("accepted" if hunk.refiner_applied else "rejected", "refiner"))
            else:
                out.append((verdict, "author"))
        return out

    def accepted_indices(self) -> list[int]:
        """Refiner indices of the edits to apply, undecided hunks keeping the refiner's decision."""
        final = self.final_verdicts()
        return sorted(h.index for h, (v, _) in zip(self.hunks, final, strict=True) if v == "accepted")

    # -- moves -----------------------------------------------------------------------------------------------

    def next(self) -> None:
        if self.current < len(self.hunks) - 1:
            self.current += 1

    def prev(self) -> None:
        if self.current > 0:
            self.current -= 1

    def goto(self, position: int) -> None:
        if self.hunks:
            self.current = max(0, min(position, len(self.hunks) - 1))

    def _decide(self, verdict: Verdict) -> None:
        if not self.hunks:
            return
        self.verdicts[self.current] = verdict
        self.next()

    def accept(self) -> None:
        """Accept the current hunk and move to the next one."""
        self._decide("accepted")

    def reject(self) -> None:
        """Reject the current hunk and move to the next one."""
        self._decide("rejected")

    def _decide_remaining(self, verdict: Verdict) -> None:
        for i, v in enumerate(self.verdicts):
            if v == "undecided":
                self.verdicts[i] = verdict

    def accept_all_remaining(self) -> None:
        """Accept every hunk still undecided (before or after the cursor); decided ones keep their verdict."""
        self._decide_remaining("accepted")

    def reject_all_remaining(self) -> None:
        """Reject every hunk still undecided."""
        self._decide_remaining("rejected")

    def accept_all(self) -> None:
        """Accept every hunk, decided before or not (the review's `a`); the cursor stays."""
        self.verdicts = ["accepted"] * len(self.hunks)

    def reject_all(self) -> None:
        """Reject every hunk (the review's `d`); the cursor stays."""
        self.verdicts = ["rejected"] * len(self.hunks)

    # -- results ---------------------------------------------------------------------------------------------

    def result_text(self, draft: str) -> str:
        """``draft`` (the pre-refine text) with the accepted edits applied."""
        from pipeline.refine_edits import apply_decisions

        return apply_decisions(draft, self._decisions, self.accepted_indices())

    def record(self) -> list[dict[str, object]]:
        """One JSON-ready entry per hunk for the refine log, in reading order."""
        entries: list[dict[str, object]] = []
        for hunk, (verdict, by) in zip(self.hunks, self.final_verdicts(), strict=True):
            entries.append(
                {
                    "index": hunk.index,
                    "decision": verdict,
                    "by": by,
                    "refiner_status": hunk.status,
                    "drop_reason": hunk.drop_reason,
                    "start": hunk.start,
                    "end": hunk.end,
                    "line": hunk.position.line,
                    "original": hunk.original,
                    "refined": hunk.refined,
                    "reason": hunk.reason,
                }
            )
        return entries

    def outcome(self, draft: str) -> ReviewOutcome:
        return ReviewOutcome(
            accepted=tuple(self.accepted_indices()), text=self.result_text(draft), record=self.record()
        )


def _decision_of(hunk: Hunk) -> EditDecision:
    from pipeline.refine_edits import EditDecision

    return EditDecision(
        index=hunk.index,
        original=hunk.original,
        refined=hunk.refined,
        reason=hunk.reason,
        status=hunk.status,
        drop_reason=hunk.drop_reason,
        start=hunk.start,
        end=hunk.end,
        blacklist_removed=hunk.blacklist_removed,
    )


# -- display helper --------------------------------------------------------------------------------------------
# Textual (like Rich) wraps only at whitespace, so "第 3 章正在生成，……" breaks after "第 3" and leaves a ragged
# line. Chinese may break between any two characters; ``fold_offsets`` gives those breaks by terminal cells.
# It lives here, next to its main user (the review panes), and is shared by the dialogs.

_NO_LINE_START = set("，。、；：？！）》」』】〕〉”’…—·%,.;:?!)]}")
_NO_LINE_END = set("（《「『【〔〈“‘([{")


def _cells(ch: str) -> int:
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def _is_word_char(ch: str) -> bool:
    return ch.isascii() and (ch.isalnum() or ch in "_-'+/.$%")


def _fits(text: str, line_start: int, at: int, last: int, width: int) -> bool:
    """A break at `at` leaves something on the line begun at `line_start`, and `text[at:last+1]` fits a line."""
    return at > line_start and sum(_cells(c) for c in text[at : last + 1]) <= width


def fold_offsets(text: str, width: int) -> list[int]:
    """Offsets at which to break ``text`` so no line is wider than ``width`` cells.

    Existing newlines are kept (not returned); CJK text breaks between any two characters, a run of ASCII word
    characters (a Latin word, a number) moves to the next line whole when it fits there, a break never leaves
    closing punctuation (，。） …) at a line start or opening punctuation at a line end, and spaces at a break
    are dropped by the caller's rendering as usual.
    """
    if width <= 0:
        return []
    breaks: list[int] = []
    line_start = 0
    used = 0
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "\n":
            line_start, used = i + 1, 0
            i += 1
            continue
        w = _cells(ch)
        if used + w <= width or i == line_start:
            used += w
            i += 1
            continue
        if ch == " ":  # a space at the edge: break after it
            breaks.append(i + 1)
            line_start, used = i + 1, 0
            i += 1
            continue
        cut = i
        # Kinsoku: no closing mark at a line start (the character before it goes along).
        if text[cut] in _NO_LINE_START and _fits(text, line_start, cut - 1, i, width):
            cut -= 1
        # Keep a Latin word / number together if it started on this line and fits a line of its own.
        if _is_word_char(text[cut]):
            start = cut
            while start > line_start and _is_word_char(text[start - 1]):
                start -= 1
            end = cut
            while end < n and _is_word_char(text[end]):
                end += 1
            if sum(_cells(c) for c in text[start:end]) <= width and _fits(text, line_start, start, i, width):
                cut = start
        # Kinsoku: no opening mark at a line end ("（xu-qing-he）" moves whole, its bracket too).
        if text[cut - 1] in _NO_LINE_END and _fits(text, line_start, cut - 1, i, width):
            cut -= 1
        breaks.append(cut)
        line_start = cut
        used = sum(_cells(c) for c in text[cut : i + 1])
        i += 1
    return breaks
