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


class PendingReply(FileModel):
    """`.novel-studio/tool-replies/<sha256 of the request>.json`: a model's checked reply to a tool command
    that then paused for the author (no terminal, or `--json` without `--yes`). The same command run again
    (the same request) reuses it instead of paying for a new call; it is removed once the change is applied
    or cancelled."""

    version: int = 1
    command: str = ""
    text: str = Field(min_length=1)
    cost_usd: float = 0.0
    created_at: str = ""
