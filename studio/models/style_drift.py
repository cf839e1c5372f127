"""`style-drift.json`: style-drift corrections, written every 5 chapters when the style leaves its baseline
(seed 000 Layer 3 "风格校准", seed 001 9.1). The seeds give only the purpose; this is the design:

    {
      "generated_at_chapter": 25,
      "window": [21, 25],
      "drifts": [
        {"metric": "avg_sentence_length", "baseline": 18, "current": 26.5,
         "directive": "句子明显变长，回到 18 字左右的短句节奏"}
      ],
      "directives": ["少用比喻，回到短句切换"],
      "active": true
    }

- `drifts`: one entry per metric that left the style-profile baseline, with the correction it calls for.
- `directives`: extra instructions not tied to one metric. `injected_directives()` is what ChapterWriter and
  StyleRefiner receive: `directives`, then each drift's `directive`, deduplicated; nothing when inactive.
- `active`: the file stays until the style is back on baseline; then the detector sets it false (or deletes
  the file) instead of losing the history. An absent `active` means true: a drift file exists to be applied.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

from studio.models.base import FileModel


class Drift(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    metric: str = Field(min_length=1)  # avg_sentence_length, dialogue_ratio, blacklist_hits_per_1k, ...
    baseline: float | str | None = None
    current: float | str | None = None
    directive: str = ""


class StyleDrift(FileModel):
    generated_at_chapter: int | None = Field(default=None, ge=1)
    window: tuple[int, int] | None = None  # [from, to] chapters the measurement covered
    drifts: list[Drift] = Field(default_factory=list)
    directives: list[str] = Field(default_factory=list)
    active: bool = True

    @field_validator("window")
    @classmethod
    def _ordered(cls, value: tuple[int, int] | None) -> tuple[int, int] | None:
        if value is not None and (value[0] < 1 or value[1] < value[0]):
            raise ValueError(f"window must be [from, to] with 1 <= from <= to, got {list(value)}")
        return value

    def injected_directives(self) -> list[str]:
        if not self.active:
            return []
        texts = [*self.directives, *(d.directive for d in self.drifts)]
        return [t for t in dict.fromkeys(t.strip() for t in texts) if t]
