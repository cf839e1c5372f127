"""CharacterWeaver's reply in tool mode (`character add` / `character update` with a note; the JSON of the
Format section of `prompts/character-weaver.v1.md`), as the code accepts it.

Parsed by `pipeline.structured` (validate -> repair at most twice), so every rule here is an error line sent
back to the model before anything is written:
- exactly one character in `characters` (the one asked for), a slug id, a Chinese display name, at least one
  L2 contract, contract ids distinct, aliases not repeating the display name;
- `relationships` join that character to characters the project has (checked by the caller, who knows them);
- `retire` is ignored: retiring is its own command with its own protection checks.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from studio.ids import is_slug
from studio.models.character import CharacterContract
from studio.models.relationships import Relationship

__all__ = ["ToolCharacter", "WeaverToolReply"]


class ToolCharacter(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    id: str
    display_name: str = Field(min_length=1)
    role: str = ""
    profile_md: str = ""
    speech_pattern: str = ""
    aliases: list[str] = Field(default_factory=list)
    contracts: list[CharacterContract] = Field(min_length=1)

    @field_validator("id")
    @classmethod
    def _slug(cls, value: str) -> str:
        if not is_slug(value):
            raise ValueError(f"character id {value!r} must be a slug (lowercase pinyin/English and '-')")
        return value

    @field_validator("aliases")
    @classmethod
    def _aliases(cls, value: list[str]) -> list[str]:
        return list(dict.fromkeys(a.strip() for a in value if a.strip()))

    @model_validator(mode="after")
    def _distinct(self) -> ToolCharacter:
        ids = [c.id for c in self.contracts]
        if len(ids) != len(set(ids)):
            raise ValueError(f"contract ids of {self.id} must be distinct: {ids}")
        if self.display_name in self.aliases:
            raise ValueError(f"aliases of {self.id} repeat its display_name {self.display_name!r}")
        return self

    def file_fields(self) -> dict[str, Any]:
        """The fields that go into `characters/active/<id>.json` (the profile goes to `<id>.md`)."""
        data = self.model_dump(mode="json", by_alias=True, exclude={"profile_md"})
        if not data.get("speech_pattern"):
            data.pop("speech_pattern", None)
        if not data.get("role"):
            data.pop("role", None)
        return data


class WeaverToolReply(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    characters: list[ToolCharacter] = Field(min_length=1, max_length=1)
    relationships: list[Relationship] = Field(default_factory=list)
    changelog: str = ""

    @model_validator(mode="after")
    def _own_relationships(self) -> WeaverToolReply:
        me = self.characters[0].id
        for i, rel in enumerate(self.relationships):
            if me not in (rel.from_, rel.to):
                raise ValueError(f"relationships[{i}] must involve {me!r} (the character of this change)")
            if rel.from_ == rel.to:
                raise ValueError(f"relationships[{i}]: a character related to itself")
        return self
