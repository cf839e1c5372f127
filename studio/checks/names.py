"""The name registry: every registered name of the project, into one matcher.

Sources: each character file (`display_name` + `aliases`, entity key `character:<slug>`) and the project names
file `world/names.json` (`studio.models.names`: locations, items, factions, ... with aliases; key
`<kind>:<id or name>`).

Rules:

- a name of one character is kept in the registry but not matched (too many false hits: 雨, 风); the registry
  reports it in `skipped`;
- a name listed by two entities is a problem (`problems`), the first listing owns it;
- `matcher()` gives one `studio.checks.matcher.Matcher` over all names (category `name:<kind>`, `ref` = entity
  key); the longest name wins an overlap (苏婉儿 over 苏婉).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from studio.checks.matcher import Entry, Matcher
from studio.models.character import CharacterFile
from studio.models.names import NamesFile

MIN_NAME_LEN = 2


@dataclass(frozen=True)
class NameEntity:
    key: str  # "character:lin-feng", "faction:qingyun-sect", ...
    kind: str  # character, location, item, faction, ...
    name: str
    aliases: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


class NameRegistry:
    def __init__(self, entities: list[NameEntity]) -> None:
        self.entities = entities
        self.problems: list[str] = []
        self.skipped: list[str] = []
        self._owner: dict[str, NameEntity] = {}
        for entity in entities:
            for name in entity.names:
                name = name.strip()
                if not name:
                    continue
                other = self._owner.get(name)
                if other is not None and other.key != entity.key:
                    self.problems.append(f"{name}: listed by {other.key} and {entity.key}")
                    continue
                self._owner[name] = entity
                if len(name) < MIN_NAME_LEN and name not in self.skipped:
                    self.skipped.append(name)
        self._matcher: Matcher | None = None

    @classmethod
    def from_sources(
        cls, characters: Mapping[str, CharacterFile], names: NamesFile | None = None
    ) -> NameRegistry:
        entities = [
            NameEntity(f"character:{slug}", "character", c.display_name, tuple(c.aliases))
            for slug, c in sorted(characters.items())
        ]
        for item in names.entities if names else []:
            entities.append(
                NameEntity(f"{item.kind}:{item.id or item.name}", item.kind, item.name, tuple(item.aliases))
            )
        return cls(entities)

    @classmethod
    def load(cls, characters: Mapping[str, CharacterFile], names_path: Path) -> NameRegistry:
        """Characters already loaded by the project, plus the names file (missing: none; broken: FormatError)."""
        return cls.from_sources(characters, NamesFile.load_or_default(names_path))

    def owner(self, name: str) -> NameEntity | None:
        return self._owner.get(name)

    def names(self) -> list[str]:
        """Every matchable name (two characters or more)."""
        return [n for n in self._owner if len(n) >= MIN_NAME_LEN]

    def is_known(self, text: str) -> bool:
        return text in self._owner

    def matcher(self) -> Matcher:
        if self._matcher is None:
            self._matcher = Matcher(
                Entry(name, "phrase", "limited", f"name:{entity.kind}", entity.key)
                for name, entity in self._owner.items()
                if len(name) >= MIN_NAME_LEN
            )
        return self._matcher
