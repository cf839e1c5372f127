""".novel-studio/review-marks.json: later chapters a hand edit (and its rebuild) may now contradict.

    {"marks": [{"chapter": 5, "reasons": ["沈照 的位置 ..."], "caused_by_chapter": 3,
                "created_at": "2026-03-16T10:00:00+08:00"}]}

One mark per (chapter, caused_by_chapter): rebuilding the same edited chapter again merges the new reasons
into its marks instead of piling up marks. Marks go away only when the author clears them: `clear(n)` removes
every mark of chapter n (the author reviewed it).
ProjectPaths has no property for this file; `review_marks_path(paths)` is the one place that names it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path

from pydantic import Field

from studio.models.base import FileModel
from studio.paths import ProjectPaths

REVIEW_MARKS_FILE = "review-marks.json"


def review_marks_path(paths: ProjectPaths) -> Path:
    return paths.root / ".novel-studio" / REVIEW_MARKS_FILE


def _now() -> str:
    return datetime.now().astimezone().isoformat(timespec="seconds")


class ReviewMark(FileModel):
    chapter: int = Field(ge=1)
    reasons: list[str] = Field(default_factory=list)
    caused_by_chapter: int = Field(ge=1)
    created_at: str = ""


class ReviewMarks(FileModel):
    marks: list[ReviewMark] = Field(default_factory=list)

    def add(self, chapter: int, reasons: Sequence[str], caused_by_chapter: int, *, created_at: str | None = None) -> None:
        """Mark `chapter` for review because of an edit of `caused_by_chapter`. A mark with the same cause
        gets the new reasons merged in (each once) and the new time; marks stay sorted by chapter."""
        merged = list(reasons)
        kept: list[ReviewMark] = []
        for mark in self.marks:
            if mark.chapter == chapter and mark.caused_by_chapter == caused_by_chapter:
                merged = list(dict.fromkeys([*mark.reasons, *merged]))
            else:
                kept.append(mark)
        kept.append(
            ReviewMark(chapter=chapter, reasons=merged, caused_by_chapter=caused_by_chapter, created_at=created_at or _now())
        )
        self.marks = sorted(kept, key=lambda m: (m.chapter, m.caused_by_chapter))

    def clear(self, chapter: int) -> bool:
        """Remove every mark of `chapter`; True if there was one."""
        kept = [m for m in self.marks if m.chapter != chapter]
        changed = len(kept) != len(self.marks)
        self.marks = kept
        return changed

    def for_chapter(self, chapter: int) -> list[ReviewMark]:
        return [m for m in self.marks if m.chapter == chapter]

    def chapters(self) -> list[int]:
        """The chapters that need review, ascending, each once."""
        return sorted({m.chapter for m in self.marks})


def load_review_marks(paths: ProjectPaths) -> ReviewMarks:
    return ReviewMarks.load_or_default(review_marks_path(paths))


def record_review_marks(
    paths: ProjectPaths, impacted: Mapping[int, Sequence[str]], caused_by_chapter: int
) -> ReviewMarks:
    """Add the marks of a rebuild of `caused_by_chapter` and save. Marks only go away when the author
    clears them: a second rebuild that changes nothing does not un-mark what the first one marked."""
    marks = load_review_marks(paths)
    stamp = _now()
    for chapter, reasons in sorted(impacted.items()):
        marks.add(chapter, reasons, caused_by_chapter, created_at=stamp)
    if impacted or review_marks_path(paths).exists():
        marks.save(review_marks_path(paths))
    return marks


def clear_review_mark(paths: ProjectPaths, chapter: int) -> bool:
    """The author marked `chapter` reviewed: drop its marks (the file is rewritten only on a change)."""
    marks = load_review_marks(paths)
    if not marks.clear(chapter):
        return False
    marks.save(review_marks_path(paths))
    return True
