"""`.novel-studio/blacklist-proposals.json`: blacklist entries the quality judge proposed, waiting for the author.

    {
      "next_id": 3,
      "proposals": [
        {"id": 1, "phrase": "眸光微闪", "tier": "banned", "count": 3, "chapters": [4, 6],
         "examples": ["她眸光微闪，没有说话。"], "note": "…", "proposed_by": "quality-judge", "status": "pending"},
        {"id": 2, "phrase": "心下一沉", "status": "rejected", ...}
      ]
    }

Rules:

- A proposal is never applied by itself: only the author's `approve` puts it into `ai-blacklist.json`
  (`studio.blacklist_review`); `reject` keeps it as `rejected`, so the same phrase proposed again stays rejected
  and is not asked about twice.
- Ids are stable (`next_id` only grows): `blacklist approve 3` means the same proposal whatever was decided
  since. A phrase proposed again while pending adds its chapter and keeps the highest count.
- `SuggestedEntry` is the judge's reply item (`blacklist_suggestions` of the judge's JSON, or the reference
  plugin's `anti_ai.blacklist_update_suggestions`): `phrase`, `count_in_chapter`, `examples`, `tier`, `note`,
  `confidence`. A phrase is 2-`MAX_PHRASE_CHARS` characters, no line break.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from studio.models.base import FileModel

MAX_PHRASE_CHARS = 12
Phrase = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=2, max_length=MAX_PHRASE_CHARS, pattern=r"^[^\n\r]+$")
]
ProposalStatus = Literal["pending", "approved", "rejected"]


class SuggestedEntry(BaseModel):
    """One entry the judge suggests (its reply's shape)."""

    model_config = ConfigDict(extra="ignore")

    phrase: Phrase
    count_in_chapter: int = Field(default=1, ge=0)
    examples: list[str] = Field(default_factory=list)
    tier: Literal["banned", "limited"] = "banned"
    note: str = ""
    confidence: Literal["low", "medium", "high"] | None = None


class BlacklistProposal(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: int = Field(ge=1)
    phrase: Phrase
    tier: Literal["banned", "limited"] = "banned"
    count: int = Field(default=1, ge=0)
    chapters: list[int] = Field(default_factory=list)
    examples: list[str] = Field(default_factory=list)
    note: str = ""
    proposed_by: str = "quality-judge"
    status: ProposalStatus = "pending"


class BlacklistProposals(FileModel):
    next_id: int = Field(default=1, ge=1)
    proposals: list[BlacklistProposal] = Field(default_factory=list)

    def pending(self) -> list[BlacklistProposal]:
        return [p for p in self.proposals if p.status == "pending"]

    def find(self, proposal_id: int) -> BlacklistProposal | None:
        return next((p for p in self.proposals if p.id == proposal_id), None)

    def record(self, suggestion: SuggestedEntry, chapter: int, *, proposed_by: str = "quality-judge") -> bool:
        """Add `suggestion` (from `chapter`) or merge it into the proposal of the same phrase; returns whether
        anything changed. A decided phrase (approved or rejected) is left as it is."""
        same = next((p for p in self.proposals if p.phrase == suggestion.phrase), None)
        if same is None:
            proposal = BlacklistProposal(
                id=self.next_id,
                phrase=suggestion.phrase,
                tier=suggestion.tier,
                count=suggestion.count_in_chapter,
                chapters=[chapter],
                examples=suggestion.examples[:2],
                note=suggestion.note,
                proposed_by=proposed_by,
            )
            self.proposals = [*self.proposals, proposal]
            self.next_id += 1
            return True
        if same.status != "pending" or (chapter in same.chapters and suggestion.count_in_chapter <= same.count):
            return False
        if chapter not in same.chapters:
            same.chapters = sorted({*same.chapters, chapter})
        same.count = max(same.count, suggestion.count_in_chapter)
        return True
