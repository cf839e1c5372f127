"""`.novel-studio/import.json`: what an import wrote into the project and how far the model's extraction got
(issue 10). Written by `studio.importing.build` (the deterministic depth) and advanced by
`pipeline.importing.extract` (the full depth); read by `status`, the studio and the cold-start check.

Rules:
- One `ImportSource` per import run (`import SOURCE` once, then more with `--append`); its copy of the source,
  unchanged byte for byte, is `import/<stored_as>` (`ProjectPaths.import_dir`).
- One `ImportedChapter` per chapter written, `chapter` being its project number. `sha256` is of the chapter
  file as written by the import, so a later hand edit is visible.
- `extracted_through` is the last chapter whose full extraction is committed: extraction goes in chapter order
  (state is cumulative), so chapters 1..extracted_through are "full" and the rest "deterministic".
  `extraction_started_at` is the first chapter of the book whose state the extraction builds (1 unless the
  author chose to start later); chapters before it are never extracted.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from studio.models.base import FileModel
from studio.models.manuscript import ChapterKind, SplitMode

IMPORT_RECORD_VERSION = 1


class ImportSource(BaseModel):
    name: str
    stored_as: str
    sha256: str
    encoding: str = "utf-8"
    mode: SplitMode = "headings"
    imported_at: str = ""
    first_chapter: int = Field(ge=1)
    last_chapter: int = Field(ge=1)


class ImportedChapter(BaseModel):
    chapter: int = Field(ge=1)
    kind: ChapterKind = "chapter"
    label: str = ""
    title: str = ""
    source_number: int | None = None
    source_file: str = ""
    volume: int = Field(default=1, ge=1)
    sha256: str = ""


class ImportRecord(FileModel):
    version: int = IMPORT_RECORD_VERSION
    sources: list[ImportSource] = Field(default_factory=list)
    chapters: list[ImportedChapter] = Field(default_factory=list)
    extraction_started_at: int = Field(default=1, ge=1)
    extracted_through: int = Field(default=0, ge=0)
    names_confirmed: bool = False

    @property
    def last_chapter(self) -> int:
        return max((c.chapter for c in self.chapters), default=0)
