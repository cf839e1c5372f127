"""`characters/active/<id>.json`: a character's structured data with its L2 contracts (seed 000 6.5.3,
seed 001 9.1).

The file name is the character id, so `id` inside the file is optional; when present it must be a slug and
should match the file name (`problems(file_id)`). Only `display_name` is required; every other field
(relationships, appearance, ...) is kept as written. Contract `type` is open (capability, personality,
relationship, ...): new kinds of behaviour boundary do not need a code change.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from studio.i18n import Catalog
from studio.ids import check_slug
from studio.models.base import FileModel
from studio.models.validation_text import FieldProblem, field_problem

MESSAGES: Catalog = {
    "id_mismatch": ("id {id!r} 与文件名 {file!r} 不一致", "id {id!r} does not match the file name {file!r}"),
    "duplicate_contract": ("契约 id {id!r} 重复", "duplicate contract id {id!r}"),
    "ends_early": ("结束章节早于 valid_from_chapter", "ends before valid_from_chapter"),
}


def _character_id(value: str) -> str:
    return check_slug(value, "character id")


class CharacterContract(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    id: str = Field(min_length=1)
    type: str = ""
    rule: str = Field(min_length=1)
    valid_from_chapter: int | None = Field(default=None, ge=1)
    valid_until: int | None = Field(default=None, ge=1)  # null: still in force
    update_requires: str | None = None
    exceptions: list[str] = Field(default_factory=list)

    def in_force(self, chapter: int) -> bool:
        if self.valid_from_chapter is not None and chapter < self.valid_from_chapter:
            return False
        return self.valid_until is None or chapter <= self.valid_until


class CharacterFile(FileModel):
    id: Annotated[str, AfterValidator(_character_id)] | None = None
    display_name: str = Field(min_length=1)
    aliases: list[str] = Field(default_factory=list)  # other names the text uses for this character
    contracts: list[CharacterContract] = Field(default_factory=list)

    def contracts_in_force(self, chapter: int) -> list[CharacterContract]:
        return [c for c in self.contracts if c.in_force(chapter)]

    def problems(self, file_id: str | None = None) -> list[FieldProblem]:
        """Cross-reference problems in both languages; `str()` of each is `"$.path: English reason"`."""
        out: list[FieldProblem] = []
        if file_id is not None and self.id is not None and self.id != file_id:
            out.append(field_problem(MESSAGES, "id_mismatch", "$.id", id=self.id, file=file_id))
        seen: set[str] = set()
        for i, contract in enumerate(self.contracts):
            if contract.id in seen:
                out.append(field_problem(MESSAGES, "duplicate_contract", f"$.contracts[{i}].id", id=contract.id))
            seen.add(contract.id)
            if (
                contract.valid_from_chapter
                and contract.valid_until
                and contract.valid_until < contract.valid_from_chapter
            ):
                out.append(field_problem(MESSAGES, "ends_early", f"$.contracts[{i}].valid_until"))
        return out
