"""The outline's chapter marks: "edited by hand, not rebuilt" and "needs review" (no Textual here).

`ChapterMarks` is an immutable value the main screen holds as a reactive: every change makes a new value, so the
screen's watcher redraws the outline once per change. `edited` lives only in the session (a hand edit the
author has not rebuilt yet); `review` is read from `.novel-studio/review-marks.json` (`studio.models.review_marks`),
written by the rebuild and cleared by `m`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from studio.i18n import Catalog, Lang, tr
from studio.models.review_marks import ReviewMarks, load_review_marks
from studio.paths import ProjectPaths

MESSAGES: Catalog = {
    "needs_review": (
        "第{n}章需要复查（第{cause}章的修改可能与之矛盾）：\n{reasons}",
        "Chapter {n} needs review (the edit of chapter {cause} may contradict it):\n{reasons}",
    ),
    "edited_pending": ("第{n}章被手动修改，尚未重建", "Chapter {n} was edited by hand and is not rebuilt yet"),
}


@dataclass(frozen=True)
class ChapterMarks:
    """The marks shown in the outline."""

    edited: frozenset[int] = frozenset()
    review: ReviewMarks = field(default_factory=ReviewMarks)

    def chapters(self) -> set[int]:
        """Every marked chapter (either mark)."""
        return set(self.edited) | set(self.review.chapters())

    def review_chapters(self) -> set[int]:
        return set(self.review.chapters())

    def with_edited(self, n: int, edited: bool = True) -> ChapterMarks:
        chapters = set(self.edited) | {n} if edited else set(self.edited) - {n}
        return replace(self, edited=frozenset(chapters))

    def with_review(self, review: ReviewMarks) -> ChapterMarks:
        return replace(self, review=review)

    def reasons(self, n: int, lang: Lang) -> str | None:
        """Why chapter `n` is marked (localised lines), or None."""
        parts: list[str] = []
        if n in self.edited:
            parts.append(tr(MESSAGES, "edited_pending", lang, n=n))
        for mark in self.review.for_chapter(n):
            reasons = "\n".join(f"- {r}" for r in mark.reasons) or "-"
            parts.append(tr(MESSAGES, "needs_review", lang, n=n, cause=mark.caused_by_chapter, reasons=reasons))
        return "\n".join(parts) or None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ChapterMarks):
            return NotImplemented
        return self.edited == other.edited and self.review.to_data() == other.review.to_data()

    __hash__ = None  # type: ignore[assignment]


def read_review_marks(root: Path) -> ReviewMarks:
    """The review marks file; a missing or broken file reads as no marks (it must never stop the studio)."""
    try:
        return load_review_marks(ProjectPaths(Path(root)))
    except Exception:
        return ReviewMarks()


__all__ = ["MESSAGES", "ChapterMarks", "read_review_marks"]
