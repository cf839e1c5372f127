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

from pydantic import BaseModel, ConfigDict, Field, model_validator

from studio.models.relationships import Relationship
from studio.models.woven_character import WovenCharacter

__all__ = ["ToolCharacter", "WeaverToolReply"]


ToolCharacter = WovenCharacter  # tool mode's name for the shared model


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
