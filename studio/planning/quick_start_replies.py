"""The quick start's WorldBuilder and CharacterWeaver replies as the code accepts them (issue 7 item 2).

The JSON shapes are the Format sections of `prompts/world-builder.v1.md` and `prompts/character-weaver.v1.md`.
A reply is parsed into these models by `pipeline.structured` (validate -> repair at most twice); a validator's
`ValueError` is an error line sent back to the model, so every rule below is enforced before anything is
written:

- WorldBuilder (light mode): 1-`MAX_QUICK_RULES` L1 rules with distinct ids; notes only as `world/<slug>.md`;
  suggested storylines are slugs; registered names (`names`, places, factions, items) are optional.
- CharacterWeaver: `MIN_CAST`-`MAX_CAST` new characters (the protagonist and 1-2 others), slug ids, distinct,
  each with at least one L2 contract (contract ids distinct per character); every relationship joins two of
  them (or characters the project already has); `retire` must be empty in a quick start.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from studio.models.distinct import require_distinct
from studio.models.names import NamedEntity
from studio.models.relationships import Relationship
from studio.models.storylines import Storyline
from studio.models.world_rules import WorldRule
from studio.models.woven_character import WovenCharacter

__all__ = [
    "MAX_CAST",
    "MAX_QUICK_RULES",
    "MIN_CAST",
    "CastReply",
    "LightWorldReply",
    "ReplyCharacter",
    "WorldNote",
    "character_update_reply",
]

MAX_QUICK_RULES = 3
MIN_CAST = 2
MAX_CAST = 3
_NOTE_PATH = re.compile(r"^world/([a-z0-9][a-z0-9_-]*)\.md$")


class _Reply(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)


class WorldNote(_Reply):
    path: str
    content: str = Field(min_length=1)

    @field_validator("path")
    @classmethod
    def _under_world(cls, value: str) -> str:
        if not _NOTE_PATH.match(value):
            raise ValueError(f"path {value!r} must be world/<slug>.md (lowercase letters, digits, '-')")
        return value


class LightWorldReply(_Reply):
    files: list[WorldNote] = Field(default_factory=list)
    rules: list[WorldRule] = Field(min_length=1, max_length=MAX_QUICK_RULES)
    storylines: list[Storyline] = Field(default_factory=list)
    names: list[NamedEntity] = Field(default_factory=list)
    changelog: str = ""

    @model_validator(mode="after")
    def _distinct(self) -> LightWorldReply:
        require_distinct("rule ids", [r.id for r in self.rules])
        require_distinct("file paths", [f.path for f in self.files])
        return self

    def main_arc(self) -> Storyline | None:
        """The suggested main storyline: the one of type main_arc (id forced to `main-arc` by the caller)."""
        return next((s for s in self.storylines if s.type == "main_arc"), None)


ReplyCharacter = WovenCharacter  # the cast's name for the shared model


class CastReply(_Reply):
    characters: list[ReplyCharacter] = Field(min_length=MIN_CAST, max_length=MAX_CAST)
    relationships: list[Relationship] = Field(default_factory=list)
    retire: list[Any] = Field(default_factory=list, max_length=0)
    changelog: str = ""

    @model_validator(mode="after")
    def _cross_references(self) -> CastReply:
        ids = [c.id for c in self.characters]
        require_distinct("character ids", ids)
        require_distinct("display names", [c.display_name for c in self.characters])
        for i, rel in enumerate(self.relationships):
            for end in (rel.from_, rel.to):
                if end not in ids:
                    raise ValueError(f"relationships[{i}] names {end!r}, which is none of the characters {ids}")
        return self


def character_update_reply(slug: str) -> type[CastReply]:
    """The reply to "update character `slug`" (an adjustment after the trial chapters): exactly that one
    character, same id; relationships are not part of it."""

    class CharacterUpdateReply(CastReply):
        characters: list[ReplyCharacter] = Field(min_length=1, max_length=1)
        relationships: list[Any] = Field(default_factory=list)

        @model_validator(mode="after")
        def _cross_references(self) -> CharacterUpdateReply:
            if self.characters[0].id != slug:
                raise ValueError(f"characters[0].id must stay {slug!r}, not {self.characters[0].id!r}")
            return self

    return CharacterUpdateReply
