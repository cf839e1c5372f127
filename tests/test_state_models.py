"""Round trips and corrupt examples of the state, patch, changelog and foreshadowing models."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from studio.errors import FormatError
from studio.models.base import FileModel
from studio.models.changelog import ChangelogEntry, OpWarning
from studio.models.foreshadowing import ForeshadowingItem, ForeshadowingLedger
from studio.models.patch import StateOp, StatePatch
from studio.models.state import CharacterState, CurrentState

SEED_STATE: dict[str, Any] = {
    "schema_version": 1,
    "state_version": 47,
    "last_updated_chapter": 47,
    "characters": {
        "lin-feng": {
            "display_name": "林枫",
            "location": "魔都",
            "emotional_state": "决意",
            "relationships": {"chen-lao": 50, "zhao-ming": -30},
            "inventory": ["破碎魔杖", "密信"],
        }
    },
    "world_state": {"ongoing_events": ["王国内战"], "time_marker": "第三年冬"},
    "active_foreshadowing": ["ancient_prophecy", "betrayal_hint"],
}

SEED_PATCH: dict[str, Any] = {
    "chapter": 48,
    "base_state_version": 47,
    "storyline_id": "main-arc",
    "ops": [
        {"op": "set", "path": "characters.lin-feng.location", "value": "幽暗森林"},
        {"op": "inc", "path": "characters.lin-feng.relationships.chen-lao", "value": 10},
        {"op": "foreshadow", "path": "ancient_prophecy", "value": "advanced", "detail": "主角梦见预言碎片"},
    ],
}

SEED_LEDGER: dict[str, Any] = {
    "foreshadowing": [
        {
            "id": "ancient_prophecy",
            "description": "远古预言暗示主角命运",
            "scope": "long",
            "status": "advanced",
            "planted_chapter": 3,
            "planted_storyline": "main-arc",
            "target_resolve_range": [10, 20],
            "last_updated_chapter": 48,
            "history": [
                {"chapter": 3, "action": "planted", "detail": "老者口中提及预言碎片"},
                {"chapter": 48, "action": "advanced", "detail": "主角梦见预言碎片"},
            ],
        }
    ]
}

SEED_CHANGELOG: dict[str, Any] = {
    "state_version": 48,
    "base_state_version": 47,
    "chapter": 48,
    "storyline_id": "main-arc",
    "kind": "patch",
    "ops": [{"op": "set", "path": "world_state.time_marker", "value": "第三年冬末"}],
    "warnings": [{"entry": {"op": "move"}, "reason": "unknown op"}],
    "recorded_at": "2026-03-15T14:30:00+08:00",
}


def _with_extra(data: dict[str, Any]) -> dict[str, Any]:
    return {**data, "x_author_note": {"kept": True}}


@pytest.mark.parametrize(
    ("model", "data"),
    [
        (CurrentState, SEED_STATE),
        (StatePatch, SEED_PATCH),
        (ForeshadowingLedger, SEED_LEDGER),
        (ChangelogEntry, SEED_CHANGELOG),
    ],
)
def test_round_trip_keeps_unknown_fields(tmp_path: Path, model: type[FileModel], data: dict[str, Any]) -> None:
    path = tmp_path / "f.json"
    path.write_text(json.dumps(_with_extra(data), ensure_ascii=False), encoding="utf-8")
    first = model.load(path)
    first.save(path)
    second = model.load(path)
    assert first == second
    assert second.to_data()["x_author_note"] == {"kept": True}
    for key, value in data.items():
        if key != "ops" or model is StatePatch:
            assert second.to_data()[key] == value


def test_nested_unknown_fields_kept() -> None:
    data = json.loads(json.dumps(SEED_STATE))
    data["characters"]["lin-feng"]["secret"] = "血脉"
    data["foo"] = 1
    state = CurrentState.parse_data(data)
    assert state.to_data()["characters"]["lin-feng"]["secret"] == "血脉"
    assert state.to_data() == {**data, "items": {}, "locations": {}, "factions": {}}


def test_default_state_is_empty_version_zero() -> None:
    state = CurrentState()
    assert state.state_version == 0 and state.schema_version == 1 and state.is_empty()
    assert not CurrentState.parse_data(SEED_STATE).is_empty()


def test_character_leaves_unset_fields_out() -> None:
    assert CharacterState(location="魔都").to_data() == {"location": "魔都"}


def _problem(exc: pytest.ExceptionInfo[FormatError]) -> tuple[str, str]:
    p = exc.value.problems[0]
    return str(p.path), p.json_path


@pytest.mark.parametrize(
    ("model", "data", "where"),
    [
        (CurrentState, {"characters": {"林枫": {}}}, "$.characters.林枫"),
        (CurrentState, {"items": {"../x": {}}}, "$.items.../x"),
        (CurrentState, {"characters": {"lin-feng": {"relationships": {"chen-lao": "5"}}}}, "$.characters.lin-feng.relationships.chen-lao"),
        (CurrentState, {"characters": {"lin-feng": {"relationships": {"chen-lao": True}}}}, "$.characters.lin-feng.relationships.chen-lao"),
        (CurrentState, {"state_version": -1}, "$.state_version"),
        (CurrentState, {"active_foreshadowing": ["Bad Id"]}, "$.active_foreshadowing[0]"),
        (StatePatch, {"chapter": 0, "base_state_version": 0, "storyline_id": "main"}, "$.chapter"),
        (StatePatch, {"chapter": 1, "base_state_version": 0, "storyline_id": "主线"}, "$.storyline_id"),
        (StatePatch, {"chapter": 1, "base_state_version": 0, "storyline_id": "m", "ops": {}}, "$.ops"),
        (ForeshadowingLedger, {"foreshadowing": [{"id": "a", "scope": "huge"}]}, "$.foreshadowing[0].scope"),
        (ForeshadowingLedger, {"foreshadowing": [{"id": "a", "target_resolve_range": [1]}]}, "$.foreshadowing[0].target_resolve_range"),
        (ForeshadowingLedger, {"foreshadowing": [{"id": "a", "history": [{"chapter": 1, "action": "x"}]}]}, "$.foreshadowing[0].history[0].action"),
        (ChangelogEntry, {**SEED_CHANGELOG, "kind": "undo?"}, "$.kind"),
        (ChangelogEntry, {**SEED_CHANGELOG, "ops": [{"op": "move", "path": "a.b"}]}, "$.ops[0].op"),
    ],
)
def test_corrupt_examples_name_file_and_json_path(model: type[FileModel], data: Any, where: str) -> None:
    with pytest.raises(FormatError) as exc:
        model.parse_data(data, "some/file.json")
    path, json_path = _problem(exc)
    assert path == "some/file.json"
    assert json_path.startswith(where)


def test_whole_object_rules_name_the_culprit() -> None:
    with pytest.raises(FormatError) as exc:
        ForeshadowingLedger.parse_data({"foreshadowing": [{"id": "a"}, {"id": "a"}]}, "g.json")
    assert "$.foreshadowing[1].id" in str(exc.value)
    with pytest.raises(FormatError) as exc:
        ForeshadowingItem.parse_data({"id": "a", "target_resolve_range": [20, 10]}, "g.json")
    assert "target_resolve_range" in str(exc.value)
    with pytest.raises(FormatError) as exc:
        ChangelogEntry.parse_data({**SEED_CHANGELOG, "state_version": 50}, "c.jsonl")
    assert "base_state_version" in str(exc.value)
    with pytest.raises(FormatError):
        ChangelogEntry.parse_data({**SEED_CHANGELOG, "kind": "init"}, "c.jsonl")


def test_state_op_and_warning_shapes() -> None:
    op = StateOp(op="set", path="world_state.x", value=None)
    assert op.to_data() == {"op": "set", "path": "world_state.x", "value": None}
    assert StateOp(op="foreshadow", path="a", value="planted", detail="d").to_data()["detail"] == "d"
    assert OpWarning(entry=[1], reason="r").to_data() == {"entry": [1], "reason": "r"}
