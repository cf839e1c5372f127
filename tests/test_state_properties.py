"""Property tests: any sequence of patches, valid or garbage, keeps the state valid and replayable."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from studio.models.patch import StatePatch
from studio.models.state import CurrentState
from studio.paths import ProjectPaths
from studio.state_engine import apply_patch, load_changelog, load_state, merge_patch, replay, validate_ops

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-1000, 1000),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=6),
    st.sampled_from(["密信", "魔都", "lin-feng", "planted", "resolved"]),
)
json_values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=3), st.dictionaries(st.text(max_size=5), children, max_size=3)
    ),
    max_leaves=8,
)
segments = st.one_of(
    st.sampled_from(
        ["characters", "items", "locations", "factions", "world_state", "active_foreshadowing", "plot"]
    ),
    st.sampled_from(["lin-feng", "chen-lao", "a", "林枫", "Lin", "../x", ""]),
    st.sampled_from(["location", "inventory", "relationships", "display_name", "emotional_state", "events"]),
    st.text(max_size=4),
)
paths = st.lists(segments, min_size=1, max_size=5).map(".".join)
structured_ops = st.fixed_dictionaries(
    {
        "op": st.sampled_from(["set", "inc", "add", "remove", "foreshadow", "move"]),
        "path": st.one_of(paths, st.sampled_from(["ancient_prophecy", "hint-2"])),
    },
    optional={"value": json_values, "detail": st.one_of(st.text(max_size=5), st.integers())},
)
# Ops that usually pass validation, so apply-time conflicts get exercised too.
likely_ops = st.builds(
    lambda op, top, ent, field, sub, value: {
        "op": op,
        "path": ".".join([top, ent, field] + ([sub] if sub else [])),
        "value": value,
    },
    st.sampled_from(["set", "inc", "add", "remove"]),
    st.sampled_from(["characters", "items", "world_state"]),
    st.sampled_from(["lin-feng", "chen-lao"]),
    st.sampled_from(["location", "inventory", "relationships", "display_name", "power"]),
    st.sampled_from([None, "chen-lao", "x"]),
    st.one_of(st.integers(-5, 5), st.sampled_from(["密信", "魔都"]), st.lists(st.integers(0, 2), max_size=2)),
)
foreshadow_ops = st.builds(
    lambda i, v: {"op": "foreshadow", "path": i, "value": v},
    st.sampled_from(["ancient_prophecy", "hint-2"]),
    st.sampled_from(["planted", "advanced", "resolved"]),
)
entries = st.one_of(structured_ops, likely_ops, likely_ops, foreshadow_ops, json_values)
op_lists = st.lists(st.lists(entries, max_size=6), min_size=1, max_size=5)

BASE = CurrentState.parse_data(
    {
        "characters": {"lin-feng": {"display_name": "林枫", "relationships": {"chen-lao": 5}, "inventory": ["密信"]}},
        "world_state": {"time_marker": "冬"},
        "active_foreshadowing": ["hint-2"],
    }
)


def _roundtrips(state: CurrentState) -> None:
    text = json.dumps(state.to_data(), ensure_ascii=False, allow_nan=False)
    assert CurrentState.parse_data(json.loads(text)).to_data() == state.to_data()


@settings(max_examples=100, deadline=None)
@given(batches=op_lists, start_with_base=st.booleans())
def test_any_ops_leave_a_valid_state(batches: list[list[Any]], start_with_base: bool) -> None:
    state = BASE if start_with_base else CurrentState()
    for chapter, ops in enumerate(batches, start=1):
        before = state.to_data()
        patch = StatePatch(chapter=chapter, base_state_version=0, storyline_id="main", ops=ops)
        new, applied, warnings = apply_patch(state, patch)
        assert state.to_data() == before  # pure
        assert len(applied) + len(warnings) == len(ops)
        for w in warnings:
            json.dumps(w.to_data(), allow_nan=False)
        _roundtrips(new)
        state = new


@settings(max_examples=100, deadline=None)
@given(ops=st.lists(entries, max_size=8))
def test_validate_ops_never_raises(ops: list[Any]) -> None:
    valid, warnings = validate_ops(ops)
    assert len(valid) + len(warnings) == len(ops)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batches=op_lists, start_with_base=st.booleans())
def test_replay_equals_merged_state(batches: list[list[Any]], start_with_base: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        paths = ProjectPaths(Path(tmp))
        if start_with_base:
            BASE.save(paths.current_state)
        states = [load_state(paths).to_data()]
        for chapter, ops in enumerate(batches, start=1):
            version = load_state(paths).state_version
            merge_patch(paths, StatePatch(chapter=chapter, base_state_version=version, storyline_id="main", ops=ops))
            states.append(load_state(paths).to_data())
        entries = load_changelog(paths.changelog)
        assert replay(entries).to_data() == load_state(paths).to_data()
        for version, data in enumerate(states):
            assert replay(entries, upto_version=version).to_data() == data
