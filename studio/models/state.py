"""`state/current-state.json` (seed 001 section 9.2): where every character, item and place stands now.

Conventions the Summarizer follows (prompts/summarizer.v1.md, "状态约定") and the continuity checks read
(`studio.checks.continuity`); all are ordinary fields set by ordinary ops, so older states stay valid:

- `characters.<id>.status`: one of `CHARACTER_STATUSES` — `active` (in the story; the default when unset),
  `dead`, `retired` (left the story for good, alive), `absent` (away for now: travelling, sealed, missing).
  A dead or absent character who speaks or acts in a later chapter is a finding; being remembered is not.
- `items.<id>.holder`: the character id holding the item (null or "" when nobody does); `display_name` names it.
  A former holder using the item after it changed hands is a finding.
- ordered attributes (cultivation level, rank, ...): declared once as
  `world_state.ordered_attributes.<attr>`: the ranks lowest first (`["炼气", "筑基", "金丹"]`), or `[]` for a
  number; then `characters.<id>.<attr>` holds the rank. A set op that moves a rank down, or more than one rank
  up, needs a `detail` naming the event (a breakthrough, a demotion); without one it is a finding.
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field, SerializerFunctionWrapHandler, model_serializer

from studio.ids import check_slug
from studio.models.base import FileModel

CHARACTER_STATUSES: tuple[str, ...] = ("active", "dead", "retired", "absent")
ORDERED_ATTRIBUTES_KEY = "ordered_attributes"  # world_state.<this>.<attr>: the ranks, lowest first

Slug = Annotated[str, AfterValidator(check_slug)]
"""A str that must be a safe entity slug; the error lands on the offending key or value's JSON path."""

_FORESHADOW_ID = re.compile(r"^[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)*$")


def is_foreshadow_id(text: str) -> bool:
    """A slug (`ancient_prophecy`) or a numbered id of the reference plugin (`F-001`): ASCII letters of
    either case, digits, and single `-`/`_` between them. No dots or slashes: it is one ops path segment."""
    return isinstance(text, str) and bool(_FORESHADOW_ID.match(text))


def _check_foreshadow_id(value: str) -> str:
    if not is_foreshadow_id(value):
        raise ValueError(
            f"foreshadowing id {value!r} must be letters, digits and single hyphens (e.g. F-001 or ancient-prophecy)"
        )
    return value


ForeshadowId = Annotated[str, AfterValidator(_check_foreshadow_id)]
"""A foreshadowing id: a slug or the plugin's `F-001` (see `is_foreshadow_id`)."""



def _check_score(value: Any) -> Any:
    # Numbers as written: no "5" -> 5 or true -> 1 coercion, and no NaN/inf (not JSON).
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"relationship score must be a finite number, got {value!r}")
    return value


Score = Annotated[int | float, BeforeValidator(_check_score)]

# Optional fields of CharacterState that are left out of the file when unset, so ops on one field
# do not fill the file with nulls.
_OPTIONAL_CHARACTER_FIELDS = ("display_name", "location", "emotional_state", "relationships", "inventory")


class CharacterState(FileModel):
    """One character's current state. Every field is optional and ops may add any other field."""

    display_name: str | None = None
    location: str | None = None
    emotional_state: str | None = None
    relationships: dict[Slug, Score] | None = None
    inventory: list[Any] | None = None

    @model_serializer(mode="wrap")
    def _drop_unset(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for name in _OPTIONAL_CHARACTER_FIELDS:
            if data.get(name) is None:
                data.pop(name, None)
        return data


class CurrentState(FileModel):
    """The whole tracked state. `CurrentState()` is the empty state at version 0."""

    schema_version: int = Field(default=1, ge=1)
    state_version: int = Field(default=0, ge=0)
    last_updated_chapter: int = Field(default=0, ge=0)
    characters: dict[Slug, CharacterState] = Field(default_factory=dict)
    items: dict[Slug, dict[str, Any]] = Field(default_factory=dict)
    locations: dict[Slug, dict[str, Any]] = Field(default_factory=dict)
    factions: dict[Slug, dict[str, Any]] = Field(default_factory=dict)
    world_state: dict[str, Any] = Field(default_factory=dict)
    active_foreshadowing: list[ForeshadowId] = Field(default_factory=list)

    def is_empty(self) -> bool:
        """True when nothing but the versions differs from the default state."""
        data = self.to_data()
        empty = CurrentState().to_data()
        for key in ("state_version", "last_updated_chapter"):
            data.pop(key)
            empty.pop(key)
        return data == empty
