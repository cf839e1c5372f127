"""One line of `state/changelog.jsonl`: what a merge did, with enough to replay it exactly."""

from __future__ import annotations

from typing import Any, Literal, Self

from pydantic import Field, model_validator

from studio.models.base import FileModel
from studio.models.patch import StateOp
from studio.models.state import Slug

ChangelogKind = Literal["init", "patch", "rebuild"]


class OpWarning(FileModel):
    """An ops entry that was dropped, and why. `entry` is the entry as received (or its repr when it
    was not plain JSON), so nothing the model produced is silently lost."""

    entry: Any = None
    reason: str


class ChangelogEntry(FileModel):
    """A merge, after the fact.

    - `kind="init"`: only allowed as the first line; carries `snapshot`, the full starting state (e.g. the
      sample novel's initial characters); `base_state_version == state_version` (the log starts there).
    - `kind="patch"` / `"rebuild"`: `ops` (the applied ops, in order) took `base_state_version` to
      `state_version = base_state_version + 1`. A `snapshot`, if present, replaces the state before `ops`.
    """

    state_version: int = Field(ge=0)
    base_state_version: int = Field(ge=0)
    chapter: int = Field(ge=0)
    storyline_id: Slug | None = None
    kind: ChangelogKind = "patch"
    ops: list[StateOp] = Field(default_factory=list)
    warnings: list[OpWarning] = Field(default_factory=list)
    recorded_at: str = ""
    snapshot: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _versions_agree(self) -> Self:
        if self.kind == "init":
            if self.snapshot is None:
                raise ValueError("an init entry needs a snapshot of the starting state")
            if self.state_version != self.base_state_version:
                raise ValueError("an init entry must have state_version == base_state_version")
        elif self.state_version != self.base_state_version + 1:
            raise ValueError(
                f"state_version {self.state_version} must be base_state_version {self.base_state_version} + 1"
            )
        return self
