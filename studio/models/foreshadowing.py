"""`foreshadowing/global.json` and `volumes/vol-NN/foreshadowing.json` (seed 001 section 9.2).

A foreshadowing id (`ForeshadowId`) is either a slug (`ancient_prophecy`, the seed's examples) or the
reference plugin's numbered ids (`F-001`): ASCII letters of either case, digits, single `-`/`_` between
them (`is_foreshadow_id`, in studio/models/state.py). It is never a file name, but it is an ops path, so nothing else (dots, slashes, spaces) is accepted.
"""

from __future__ import annotations

from typing import Literal, Self

from pydantic import Field, model_validator

from studio.models.base import FileModel
from studio.models.state import ForeshadowId, Slug

ForeshadowScope = Literal["short", "medium", "long"]
ForeshadowStatus = Literal["planted", "advanced", "resolved"]


class ForeshadowingHistoryEntry(FileModel):
    chapter: int = Field(ge=0)
    action: ForeshadowStatus
    detail: str = ""


class ForeshadowingItem(FileModel):
    """One thread. `scope` is None only for an item created from an op of an id nobody planted."""

    id: ForeshadowId
    description: str = ""
    scope: ForeshadowScope | None = None
    status: ForeshadowStatus = "planted"
    planted_chapter: int | None = Field(default=None, ge=0)
    planted_storyline: Slug | None = None
    target_resolve_range: tuple[int, int] | None = None
    last_updated_chapter: int | None = Field(default=None, ge=0)
    history: list[ForeshadowingHistoryEntry] = Field(default_factory=list)

    @model_validator(mode="after")
    def _range_ordered(self) -> Self:
        r = self.target_resolve_range
        if r is not None and (r[0] < 1 or r[0] > r[1]):
            raise ValueError(f"target_resolve_range {list(r)} must be [first, last] with 1 <= first <= last")
        return self


class ForeshadowingLedger(FileModel):
    foreshadowing: list[ForeshadowingItem] = Field(default_factory=list)

    @model_validator(mode="after")
    def _unique_ids(self) -> Self:
        seen: dict[str, int] = {}
        for index, item in enumerate(self.foreshadowing):
            if item.id in seen:
                raise ValueError(
                    f"$.foreshadowing[{index}].id {item.id!r} repeats $.foreshadowing[{seen[item.id]}].id"
                )
            seen[item.id] = index
        return self

    def get(self, item_id: str) -> ForeshadowingItem | None:
        for item in self.foreshadowing:
            if item.id == item_id:
                return item
        return None
