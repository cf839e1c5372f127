"""The state pane replays from the nearest remembered version (issue 12: chapter selection on a long novel):
the diff of every chapter is the same whichever order the chapters are visited in, as with a cold replay."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from studio import state_engine
from studio.project import Project
from studio.views import replay_cache, state_diff
from studio.views.state_diff import state_diff_for_chapter
from tests.test_synth import load_synth


@pytest.fixture(scope="module")
def synth_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("synth-diff") / "novel"
    load_synth().generate_project(root, 40, chars_per_chapter=600, seed=5)
    return root


def _cold(project: Project, n: int) -> object:
    state_diff._state_memo.clear()
    return state_diff_for_chapter(project, n)


def test_diffs_match_a_cold_replay_in_any_order(synth_root: Path) -> None:
    project = Project.open(synth_root)
    chapters = list(range(1, 41))
    cold = {n: _cold(project, n) for n in chapters}
    assert sum(1 for d in cold.values() if d is not None) >= 30
    state_diff._state_memo.clear()
    order = chapters + chapters[::-1] + random.Random(7).sample(chapters, len(chapters))
    for n in order:  # warm: each replays from a neighbour remembered just before
        assert state_diff_for_chapter(project, n) == cold[n], n


def test_neighbours_replay_from_the_remembered_state(synth_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = Project.open(synth_root)
    calls: list[int] = []
    original = state_diff.replay

    def counting(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return original(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(state_diff, "replay", counting)
    state_diff._state_memo.clear()
    for n in (10, 11, 12):
        state_diff_for_chapter(project, n)
    assert len(calls) == 1  # only the first from the start; the next two from their neighbours


def test_walking_back_replays_from_a_checkpoint(synth_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Up the outline from the last chapter: after one replay from the start, each step back replays at most
    `CHECKPOINT_EVERY` entries (from the checkpoint below it), not the log from its start; the diffs are a cold
    replay's."""
    project = Project.open(synth_root)
    chapters = list(range(40, 0, -1))
    cold = {n: _cold(project, n) for n in chapters}
    applied: list[int] = []
    apply_entry = state_engine._apply_entry

    def counting(*args: Any, **kwargs: Any) -> Any:
        applied.append(1)
        return apply_entry(*args, **kwargs)

    monkeypatch.setattr(state_engine, "_apply_entry", counting)
    replay_cache.forget()
    state_diff.forget_replays()
    per_step: list[int] = []
    for n in chapters:
        applied.clear()
        assert state_diff_for_chapter(project, n) == cold[n], n
        per_step.append(len(applied))
    # one step replays from the start (the last chapter may come from the state kept between starts, and
    # the step before it then replays from the start); every other step from a checkpoint or a neighbour
    assert max(per_step) >= 30
    assert sum(1 for count in per_step if count > state_diff.CHECKPOINT_EVERY) == 1, per_step
    assert sum(per_step) < 40 + 40 * state_diff.CHECKPOINT_EVERY // 2, per_step
