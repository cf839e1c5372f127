""".novel-studio/next-note.json: the author's note for the next chapter (the studio's `n`), kept until a chapter
is written with it.

    {"text": "这一章让主角第一次进城", "saved_at": "2026-03-16T10:00:00+08:00"}

The studio writes it when the author sets the note and removes it once a run that carried the note commits a
chapter; a note set and the studio quit before that is there again on the next start. An empty text is no note.
ProjectPaths has no property for this file; `author_note_path(paths)` is the one place that names it.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from studio.errors import StudioError
from studio.models.base import FileModel
from studio.paths import ProjectPaths

AUTHOR_NOTE_FILE = "next-note.json"


class AuthorNote(FileModel):
    text: str = ""
    saved_at: str = ""


def author_note_path(paths: ProjectPaths) -> Path:
    return paths.root / ".novel-studio" / AUTHOR_NOTE_FILE


def load_author_note(paths: ProjectPaths) -> str | None:
    """The kept note, or None (no file, an empty text, or a file that cannot be read: never stops the studio)."""
    try:
        note = AuthorNote.load_or_default(author_note_path(paths))
    except (StudioError, OSError):
        return None
    return note.text.strip() or None


def save_author_note(paths: ProjectPaths, text: str | None) -> None:
    """Keep `text` as the next chapter's note; None or blank removes the kept note."""
    path = author_note_path(paths)
    if not text or not text.strip():
        path.unlink(missing_ok=True)
        return
    stamp = datetime.now().astimezone().isoformat(timespec="seconds")
    AuthorNote(text=text, saved_at=stamp).save(path)


__all__ = ["AUTHOR_NOTE_FILE", "AuthorNote", "author_note_path", "load_author_note", "save_author_note"]
