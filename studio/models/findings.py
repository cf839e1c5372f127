"""What the checks report (issue 8): `Finding`, and the per-chapter report `logs/chapter-NNN/checks.json`,
which is also what `novel-studio check --json` prints:

    {"findings": [{"kind": "name_variant", "chapter": 12, "text": "林峰", "suggestion": "林枫",
                   "count": 1, "severity": "medium", "paragraph": 7, "offset": 3, "message": "..."}],
     "stats": {"chapters": 1, "chars": 3012, ...}}

- `kind` is an open string naming the check (`name_variant`, `punctuation`, `blacklist`, `structural_tic`,
  `new_name`, `chapter_length`, and later `continuity_*`, `leak`, `foreshadowing_*`, `style_drift`,
  `judge_quote_missing`, ...); a new check needs no change here.
- `text` is the text as it stands in the chapter; `paragraph` (1-based, `studio.checks.paragraphs`) and
  `offset` (0-based inside that paragraph) point at its first occurrence; `count` is how many occurrences the
  finding stands for; `chapter` is None for book-wide findings.
- `context` is up to 8 characters either side of the first occurrence, within its paragraph; an "ignore here"
  waiver matches on it, so a waiver survives paragraphs being added before it.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from studio.models.base import FileModel

Severity = Literal["info", "low", "medium", "high"]
SEVERITIES: tuple[Severity, ...] = ("info", "low", "medium", "high")


def severity_rank(severity: str) -> int:
    return SEVERITIES.index(severity) if severity in SEVERITIES else 0


class Finding(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    kind: str = Field(min_length=1)
    chapter: int | None = Field(default=None, ge=1)
    text: str = ""
    suggestion: str | None = None
    count: int = Field(default=1, ge=1)
    severity: Severity = "low"
    paragraph: int | None = Field(default=None, ge=1)
    offset: int | None = Field(default=None, ge=0)
    message: str = ""
    context: str = ""


class ChecksReport(FileModel):
    findings: list[Finding] = Field(default_factory=list)
    stats: dict[str, Any] = Field(default_factory=dict)
