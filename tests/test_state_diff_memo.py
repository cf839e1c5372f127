"""The state pane replays from the nearest remembered version (issue 12: chapter selection on a long novel):
the diff of every chapter is the same whichever order the chapters are visited in, as with a cold replay."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from studio.project import Project
from studio.views import state_diff
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
