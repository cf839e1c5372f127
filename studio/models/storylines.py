"""`storylines/storylines.json`: every storyline of the novel and how they touch (seed 000 section 6.6.1).

Decisions where the seed is silent:
- A storyline id is a slug (`check_slug`): it names `storylines/<id>/memory.md`, so `../x` or `主线` is a hard
  error at `$.storylines[i].id`.
- `type` is a free string. It should be one of the file's own `storyline_types` (or `DEFAULT_STORYLINE_TYPES`
  when the file lists none), but an unknown type is reported by `Storylines.problems()` instead of refusing
  the file: authors invent types, and a typo must not stop the whole project from opening.
- `status` is open too (`KNOWN_STATUSES` are the seed's words plus `resolved`); unknown ones are reported.
- Relationship endpoints, duplicate ids and unknown types are cross-references: `problems()` returns them as
  `FieldProblem`s (JSON path, English and Chinese reason; `studio.models.validation_text`).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from studio.i18n import Catalog
from studio.ids import check_slug
from studio.models.base import FileModel
from studio.models.validation_text import FieldProblem, field_problem

DEFAULT_STORYLINE_TYPES: tuple[str, ...] = (
    "main_arc",
    "faction_conflict",
    "conspiracy",
    "mystery",
    "character_arc",
    "parallel_timeline",
)
KNOWN_STATUSES: tuple[str, ...] = ("active", "dormant", "planned", "resolved")

MESSAGES: Catalog = {
    "duplicate_id": ("故事线 id {id!r} 重复", "duplicate storyline id {id!r}"),
    "unknown_type": (
        "未知的故事线类型 {type!r}（不在 storyline_types 中）",
        "unknown storyline type {type!r} (not in storyline_types)",
    ),
    "unknown_status": ("未知的状态 {status!r}", "unknown status {status!r}"),
    "unknown_storyline": ("未知的故事线 {id!r}", "unknown storyline {id!r}"),
}


def _storyline_id(value: str) -> str:
    return check_slug(value, "storyline id")


# A storyline id that is safe to use as a folder name; shared by the schedule, contract and log models.
StorylineId = Annotated[str, AfterValidator(_storyline_id)]


class _Object(BaseModel):
    # Nested objects keep unknown fields too, so a rewrite never drops what an author added.
    model_config = ConfigDict(extra="allow", populate_by_name=True)


class Storyline(_Object):
    id: StorylineId
    name: str
    type: str
    scope: Literal["novel", "multi_volume", "single_volume"] = "novel"
    pov_characters: list[str] = Field(default_factory=list)
    affiliated_factions: list[str] = Field(default_factory=list)
    timeline: str = "present"
    status: str = "active"
    introduced_volume: int | None = Field(default=None, ge=1)
    description: str = ""


class Bridges(_Object):
    shared_characters: list[str] = Field(default_factory=list)
    shared_foreshadowing: list[str] = Field(default_factory=list)
    shared_events: list[str] = Field(default_factory=list)


class StorylineRelationship(_Object):
    # `from` is a Python keyword: the attribute is `from_`, the JSON key stays `from`.
    from_: str = Field(alias="from")
    to: str
    type: str = ""
    bridges: Bridges = Field(default_factory=Bridges)
    convergence_condition: str = ""
    narrative_function: str = ""


class Storylines(FileModel):
    storylines: list[Storyline] = Field(default_factory=list)
    relationships: list[StorylineRelationship] = Field(default_factory=list)
    storyline_types: list[str] = Field(default_factory=lambda: list(DEFAULT_STORYLINE_TYPES))

    def ids(self) -> list[str]:
        return [line.id for line in self.storylines]

    def names(self) -> dict[str, str]:
        """id -> the name the author reads (the id itself when the file gives no name): ids are for files."""
        return {line.id: line.name.strip() or line.id for line in self.storylines}

    def get(self, storyline_id: str) -> Storyline | None:
        return next((line for line in self.storylines if line.id == storyline_id), None)

    def allowed_types(self) -> list[str]:
        return list(self.storyline_types) or list(DEFAULT_STORYLINE_TYPES)

    def problems(self) -> list[FieldProblem]:
        """Cross-reference problems in both languages, each at its JSON path. Empty when the file is consistent."""
        out: list[FieldProblem] = []
        seen: set[str] = set()
        types = set(self.allowed_types())
        for i, line in enumerate(self.storylines):
            if line.id in seen:
                out.append(field_problem(MESSAGES, "duplicate_id", f"$.storylines[{i}].id", id=line.id))
            seen.add(line.id)
            if line.type not in types:
                out.append(field_problem(MESSAGES, "unknown_type", f"$.storylines[{i}].type", type=line.type))
            if line.status not in KNOWN_STATUSES:
                out.append(field_problem(MESSAGES, "unknown_status", f"$.storylines[{i}].status", status=line.status))
        for i, rel in enumerate(self.relationships):
            if rel.from_ not in seen:
                out.append(field_problem(MESSAGES, "unknown_storyline", f"$.relationships[{i}].from", id=rel.from_))
            if rel.to not in seen:
                out.append(field_problem(MESSAGES, "unknown_storyline", f"$.relationships[{i}].to", id=rel.to))
        return out
