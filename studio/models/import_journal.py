"""`.novel-studio/import-journal.json`: an import being written (issue 10 item 4), so a kill half way is finished
by the next run of the same import instead of leaving a half project.

Rules:
- Written by `studio.importing.build.write_project` before the first file of the import, removed after the
  import record is saved. While it exists the project is "an import killed half way": the cold-start check
  refuses to write (`import_unfinished`) and only the same import (same source bytes, same chapters) may
  finish it.
- `chapters` is the plan: each chapter's project number and the sha256 of the file the import writes, so a
  rerun can tell "the same import" (finish it) from "another import" (refuse), and every write of the import
  is idempotent (a chapter already on disk with that hash is not written again).
- `first_chapter`/`last_chapter` are fixed when the journal is written: an `--append` rerun continues after
  the same chapter as the interrupted one, never after the chapters it already wrote.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from studio.models.base import FileModel
from studio.models.import_record import ImportedChapter, ImportSource


class JournalVolume(BaseModel):
    number: int = Field(ge=1)
    title: str = ""
    first: int = Field(ge=1)
    last: int = Field(ge=1)


class ImportJournal(FileModel):
    version: int = 1
    append: bool = False
    source: ImportSource
    first_chapter: int = Field(ge=1)
    last_chapter: int = Field(ge=1)
    chapters: list[ImportedChapter] = Field(default_factory=list)
    volumes: list[JournalVolume] = Field(default_factory=list)
    started_at: str = ""

    def same_import(self, other: ImportJournal) -> bool:
        """The same source bytes cut into the same chapter files, at the same place."""
        return (
            self.source.sha256 == other.source.sha256
            and self.first_chapter == other.first_chapter
            and [(c.chapter, c.sha256) for c in self.chapters] == [(c.chapter, c.sha256) for c in other.chapters]
        )
