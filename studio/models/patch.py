"""A state patch (seed 001 section 9.2): the Summarizer's ops for one chapter, and one valid op."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer

from studio.models.base import FileModel
from studio.models.state import Slug

OpName = Literal["set", "inc", "add", "remove", "foreshadow"]
OP_NAMES: tuple[str, ...] = ("set", "inc", "add", "remove", "foreshadow")
ForeshadowAction = Literal["planted", "advanced", "resolved"]
FORESHADOW_ACTIONS: tuple[str, ...] = ("planted", "advanced", "resolved")


class StateOp(FileModel, defer_build=True):
    """One op that passed `state_engine.validate_ops`. Build it through that function, not directly:
    the model only checks the shape, the path rules of seed 003 10.6 live in the engine."""

    op: OpName
    path: str
    value: Any = None
    detail: str | None = None

    @model_serializer(mode="wrap")
    def _drop_empty_detail(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if data.get("detail") is None:
            data.pop("detail", None)
        return data


class StatePatch(FileModel, defer_build=True):
    """`staging/state/chapter-NNN-delta.json`. `ops` stays raw: each entry is checked on its own by the
    engine, so one bad entry is dropped with a warning instead of rejecting the whole patch."""

    chapter: int = Field(ge=1)
    base_state_version: int = Field(ge=0)
    storyline_id: Slug
    ops: list[Any] = Field(default_factory=list)
