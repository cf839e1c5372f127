"""A review killed (SIGKILL, through `studio.fileio`'s fault injection, no timing) at every write point resumes
cleanly: the run after it ends with exactly the files of an uninterrupted review, nothing half applied, no temp
files; and the cold-start check knows the states in between."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

import pytest

from pipeline.decisions import take_recommended
from pipeline.planning.review import review_volume
from pipeline.providers.factory import build_provider
from studio import fileio, state_engine
from studio.coldstart import check_cold_start, refusals
from studio.config import load_settings
from studio.models.checkpoint import Checkpoint, OrchestratorState
from studio.paths import ProjectPaths
from studio.project import Project
from tests.fault_runner import (
    FROZEN,
    checkpoint_bytes,
    differing,
    forked,
    kill_sweep,
    shard_points,
    tree_bytes,
)
from tests.test_volume_review import short_volume, temporary_entries, to_volume_end

COMPARED = ("volumes", "state", "staging", "foreshadowing")
pytestmark = pytest.mark.usefixtures("no_offline_delay")  # the streaming pace is not tested here


def _snapshot(root: Path) -> dict[str, bytes]:
    return {**tree_bytes(root, COMPARED), ".checkpoint.json": checkpoint_bytes(root)}


def _review(root: Path) -> int:
    """`review` of the finished volume, in the (forked) process that calls it."""
    state_engine._now = lambda: FROZEN  # the only clock in the compared files
    fileio.sweep_temp_files(root)  # a start's safe point, as in `review`
    settings = load_settings(root)
    project = Project.open(root)
    asyncio.run(review_volume(project, settings, lambda: build_provider(settings, root, offline=True),
                              take_recommended, offline=True))
    return 0


def _review_in_child(root: Path, fault: int | None, count_file: Path | None = None) -> int:
    return forked(lambda: _review(root), fault, count_file)


SHARDS = 2


# Not `serial`: each forked child kills itself at its own write point in its own folder, nothing races and nothing
# is timed, so the shards spread over the xdist workers; together they check every write point.
@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork and SIGKILL")
@pytest.mark.parametrize("shard", range(SHARDS))
def test_kill_at_every_write_point_of_a_review(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch, shard: int) -> None:
    monkeypatch.setenv(fileio.NO_FSYNC_ENV, "1")
    start = short_volume(tmp_path)
    temporary_entries(start)
    to_volume_end(start, capsys)
    reference = tmp_path / "reference"
    shutil.copytree(start, reference)
    count_file = tmp_path / "writes.txt"
    assert _review_in_child(reference, None, count_file) == 0
    writes = int(count_file.read_text())
    assert writes >= 6  # final state, journal, review.md, answer, changelog line, state, checkpoint
    expected = _snapshot(reference)
    assert Checkpoint.load(ProjectPaths(reference).checkpoint).orchestrator_state is OrchestratorState.VOL_PLANNING

    def fresh(n: int) -> Path:
        return Path(shutil.copytree(start, tmp_path / f"kill-{n}"))

    def run(root: Path) -> int:
        return _review(root)

    def cold_start(root: Path) -> list[str]:
        found = refusals(check_cold_start(ProjectPaths(root)))
        return [f"the cold start refuses: {[f.key for f in found]}"] if found else []

    def check(root: Path) -> list[str]:
        problems = []
        if differ := differing(expected, _snapshot(root)):
            problems.append(f"differs from the uninterrupted review: {differ}")
        if list(root.rglob("*.tmp")):
            problems.append("temp files left")
        return problems

    sweep = kill_sweep(shard_points(writes, shard, SHARDS), fresh, run, check, after_kill=cold_start)
    assert sweep.checked == [n for n in range(1, writes + 1) if n % SHARDS == shard]
    assert sweep.failures == []
