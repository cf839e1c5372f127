"""The ops rules of seed 003 10.6, merge + changelog, replay, and crash repair."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from studio.errors import FormatError, StateVersionMismatch, UsageError
from studio.models.patch import StatePatch
from studio.models.state import CurrentState
from studio.paths import ProjectPaths
from studio.state_engine import (
    apply_patch,
    init_state,
    load_changelog,
    load_state,
    merge_patch,
    reconcile,
    replay,
    validate_ops,
)

BASE: dict[str, Any] = {
    "characters": {
        "lin-feng": {
            "display_name": "林枫",
            "location": "魔都",
            "relationships": {"chen-lao": 50},
            "inventory": ["破碎魔杖", "密信"],
        }
    },
    "world_state": {"time_marker": "第三年冬", "ongoing_events": ["王国内战"]},
    "active_foreshadowing": ["betrayal_hint"],
}


def _patch(ops: list[Any], base: int = 0, chapter: int = 1, storyline: str = "main-arc") -> StatePatch:
    return StatePatch(chapter=chapter, base_state_version=base, storyline_id=storyline, ops=ops)


def _one(entry: Any) -> str | None:
    """The drop reason of a single entry, or None if it is valid."""
    valid, warnings = validate_ops([entry])
    assert len(valid) + len(warnings) == 1
    return warnings[0].reason if warnings else None


# ------------------------------------------------------------------ 10.6 rules, one by one


@pytest.mark.parametrize(
    "entry",
    [
        {"op": "set", "path": "characters.lin-feng.location", "value": "幽暗森林"},
        {"op": "set", "path": "characters.lin-feng", "value": {"display_name": "林枫"}},
        {"op": "set", "path": "world_state.time_marker", "value": "第三年冬末"},
        {"op": "set", "path": "world_state.天气", "value": "雪"},
        {"op": "set", "path": "world_state.x", "value": None},
        {"op": "inc", "path": "characters.lin-feng.relationships.chen-lao", "value": 10},
        {"op": "inc", "path": "factions.sky-sect.power", "value": -2.5},
        {"op": "add", "path": "characters.lin-feng.inventory", "value": "密信"},
        {"op": "remove", "path": "characters.lin-feng.inventory", "value": "破碎魔杖"},
        {"op": "set", "path": "items.sword_of_dawn.owner", "value": "lin-feng", "detail": "传承"},
        {"op": "set", "path": "locations.mo-du.a.b", "value": 1},
        {"op": "foreshadow", "path": "ancient_prophecy", "value": "advanced", "detail": "主角梦见预言碎片"},
        {"op": "foreshadow", "path": "b", "value": "planted"},
        {"op": "foreshadow", "path": "b", "value": "resolved"},
    ],
)
def test_valid_entries(entry: dict[str, Any]) -> None:
    assert _one(entry) is None


@pytest.mark.parametrize(
    ("entry", "reason_part"),
    [
        # 1. JSON shape
        ("set x", "not a JSON object"),
        (["set", "a.b", 1], "not a JSON object"),
        (None, "not a JSON object"),
        ({"path": "world_state.x", "value": 1}, "no string 'op'"),
        ({"op": 3, "path": "world_state.x", "value": 1}, "no string 'op'"),
        ({"op": "set", "value": 1}, "no string 'path'"),
        ({"op": "set", "path": ["world_state", "x"], "value": 1}, "no string 'path'"),
        # 2. op enum
        ({"op": "move", "path": "world_state.x", "value": 1}, "unknown op"),
        ({"op": "SET", "path": "world_state.x", "value": 1}, "unknown op"),
        ({"op": "delete", "path": "world_state.x"}, "unknown op"),
        # 3. path: depth 2-4
        ({"op": "set", "path": "characters", "value": {}}, "2-4"),
        ({"op": "set", "path": "characters.lin-feng.a.b.c", "value": 1}, "2-4"),
        ({"op": "set", "path": "world_state..x", "value": 1}, "empty"),
        ({"op": "set", "path": "world_state.x.", "value": 1}, "empty"),
        ({"op": "set", "path": "world_state. x", "value": 1}, "space"),
        # 3. path: top-level whitelist
        ({"op": "set", "path": "state_version.x", "value": 1}, "allowed"),
        ({"op": "set", "path": "plot.x", "value": 1}, "allowed"),
        ({"op": "set", "path": "Characters.lin-feng.location", "value": 1}, "allowed"),
        # 3. path: entity slug, not display name
        ({"op": "set", "path": "characters.林枫.location", "value": "魔都"}, "slug"),
        ({"op": "set", "path": "characters.Lin-Feng.location", "value": "魔都"}, "slug"),
        ({"op": "set", "path": "items.a/b.x", "value": 1}, "slug"),
        ({"op": "set", "path": "characters.lin feng.location", "value": 1}, "slug"),
        ({"op": "inc", "path": "characters.lin-feng.relationships.陈老", "value": 1}, "relationship target"),
        # active_foreshadowing is only reachable through foreshadow ops
        ({"op": "add", "path": "active_foreshadowing.x", "value": "x"}, "foreshadow"),
        ({"op": "add", "path": "active_foreshadowing", "value": "x"}, "2-4"),
        # foreshadow op: single id, value enum
        ({"op": "foreshadow", "path": "a.b", "value": "planted"}, "one foreshadowing id"),
        ({"op": "foreshadow", "path": "远古预言", "value": "planted"}, "one foreshadowing id"),
        ({"op": "foreshadow", "path": "../x", "value": "planted"}, "one foreshadowing id"),
        ({"op": "foreshadow", "path": "a", "value": "closed"}, "must be one of"),
        ({"op": "foreshadow", "path": "a"}, "must be one of"),
        # values
        ({"op": "set", "path": "world_state.x"}, "no 'value'"),
        ({"op": "inc", "path": "world_state.x", "value": "10"}, "must be a number"),
        ({"op": "inc", "path": "world_state.x", "value": True}, "must be a number"),
        ({"op": "inc", "path": "world_state.x", "value": None}, "must be a number"),
        ({"op": "add", "path": "world_state.x", "value": None}, "null"),
        ({"op": "remove", "path": "world_state.x"}, "no 'value'"),
        ({"op": "set", "path": "world_state.x", "value": float("nan")}, "plain JSON"),
        ({"op": "inc", "path": "world_state.x", "value": float("inf")}, "plain JSON"),
        ({"op": "set", "path": "world_state.x", "value": "\ud800"}, "plain JSON"),
        ({"op": "set", "path": "world_state.x", "value": {1, 2}}, "plain JSON"),
        ({"op": "set", "path": "world_state.x", "value": 1, "detail": 5}, "detail"),
    ],
)
def test_dropped_entries(entry: Any, reason_part: str) -> None:
    reason = _one(entry)
    assert reason is not None and reason_part in reason


def test_dropped_entry_is_recorded_loggably() -> None:
    _, warnings = validate_ops([{"op": "set", "path": "world_state.x", "value": float("nan")}, object()])
    for warning in warnings:
        json.dumps(warning.to_data(), allow_nan=False)


def test_one_bad_entry_does_not_stop_the_others() -> None:
    valid, warnings = validate_ops(
        [{"op": "set", "path": "world_state.a", "value": 1}, "garbage", {"op": "set", "path": "world_state.b", "value": 2}]
    )
    assert [op.path for op in valid] == ["world_state.a", "world_state.b"]
    assert len(warnings) == 1 and warnings[0].entry == "garbage"


# ------------------------------------------------------------------ apply


def test_apply_seed_patch() -> None:
    state = CurrentState.parse_data(BASE)
    before = state.to_data()
    ops = [
        {"op": "set", "path": "characters.lin-feng.location", "value": "幽暗森林"},
        {"op": "set", "path": "characters.lin-feng.emotional_state", "value": "警觉"},
        {"op": "inc", "path": "characters.lin-feng.relationships.chen-lao", "value": 10},
        {"op": "inc", "path": "characters.lin-feng.relationships.zhao-ming", "value": -30},
        {"op": "add", "path": "characters.lin-feng.inventory", "value": "密信"},
        {"op": "remove", "path": "characters.lin-feng.inventory", "value": "破碎魔杖"},
        {"op": "set", "path": "world_state.time_marker", "value": "第三年冬末"},
        {"op": "foreshadow", "path": "ancient_prophecy", "value": "advanced", "detail": "主角梦见预言碎片"},
        {"op": "foreshadow", "path": "betrayal_hint", "value": "resolved"},
        {"op": "add", "path": "characters.zhao-ming.inventory", "value": "令牌"},
    ]
    new, applied, warnings = apply_patch(state, _patch(ops))
    assert warnings == [] and len(applied) == len(ops)
    assert state.to_data() == before  # pure
    lf = new.characters["lin-feng"]
    assert lf.location == "幽暗森林" and lf.emotional_state == "警觉" and lf.display_name == "林枫"
    assert lf.relationships == {"chen-lao": 60, "zhao-ming": -30}
    assert lf.inventory == ["密信", "密信"]
    assert new.world_state["time_marker"] == "第三年冬末"
    assert new.active_foreshadowing == ["ancient_prophecy"]
    assert new.characters["zhao-ming"].inventory == ["令牌"]
    assert new.state_version == state.state_version  # merge_patch bumps, not apply_patch


@pytest.mark.parametrize(
    ("op", "reason_part"),
    [
        ({"op": "inc", "path": "characters.lin-feng.location", "value": 1}, "not a number"),
        ({"op": "inc", "path": "world_state.time_marker", "value": 1}, "not a number"),
        ({"op": "add", "path": "characters.lin-feng.location", "value": "x"}, "not a list"),
        ({"op": "add", "path": "characters.lin-feng.relationships", "value": "x"}, "not a list"),
        ({"op": "remove", "path": "world_state.time_marker", "value": "x"}, "not a list"),
        ({"op": "remove", "path": "world_state.nothing", "value": "x"}, "nothing"),
        ({"op": "remove", "path": "characters.lin-feng.inventory", "value": "无此物"}, "not in the list"),
        ({"op": "set", "path": "world_state.time_marker.year", "value": 3}, "not an object"),
        ({"op": "set", "path": "characters.lin-feng.inventory.x", "value": 3}, "not an object"),
        ({"op": "set", "path": "characters.lin-feng", "value": "林枫"}, "object"),
        ({"op": "set", "path": "items.sword", "value": [1]}, "object"),
        ({"op": "set", "path": "characters.lin-feng.display_name", "value": 5}, "display_name"),
        ({"op": "set", "path": "characters.lin-feng.relationships.chen-lao", "value": "亲密"}, "relationships"),
        ({"op": "set", "path": "characters.lin-feng.relationships", "value": {"陈老": 1}}, "relationships"),
        ({"op": "add", "path": "characters.lin-feng", "value": "x"}, "not a list"),
        ({"op": "inc", "path": "world_state.big", "value": 1e308}, "overflow"),
    ],
)
def test_conflicts_at_apply_time_are_dropped(op: dict[str, Any], reason_part: str) -> None:
    state = CurrentState.parse_data({**BASE, "world_state": {**BASE["world_state"], "big": 1e308}})
    before = state.to_data()
    new, applied, warnings = apply_patch(state, _patch([op, {"op": "set", "path": "world_state.ok", "value": 1}]))
    assert [o.path for o in applied] == ["world_state.ok"]
    assert len(warnings) == 1 and reason_part in warnings[0].reason
    after = new.to_data()
    after["world_state"].pop("ok")
    assert after == before


def test_inc_and_add_create_missing_targets() -> None:
    new, _, warnings = apply_patch(
        CurrentState(),
        _patch(
            [
                {"op": "inc", "path": "characters.a.relationships.b", "value": 3},
                {"op": "inc", "path": "world_state.day", "value": 1.5},
                {"op": "add", "path": "items.sword.tags", "value": "古"},
                {"op": "set", "path": "world_state.map.north.city", "value": "北城"},
            ]
        ),
    )
    assert warnings == []
    assert new.characters["a"].relationships == {"b": 3}
    assert new.world_state == {"day": 1.5, "map": {"north": {"city": "北城"}}}
    assert new.items == {"sword": {"tags": ["古"]}}


def test_apply_does_not_alias_op_values() -> None:
    value = {"nested": [1]}
    patch = _patch([{"op": "set", "path": "world_state.x", "value": value}])
    new, _, _ = apply_patch(CurrentState(), patch)
    value["nested"].append(2)
    assert new.world_state["x"] == {"nested": [1]}


def test_remove_takes_one_occurrence_and_distinguishes_true_from_1() -> None:
    state = CurrentState.parse_data({"world_state": {"l": [1, True, 1]}})
    new, _, w = apply_patch(state, _patch([{"op": "remove", "path": "world_state.l", "value": True}]))
    assert w == [] and new.world_state["l"] == [1, 1]


def test_foreshadow_keeps_active_list_once() -> None:
    ops = [
        {"op": "foreshadow", "path": "a", "value": "planted"},
        {"op": "foreshadow", "path": "a", "value": "advanced"},
        {"op": "foreshadow", "path": "b", "value": "planted"},
        {"op": "foreshadow", "path": "a", "value": "resolved"},
        {"op": "foreshadow", "path": "c", "value": "resolved"},
    ]
    new, applied, warnings = apply_patch(CurrentState(), _patch(ops))
    assert new.active_foreshadowing == ["b"] and len(applied) == 5 and warnings == []


# ------------------------------------------------------------------ merge, changelog, replay


def _paths(tmp_path: Path) -> ProjectPaths:
    return ProjectPaths(tmp_path / "novel")


def test_merge_writes_state_and_changelog(tmp_path: Path) -> None:
    paths = _paths(tmp_path)
    entry = merge_patch(paths, _patch([{"op": "set", "path": "world_state.x", "value": 1}, {"op": "bad"}], chapter=3))
    state = load_state(paths)
    assert state.state_version == 1 and state.last_updated_chapter == 3 and state.world_state == {"x": 1}
    entries = load_changelog(paths.changelog)
    assert entries == [entry]
    assert entry.state_version == 1 and entry.base_state_version == 0 and entry.chapter == 3
    assert entry.storyline_id == "main-arc" and entry.kind == "patch" and entry.recorded_at
    assert [w.entry for w in entry.warnings] == [{"op": "bad"}]
    merge_patch(paths, _patch([{"op": "set", "path": "world_state.y", "value": 2}], base=1, chapter=4), kind="rebuild")
    lines = paths.changelog.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2 and json.loads(lines[1])["kind"] == "rebuild"
    assert replay(load_changelog(paths.changelog)).to_data() == load_state(paths).to_data()


def test_version_mismatch_is_refused(tmp_path: Path) -> None:
    paths = _paths(tmp_path)
    merge_patch(paths, _patch([]))
    with pytest.raises(StateVersionMismatch, match="state version 0.*at version 1"):
        merge_patch(paths, _patch([{"op": "set", "path": "world_state.x", "value": 1}], base=0, chapter=2))
    assert load_state(paths).state_version == 1
    assert len(load_changelog(paths.changelog)) == 1
    with pytest.raises(UsageError):
        merge_patch(paths, _patch([], base=1), kind="init")


def _sample_history(paths: ProjectPaths, n: int = 5) -> None:
    for i in range(n):
        merge_patch(
            paths,
            _patch(
                [
                    {"op": "set", "path": f"characters.c{i}.display_name", "value": f"角色{i}"},
                    {"op": "inc", "path": "characters.lin-feng.relationships.chen-lao", "value": i},
                    {"op": "add", "path": "world_state.events", "value": f"事件{i}"},
                    {"op": "foreshadow", "path": f"f{i % 2}", "value": "planted" if i < 2 else "resolved"},
                ],
                base=load_state(paths).state_version,
                chapter=i + 1,
            ),
        )


def test_replay_from_init_snapshot_and_upto(tmp_path: Path) -> None:
    paths = _paths(tmp_path)
    base = CurrentState.parse_data(BASE)
    init_state(paths, base)
    with pytest.raises(UsageError):
        init_state(paths, base)
    snapshots = {0: load_state(paths).to_data()}
    for i in range(4):
        merge_patch(paths, _patch([{"op": "add", "path": "characters.lin-feng.inventory", "value": i}], base=i, chapter=i + 1))
        snapshots[i + 1] = load_state(paths).to_data()
    entries = load_changelog(paths.changelog)
    assert entries[0].kind == "init" and len(entries) == 5
    assert replay(entries).to_data() == load_state(paths).to_data()
    for version, data in snapshots.items():
        assert replay(entries, upto_version=version).to_data() == data
    with pytest.raises(StateVersionMismatch):
        replay(entries, upto_version=9)
    assert replay(entries).characters["lin-feng"].display_name == "林枫"


def test_first_merge_on_a_non_empty_state_logs_its_base(tmp_path: Path) -> None:
    paths = _paths(tmp_path)
    CurrentState.parse_data(BASE).save(paths.current_state)
    merge_patch(paths, _patch([{"op": "set", "path": "characters.lin-feng.location", "value": "幽暗森林"}]))
    entries = load_changelog(paths.changelog)
    assert [e.kind for e in entries] == ["init", "patch"]
    assert replay(entries).to_data() == load_state(paths).to_data()
    assert replay(entries, upto_version=0).to_data() == CurrentState.parse_data(BASE).to_data()


def test_replay_from_empty(tmp_path: Path) -> None:
    paths = _paths(tmp_path)
    _sample_history(paths)
    entries = load_changelog(paths.changelog)
    assert entries[0].kind == "patch"
    assert replay(entries).to_data() == load_state(paths).to_data()
    assert replay(entries, upto_version=0).to_data() == CurrentState().to_data()
    assert replay([]).to_data() == CurrentState().to_data()


def test_replay_rejects_gaps_and_edited_ops(tmp_path: Path) -> None:
    paths = _paths(tmp_path)
    _sample_history(paths, 3)
    entries = load_changelog(paths.changelog)
    with pytest.raises(FormatError, match="version"):
        replay([entries[0], entries[2]])
    bad = entries[1].model_copy(deep=True)
    bad.ops[0].path = "characters.林枫.x"
    with pytest.raises(FormatError, match="no longer applies"):
        replay([entries[0], bad])


def test_torn_tail_is_reported_then_repaired(tmp_path: Path) -> None:
    paths = _paths(tmp_path)
    _sample_history(paths, 2)
    good = paths.changelog.read_text(encoding="utf-8")
    with paths.changelog.open("a", encoding="utf-8") as fh:
        fh.write('{"state_version": 3, "base_sta')
    with pytest.raises(FormatError) as exc:
        load_changelog(paths.changelog)
    assert exc.value.problems[0].line == 3 and "changelog.jsonl:3" in str(exc.value)
    with pytest.raises(FormatError):
        merge_patch(paths, _patch([], base=2, chapter=3))
    assert reconcile(paths) is True
    assert paths.changelog.read_text(encoding="utf-8") == good
    assert reconcile(paths) is False
    merge_patch(paths, _patch([], base=2, chapter=3))
    assert len(load_changelog(paths.changelog)) == 3


def test_line_cut_before_its_newline_is_not_glued_onto(tmp_path: Path) -> None:
    paths = _paths(tmp_path)
    _sample_history(paths, 2)
    paths.changelog.write_bytes(paths.changelog.read_bytes().rstrip(b"\n"))
    merge_patch(paths, _patch([], base=2, chapter=3))
    assert [e.state_version for e in load_changelog(paths.changelog)] == [1, 2, 3]


def test_broken_middle_line_is_never_repaired(tmp_path: Path) -> None:
    paths = _paths(tmp_path)
    _sample_history(paths, 2)
    lines = paths.changelog.read_text(encoding="utf-8").splitlines()
    paths.changelog.write_text(lines[0][:-3] + "\n" + lines[1] + "\n", encoding="utf-8")
    with pytest.raises(FormatError) as exc:
        load_changelog(paths.changelog, repair_tail=True)
    assert exc.value.problems[0].line == 1


def test_invalid_changelog_entry_names_line_and_path(tmp_path: Path) -> None:
    paths = _paths(tmp_path)
    _sample_history(paths, 1)
    with paths.changelog.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"state_version": 2, "base_state_version": 1, "chapter": "two"}) + "\n")
    with pytest.raises(FormatError) as exc:
        load_changelog(paths.changelog)
    problem = exc.value.problems[0]
    assert problem.line == 2 and problem.json_path == "$.chapter"


def test_reconcile_finishes_an_interrupted_merge(tmp_path: Path) -> None:
    paths = _paths(tmp_path)
    _sample_history(paths, 3)
    stale = paths.current_state.read_bytes()
    merge_patch(paths, _patch([{"op": "set", "path": "world_state.x", "value": "后"}], base=3, chapter=4))
    expected = load_state(paths).to_data()
    paths.current_state.write_bytes(stale)  # crash: the log line landed, the state write did not
    with pytest.raises(StateVersionMismatch, match="reconcile"):
        merge_patch(paths, _patch([], base=3, chapter=4))
    assert reconcile(paths) is True
    assert load_state(paths).to_data() == expected
    assert reconcile(paths) is False


def test_reconcile_rebuilds_a_missing_state_file(tmp_path: Path) -> None:
    paths = _paths(tmp_path)
    init_state(paths, CurrentState.parse_data(BASE))
    _sample_history(paths, 2)
    expected = load_state(paths).to_data()
    paths.current_state.unlink()
    assert reconcile(paths) is True
    assert load_state(paths).to_data() == expected


def test_reconcile_refuses_other_disagreements(tmp_path: Path) -> None:
    paths = _paths(tmp_path)
    _sample_history(paths, 3)
    state = load_state(paths)
    state.model_copy(update={"state_version": 1}).save(paths.current_state)
    with pytest.raises(StateVersionMismatch, match="ends at 3"):
        reconcile(paths)
    assert reconcile(_paths(tmp_path / "empty")) is False
