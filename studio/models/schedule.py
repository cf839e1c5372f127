"""`volumes/vol-NN/storyline-schedule.json`: which storylines a volume weaves and how (seed 000 6.6.2).

Every storyline reference is a slug (`StorylineId`). `interleaving_pattern` is a rhythm hint for the planner,
not an exact layout, so its fields are all optional and unknown ones are kept. Whether the referenced
storylines exist, and the seed's "at most 4 active lines" limit, are reported by `problems()`.

Accepted input variants (the reference plugin, DankerMu/novel-writer-plugin, writes them):
- `volume` may be missing: the file's folder (`vol-NN`) says which volume it is.
- a convergence event may give `target_chapter_range` instead of `chapter_range` (and an `event` text,
  kept as an extra field). It is read as `chapter_range` and written back under that name.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from studio.i18n import Catalog
from studio.models.aliases import renamed
from studio.models.base import FileModel
from studio.models.storylines import StorylineId, Storylines
from studio.models.validation_text import FieldProblem, field_problem

MAX_ACTIVE_STORYLINES = 4  # seed 000 6.6: consistency is only feasible with <= 4 concurrently active lines

MESSAGES: Catalog = {
    "too_many": (
        "同时活跃的故事线有 {count} 条，超过 {max} 条容易串线",
        "{count} active storylines, more than {max} makes cross-line mix-ups likely",
    ),
    "unknown_storyline": ("未知的故事线 {id!r}", "unknown storyline {id!r}"),
}


class _Object(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


class ScheduledStoryline(_Object):
    storyline_id: StorylineId
    volume_role: Literal["primary", "secondary", "seasoning"]
    target_chapters: int | None = Field(default=None, ge=0)
    arc_goal: str = ""


class InterleavingPattern(_Object):
    strategy: str | None = None
    primary_max_consecutive: int | None = Field(default=None, ge=1)
    secondary_min_appearance: str | None = None  # e.g. "every_8_chapters"
    seasoning_placement: str | None = None


class ConvergenceEvent(_Object):
    chapter_range: tuple[int, int]
    involved_storylines: list[StorylineId] = Field(default_factory=list)
    trigger: str = ""
    aftermath: str = ""

    @model_validator(mode="before")
    @classmethod
    def _target_range(cls, data: Any) -> Any:
        return renamed(data, "chapter_range", ("target_chapter_range",))

    @field_validator("chapter_range")
    @classmethod
    def _ordered(cls, value: tuple[int, int]) -> tuple[int, int]:
        first, last = value
        if first < 1 or last < first:
            raise ValueError(
                f"chapter_range must be [first, last] with 1 <= first <= last, got {list(value)}"
            )
        return value

    def chapters(self) -> range:
        return range(self.chapter_range[0], self.chapter_range[1] + 1)


class StorylineSchedule(FileModel):
    volume: int | None = Field(default=None, ge=1)  # None: the plugin's files leave it to the folder name
    volume_theme: str = ""
    active_storylines: list[ScheduledStoryline] = Field(default_factory=list)
    interleaving_pattern: InterleavingPattern = Field(default_factory=InterleavingPattern)
    convergence_events: list[ConvergenceEvent] = Field(default_factory=list)
    dormant_storylines: list[StorylineId] = Field(default_factory=list)
    newly_activated: list[StorylineId] = Field(default_factory=list)

    def convergence_chapters(self) -> set[int]:
        """Every chapter inside a planned convergence event (both ends included)."""
        return {n for event in self.convergence_events for n in event.chapters()}

    def is_convergence_chapter(self, chapter: int) -> bool:
        return any(chapter in event.chapters() for event in self.convergence_events)

    def role_of(self, storyline_id: str) -> str | None:
        entry = next((s for s in self.active_storylines if s.storyline_id == storyline_id), None)
        return entry.volume_role if entry else None

    def problems(self, storylines: Storylines | None = None) -> list[FieldProblem]:
        """Soft problems in both languages, each at its JSON path; pass `storylines` to check references too."""
        out: list[FieldProblem] = []
        if len(self.active_storylines) > MAX_ACTIVE_STORYLINES:
            out.append(
                field_problem(
                    MESSAGES, "too_many", "$.active_storylines", count=len(self.active_storylines),
                    max=MAX_ACTIVE_STORYLINES,
                )
            )
        if storylines is None:
            return out
        known = set(storylines.ids())
        refs: list[tuple[str, str]] = [
            (f"$.active_storylines[{i}].storyline_id", s.storyline_id)
            for i, s in enumerate(self.active_storylines)
        ]
        for i, event in enumerate(self.convergence_events):
            refs += [
                (f"$.convergence_events[{i}].involved_storylines[{j}]", s)
                for j, s in enumerate(event.involved_storylines)
            ]
        refs += [(f"$.dormant_storylines[{i}]", s) for i, s in enumerate(self.dormant_storylines)]
        refs += [(f"$.newly_activated[{i}]", s) for i, s in enumerate(self.newly_activated)]
        out += [field_problem(MESSAGES, "unknown_storyline", where, id=sid) for where, sid in refs if sid not in known]
        return out
