"""Where an import in progress is recorded (`.novel-studio/import-journal.json`, `ImportJournal`) and how
the rest of the product asks about it (the cold-start check, `status`, the import itself).

A journal that cannot be read counts as pending too (an import was under way; the author is told to rerun
it), never as "no import": the chapters it was writing would otherwise look like the author's own.
"""

from __future__ import annotations

from studio.models.import_journal import ImportJournal
from studio.paths import ProjectPaths
from studio.pending import import_journal_path as journal_path


def import_pending(paths: ProjectPaths) -> bool:
    return journal_path(paths).exists()


def load_journal(paths: ProjectPaths) -> ImportJournal | None:
    """The pending import's journal, None when there is none; FormatError when it is broken."""
    path = journal_path(paths)
    if not path.exists():
        return None
    return ImportJournal.load(path)


def save_journal(paths: ProjectPaths, journal: ImportJournal) -> None:
    journal.save(journal_path(paths))


def clear_journal(paths: ProjectPaths) -> None:
    try:
        journal_path(paths).unlink()
    except FileNotFoundError:
        pass

