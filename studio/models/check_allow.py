"""`checks-allow.json`: the author's waivers of check findings (issue 8). Its own file, not the blacklist's
whitelist.

    {
      "version": 1,
      "entries": [
        {"mode": "here", "kind": "punctuation", "chapter": 3, "text": "...", "context": "他说...然后"},
        {"mode": "deliberate", "kind": "name_variant", "text": "林峰", "reason": "林枫的化名"}
      ]
    }

- `here` ("ignore here"): this one place: same kind, chapter, text and context (the characters around it).
- `deliberate`: this name or pattern everywhere, for the reason the author gives (`reason` is required).
  `kind` may be "*" to waive the text for every check.
A waived finding is dropped before it is reported, so it never comes back.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from studio.models.base import FileModel
from studio.models.findings import Finding

AllowMode = Literal["here", "deliberate"]


class AllowEntry(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    mode: AllowMode
    kind: str = Field(default="*", min_length=1)
    text: str = ""  # empty for findings about a whole chapter (length, empty chapter)
    chapter: int | None = Field(default=None, ge=1)
    context: str = ""
    reason: str = ""

    @model_validator(mode="after")
    def _reason_for_deliberate(self) -> AllowEntry:
        if self.mode == "deliberate" and not self.reason.strip():
            raise ValueError("a deliberate waiver needs the author's reason")
        return self

    def waives(self, finding: Finding) -> bool:
        if self.kind not in ("*", finding.kind) or self.text != finding.text:
            return False
        if self.mode == "deliberate":
            return True
        return self.chapter == finding.chapter and (not self.context or self.context == finding.context)


class CheckAllowList(FileModel):
    version: int = 1
    entries: list[AllowEntry] = Field(default_factory=list)

    def waives(self, finding: Finding) -> bool:
        return any(entry.waives(finding) for entry in self.entries)

    def ignore_here(self, finding: Finding) -> AllowEntry:
        entry = AllowEntry(
            mode="here",
            kind=finding.kind,
            text=finding.text,
            chapter=finding.chapter,
            context=finding.context,
        )
        self.entries.append(entry)
        return entry

    def deliberate(self, finding: Finding, reason: str) -> AllowEntry:
        entry = AllowEntry(mode="deliberate", kind=finding.kind, text=finding.text, reason=reason)
        self.entries.append(entry)
        return entry
