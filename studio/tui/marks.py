"""The chapters' marks: "edited by hand, not rebuilt", "needs review", and the notes that must stay on screen
(no Textual here).

`ChapterMarks` is an immutable value the main screen holds as a reactive: every change makes a new value, so the
screen's watcher redraws the outline and the chapter pane's marks line once per change. `edited` lives only in
the session (a hand edit the author has not rebuilt yet); `review` is read from `.novel-studio/review-marks.json`
(`studio.models.review_marks`), written by the rebuild and cleared by `m`. `notes` are what the session learnt
about a chapter that a toast alone would lose: what its rebuild changed or why it failed, a stage error, why the
run paused on it, that another novel-studio process wrote it (`chapter` None: about the run, shown with every
chapter). Kinds: `rebuild`, `error`, `paused`, `peer`; a new note of a kind replaces the old one.

`lines(n, lang)` is the marks line of chapter `n`: each item starts with its symbol (↻ edited, ⚑ needs review,
✗ error, ‖ paused, ↺ rebuilt, ⇄ written by another process: the meaning reads without colour).
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
    "edited_line": ("↻ 手动修改过，尚未重建（重建会重新提取摘要与状态）", "↻ edited by hand, not rebuilt yet"),
    "review_line": (
        "⚑ 需复查：第{cause}章的修改可能与之矛盾（复查后按 m 去掉标记）",
        "⚑ needs review: the edit of chapter {cause} may contradict it (press m once reviewed)",
    ),
}

NOTE_SYMBOLS: dict[str, str] = {"rebuild": "↺", "error": "✗", "paused": "‖", "peer": "⇄"}
"""The symbol in front of a note of each kind."""


@dataclass(frozen=True)
class ChapterNote:
    """Something the author must be able to read again: `chapter` None is about the whole run."""

    chapter: int | None
    kind: str
    text: str


@dataclass(frozen=True)
class ChapterMarks:
    """The marks shown in the outline."""

    edited: frozenset[int] = frozenset()
    review: ReviewMarks = field(default_factory=ReviewMarks)
    notes: tuple[ChapterNote, ...] = ()

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

    def with_note(self, chapter: int | None, kind: str, text: str) -> ChapterMarks:
        """Add a note (replacing the chapter's earlier note of the same kind)."""
        kept = tuple(note for note in self.notes if (note.chapter, note.kind) != (chapter, kind))
        return replace(self, notes=(*kept, ChapterNote(chapter, kind, text)))

    def without_notes(self, chapter: int | None, *kinds: str) -> ChapterMarks:
        """Drop the chapter's notes of these kinds (every kind when none is given)."""
        kept = tuple(
            note for note in self.notes if note.chapter != chapter or (kinds and note.kind not in kinds)
        )
        return self if kept == self.notes else replace(self, notes=kept)

    def notes_for(self, n: int | None) -> list[ChapterNote]:
        """The notes shown with chapter `n`: its own, then the run's."""
        return [note for note in self.notes if note.chapter == n and n is not None] + [
            note for note in self.notes if note.chapter is None
        ]

    def lines(self, n: int, lang: Lang) -> list[str]:
        """The marks line of chapter `n`: edited, needs review (with the reasons), then the notes."""
        out: list[str] = []
        if n in self.edited:
            out.append(tr(MESSAGES, "edited_line", lang))
        for mark in self.review.for_chapter(n):
            out.append(tr(MESSAGES, "review_line", lang, cause=mark.caused_by_chapter))
            out.extend(f"  - {reason}" for reason in mark.reasons)
        for note in self.notes_for(n):
            out.append(f"{NOTE_SYMBOLS.get(note.kind, '•')} {note.text}")
        return out

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
        return (
            self.edited == other.edited
            and self.notes == other.notes
            and self.review.to_data() == other.review.to_data()
        )

    __hash__ = None  # type: ignore[assignment]


def read_review_marks(root: Path) -> ReviewMarks:
    """The review marks file; a missing or broken file reads as no marks (it must never stop the studio)."""
    try:
        return load_review_marks(ProjectPaths(Path(root)))
    except Exception:
        return ReviewMarks()


__all__ = ["MESSAGES", "NOTE_SYMBOLS", "ChapterMarks", "ChapterNote", "read_review_marks"]
