"""One character as CharacterWeaver returns it (the `characters[]` items of the Format section of
`prompts/character-weaver.v1.md`): the one definition shared by the quick start's cast, tool mode's
`character add|update` and the characters a volume plan needs.

Rules (each an error line sent back to the model for repair): a slug id, a display name, at least one L2
contract with distinct ids, aliases trimmed, deduplicated and never repeating the display name. Unknown fields
are kept (`extra="allow"`) and go into the character file with the rest (`file_fields`).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from studio.ids import is_slug
from studio.models.character import CharacterContract
from studio.models.distinct import require_distinct

__all__ = ["WovenCharacter"]


class WovenCharacter(BaseModel):
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
    def _distinct(self) -> WovenCharacter:
        require_distinct(f"contract ids of {self.id}", [c.id for c in self.contracts])
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
