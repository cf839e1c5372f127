"""`characters/relationships.json`: how the characters stand with each other (seed 001 section 9.1; ids, not
display names, at both ends).

    {"relationships": [{"from": "shen-zhao", "to": "xu-qing-he", "type": "uneasy_allies", "score": 10,
                        "description": "第2章相识……"}]}

Accepted input variants: CharacterWeaver replies `{"from", "to", "value", "note"}` (seed 000 §5.2); `value` is
read as `score` and `note` as `description`. Unknown fields are kept on rewrite. Endpoints are slugs; whether
they name existing characters is a cross-reference, reported by `problems(known)`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from studio.i18n import Catalog
from studio.ids import is_slug
from studio.models.aliases import renamed
from studio.models.base import FileModel
from studio.models.validation_text import FieldProblem, field_problem

MESSAGES: Catalog = {
    "not_slug": ("{value!r} 不是 slug 形式的 id", "{value!r} is not a slug id"),
    "unknown_character": ("未知的角色 {value!r}", "unknown character {value!r}"),
    "self": ("角色与自己建立了关系（{value!r}）", "a character related to itself ({value!r})"),
}


class Relationship(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    from_: str = Field(alias="from", min_length=1)
    to: str = Field(min_length=1)
    type: str = ""
    score: int = Field(default=0, ge=-100, le=100)
    description: str = ""

    @model_validator(mode="before")
    @classmethod
    def _weaver_shape(cls, data: Any) -> Any:
        return renamed(renamed(data, "score", ("value",)), "description", ("note",))


class Relationships(FileModel):
    relationships: list[Relationship] = Field(default_factory=list)

    def problems(self, known: Iterable[str] | None = None) -> list[FieldProblem]:
        """Endpoints that are not slugs, or (given `known` ids) name no character; a self-relation."""
        ids = set(known) if known is not None else None
        out: list[FieldProblem] = []
        for i, rel in enumerate(self.relationships):
            for key, value in (("from", rel.from_), ("to", rel.to)):
                where = f"$.relationships[{i}].{key}"
                if not is_slug(value):
                    out.append(field_problem(MESSAGES, "not_slug", where, value=value))
                elif ids is not None and value not in ids:
                    out.append(field_problem(MESSAGES, "unknown_character", where, value=value))
            if rel.from_ == rel.to:
                out.append(field_problem(MESSAGES, "self", f"$.relationships[{i}]", value=rel.from_))
        return out
