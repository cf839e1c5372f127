"""The cast pass's reply (`prompts/import-survey.v1.md`, Format section) as the code accepts it.

The cast pass reads the opening chapters of an imported book once, before the per-chapter pass, so the
Summarizer's state ops can name the characters by the ids the character files use. Every rule below is an error
line sent back to the model for repair (`pipeline.structured`), so nothing unchecked is written:

- `characters`: 1-`MAX_SURVEY_CAST` CharacterWeaver characters (`WovenCharacter`: slug id, display name, aliases,
  at least one L2 contract), ids and display names distinct, no alias shared by two characters;
- `relationships` join two of those characters (or characters the project already has, `known_ids`);
- `rules`: at most `MAX_SURVEY_RULES` L1 world rules, distinct ids;
- `storylines`: at least one; exactly one of type `main_arc`, whose id becomes `main-arc` (the id every other
  part of the product gives the main line); ids distinct slugs;
- `names`: places, factions and items to register in `world/names.json` (characters are registered through
  their files).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from studio.models.distinct import require_distinct
from studio.models.names import NamedEntity
from studio.models.relationships import Relationship
from studio.models.storylines import Storyline
from studio.models.world_rules import WorldRule
from studio.models.woven_character import WovenCharacter

__all__ = ["MAIN_ARC", "MAX_SURVEY_CAST", "MAX_SURVEY_RULES", "ImportSurveyReply"]

MAX_SURVEY_CAST = 16
MAX_SURVEY_RULES = 10
MAIN_ARC = "main-arc"


class ImportSurveyReply(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    characters: list[WovenCharacter] = Field(min_length=1, max_length=MAX_SURVEY_CAST)
    relationships: list[Relationship] = Field(default_factory=list)
    rules: list[WorldRule] = Field(default_factory=list, max_length=MAX_SURVEY_RULES)
    storylines: list[Storyline] = Field(min_length=1)
    names: list[NamedEntity] = Field(default_factory=list)
    notes: str = ""

    @model_validator(mode="before")
    @classmethod
    def _main_arc_id(cls, data: Any) -> Any:
        """The main line's id is the product's `main-arc`, whatever the model called it."""
        if isinstance(data, dict) and isinstance(data.get("storylines"), list):
            lines = [dict(s) if isinstance(s, dict) else s for s in data["storylines"]]
            mains = [s for s in lines if isinstance(s, dict) and s.get("type") == "main_arc"]
            if len(mains) == 1:
                mains[0]["id"] = MAIN_ARC
            data = {**data, "storylines": lines}
        return data

    @model_validator(mode="after")
    def _consistent(self) -> ImportSurveyReply:
        require_distinct("character ids", [c.id for c in self.characters])
        require_distinct("display names", [c.display_name for c in self.characters])
        owner: dict[str, str] = {c.display_name: c.id for c in self.characters}
        for c in self.characters:
            for alias in c.aliases:
                if owner.setdefault(alias, c.id) != c.id:
                    raise ValueError(f"alias {alias!r} of {c.id} is also a name of {owner[alias]}")
        require_distinct("rule ids", [r.id for r in self.rules])
        mains = [s.id for s in self.storylines if s.type == "main_arc"]
        if len(mains) != 1:
            raise ValueError(f"exactly one storyline must have type main_arc, found {len(mains)}")
        require_distinct("storyline ids", [s.id for s in self.storylines])
        return self

    def check_relationships(self, known_ids: set[str]) -> list[str]:
        """Error lines for relationships naming a character that is neither in the reply nor in the project."""
        ids = {c.id for c in self.characters} | known_ids
        return [
            f"relationships[{i}] names {end!r}, which is none of the characters {sorted(ids)}"
            for i, rel in enumerate(self.relationships)
            for end in (rel.from_, rel.to)
            if end not in ids
        ]
