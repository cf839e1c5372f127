"""One line of `state/changelog.jsonl`: what a merge did, with enough to replay it exactly.

Accepted input variant: lines written by another tool (the reference plugin, DankerMu/novel-writer-plugin,
appends its state deltas and its `canon_upgrade` records without `state_version` or `kind`). Such a line
is read as `kind="foreign"`: history that is kept byte for byte (`foreign` holds the line as written, and
it is written back exactly so) but never replayed, because it does not say which state version it made.
`current-state.json` is the truth for the state those lines built; the next merge logs an `init` snapshot
of it, so the versioned log that follows can be replayed. A line with our `kind` but no `state_version`
is still an error (it is ours, and broken).
"""

from __future__ import annotations

from typing import Any, Literal, Self

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer, model_validator

from studio.models.base import FileModel
from studio.models.patch import StateOp
from studio.models.state import Slug

ChangelogKind = Literal["init", "patch", "rebuild", "foreign", "tool"]


class OpWarning(FileModel, defer_build=True):
    """An ops entry that was dropped, and why. `entry` is the entry as received (or its repr when it
    was not plain JSON), so nothing the model produced is silently lost.

    `reason` is the English text (what every line has held); `code` and `params` say the same as a key of
    `studio.op_reasons.REASONS` and its values, so the reason is shown in the author's language
    (`studio.op_reasons.reason_text`). Both are left out of the line when absent (older lines, other tools)."""

    entry: Any = None
    reason: str
    code: str | None = None
    params: dict[str, Any] = Field(default_factory=dict)

    @model_serializer(mode="wrap")
    def _without_absent(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            if data.get("code") is None:
                data.pop("code", None)
            if not data.get("params"):
                data.pop("params", None)
        return data


class ChangelogEntry(FileModel, defer_build=True):
    """A merge, after the fact.

    - `kind="init"`: only allowed as the first line; carries `snapshot`, the full starting state (e.g. the
      sample novel's initial characters); `base_state_version == state_version` (the log starts there).
    - `kind="patch"` / `"rebuild"`: `ops` (the applied ops, in order) took `base_state_version` to
      `state_version = base_state_version + 1`. A `snapshot`, if present, replaces the state before `ops`.
    - `kind="tool"`: a tool-mode change (`character rename|retire|add|update`, `studio.tools`) that no op can
      express (a character's entry renamed or removed): its `snapshot` is the whole state after it, `ops` is
      empty, `chapter` is the state's `last_updated_chapter` (the change belongs to no chapter).
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
    foreign: dict[str, Any] | None = None  # kind "foreign": the line exactly as the other tool wrote it

    @staticmethod
    def is_foreign_data(data: Any) -> bool:
        """Whether a parsed line is another tool's (read as `kind="foreign"`): an object with neither
        `state_version` nor `kind`."""
        return isinstance(data, dict) and "state_version" not in data and "kind" not in data

    @model_validator(mode="before")
    @classmethod
    def _foreign_line(cls, data: Any) -> Any:
        if not cls.is_foreign_data(data):
            return data
        chapter = data.get("chapter")
        valid_chapter = isinstance(chapter, int) and not isinstance(chapter, bool) and chapter >= 0
        # versions 0: not meaningful for a foreign line, which replay and the step check skip
        return {
            "kind": "foreign",
            "state_version": 0,
            "base_state_version": 0,
            "chapter": chapter if valid_chapter else 0,
            "foreign": data,
        }

    @model_serializer(mode="wrap")
    def _foreign_as_written(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        if self.kind == "foreign" and self.foreign is not None:
            return dict(self.foreign)
        data: dict[str, Any] = handler(self)
        if data.get("foreign") is None:
            data.pop("foreign", None)
        return data

    @model_validator(mode="after")
    def _versions_agree(self) -> Self:
        if self.kind == "foreign":
            if self.foreign is None:
                raise ValueError("a foreign entry keeps the line it was read from in `foreign`")
        elif self.kind == "init":
            if self.snapshot is None:
                raise ValueError("an init entry needs a snapshot of the starting state")
            if self.state_version != self.base_state_version:
                raise ValueError("an init entry must have state_version == base_state_version")
        elif self.state_version != self.base_state_version + 1:
            raise ValueError(
                f"state_version {self.state_version} must be base_state_version {self.base_state_version} + 1"
            )
        return self
