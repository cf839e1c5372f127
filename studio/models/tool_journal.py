"""`staging/tools/<id>.json`: the journal of one tool-mode change (`character ...`, `world rule ...`) that
touches several files (issue 7 item 6; applied by `studio.tools.txn`).

    {
      "version": 1,
      "id": "20261123-001500-character-rename",
      "command": "character rename",
      "summary": "沈照 → 沈昭",
      "writes": [{"path": "characters/active/shen-zhao.json", "staged": "staging/tools/<id>/000.bin"}],
      "deletes": ["characters/active/old-slug.json"],
      "backup": ".novel-studio/tool-backup/<id>"
    }

- Paths are relative to the project root, with `/` separators; `staged` holds the whole new content of
  `path`, written before the journal. The journal's own write is the commit point: without it nothing was
  changed; with it every start finishes the change (each write and delete is safe to repeat).
- `backup` holds the files as they were before (same relative paths), kept after the change.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from studio.models.base import FileModel


class StagedWrite(BaseModel):
    model_config = ConfigDict(extra="allow")

    path: str = Field(min_length=1)
    staged: str = Field(min_length=1)


class ToolJournal(FileModel):
    version: int = 1
    id: str = Field(min_length=1)
    command: str = ""
    summary: str = ""
    writes: list[StagedWrite] = Field(default_factory=list)
    deletes: list[str] = Field(default_factory=list)
    backup: str = ""
