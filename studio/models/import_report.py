"""`logs/import-report.json`: what the deterministic depth of an import measured (issue 10 item 3), written by
`studio.importing.deterministic` after the chapters are in; read by `import --json`, `status` and the studio.

- `chapter_chars` maps each analysed chapter to its 字数 (`studio.wordcount`); `metrics` are book averages of
  `studio.checks.metrics.ProseMetrics` (per-chapter values weighted by 字数); `findings` counts the check
  findings by kind (the findings themselves are in `logs/chapter-NNN/checks.json`, where the checks keep them);
  `names` are the candidate names offered to the author (`studio.importing.names`), `registered` those the
  author confirmed; `deferred` names the checks left for later (`novel-studio check`).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from studio.models.base import FileModel


class ImportReport(FileModel):
    version: int = 1
    first_chapter: int = Field(default=1, ge=1)
    last_chapter: int = Field(default=1, ge=1)
    chapters: int = 0
    chars: int = 0
    chapter_chars: dict[int, int] = Field(default_factory=dict)
    metrics: dict[str, float] = Field(default_factory=dict)
    findings: dict[str, int] = Field(default_factory=dict)
    names: list[dict[str, Any]] = Field(default_factory=list)
    registered: list[str] = Field(default_factory=list)
    deferred: list[str] = Field(default_factory=list)
    seconds: dict[str, float] = Field(default_factory=dict)
