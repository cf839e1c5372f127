"""`world/names.json`: the project's names that are not characters (locations, items, factions, ...) and
their aliases, so checks know every registered name (issue 8). Characters keep their names in their own files
(`display_name` + `aliases`).

    {
      "version": 1,
      "entities": [
        {"id": "qingyun-sect", "name": "青云宗", "kind": "faction", "aliases": ["青云门"]},
        {"name": "玄铁剑", "kind": "item"}
      ]
    }

- `kind` is open (location, item, faction, technique, ...); `id` is optional (a slug when given).
- Written by the planning agents and by the author; unknown fields are kept on rewrite.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints

from studio.ids import check_slug
from studio.models.base import FileModel

Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]


def _entity_id(value: str) -> str:
    return check_slug(value, "entity id")


class NamedEntity(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    id: Annotated[str, AfterValidator(_entity_id)] | None = None
    name: Name
    kind: str = "other"
    aliases: list[Name] = Field(default_factory=list)


class NamesFile(FileModel):
    version: int = 1
    entities: list[NamedEntity] = Field(default_factory=list)
