"""The volume review's files (卷末回顾; issue 7 item 5, seed 000 §2.2 2d, seed 002 §8.5).

- `ReviewSuggestions`: the model's suggestions for the next volume. It is the JSON reply the prompt
  `prompts/volume-review.v1.md` asks for, and it is kept in the review journal, so a killed review never
  pays for the call twice.
- `CleanupItem`: one temporary state entry the review proposes to remove (rules in
  `studio.planning.review`).
- `ReviewJournal`: `staging/review/vol-NN.json`, the review in progress. Written once the model's
  suggestions are in (the commit point of the review); `answer` is set when the author answered the clean-up
  question; the file is removed last, when the review is finished (see `studio.planning.review`).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from studio.models.base import FileModel

CleanupKind = Literal["retired_character", "stale_item", "stale_location", "resolved_thread"]
CleanupAnswer = Literal["apply", "keep"]


class ReviewSuggestions(FileModel):
    """What the model says about the finished volume and the next one (every field may be empty)."""

    summary: str = ""  # the volume in two or three sentences
    strengths: list[str] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list)
    next_volume: list[str] = Field(default_factory=list)  # concrete suggestions for planning the next volume
    threads_to_pay_off: list[str] = Field(default_factory=list)  # open threads worth paying off next
    raw: str = ""  # a reply that did not parse, kept as text so nothing the model said is lost


class CleanupItem(FileModel):
    """One state entry to remove: `path` is `characters.<slug>`, `items.<slug>`, `locations.<slug>` or
    `active_foreshadowing.<id>`; `reason` is Chinese, `reason_en` English."""

    kind: CleanupKind
    path: str = Field(min_length=1)
    label: str = ""  # the entry's display name when it has one
    reason: str = ""
    reason_en: str = ""


class ReviewJournal(FileModel):
    """`staging/review/vol-NN.json`: a review that has its suggestions and waits to be finished."""

    volume: int = Field(ge=1)
    first_chapter: int = Field(ge=1)
    last_chapter: int = Field(ge=1)
    state_version: int = Field(ge=0)  # the state the proposal was made against
    suggestions: ReviewSuggestions = Field(default_factory=ReviewSuggestions)
    cleanup: list[CleanupItem] = Field(default_factory=list)
    answer: CleanupAnswer | None = None
    cost_usd: float = 0.0
