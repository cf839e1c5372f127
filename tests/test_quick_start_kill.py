"""A quick start killed by SIGKILL at write points spread over the whole flow (world, cast, main-arc, style,
the opening plan's staging and apply, the trial chapters' commits, the confirmation) resumes cleanly: the next
start finishes it, every file valid by its model and the same as an uninterrupted run's, nothing left behind.

The points are split into SHARDS cases (every SHARDS-th point each) that together check all POINTS. Not
`serial`: each forked child kills itself at its own write point in its own folder, nothing races and nothing is
timed, so the cases spread over the xdist workers."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from studio import fileio
from tests.fault_runner import differing, forked, kill_sweep, tree_bytes
from tests.quick_start_helpers import assert_quick_start_done, briefed_project, quick_start

COMPARED = ("world", "characters", "storylines", "volumes", "chapters", "summaries", "style-profile.json")
POINTS = 12  # write points checked, spread evenly over the run
SHARDS = 2
pytestmark = pytest.mark.usefixtures("no_offline_delay")  # the kills are at write points, not in time


def _start(root: Path) -> int:
    fileio.sweep_temp_files(root)  # what every start does under the lock
    outcome = quick_start(root)
    return 0 if outcome.status == "confirmed" else 1


def _snapshot(root: Path) -> dict[str, bytes]:
    return tree_bytes(root, COMPARED)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork and SIGKILL")
@pytest.mark.parametrize("shard", range(SHARDS))
def test_a_killed_quick_start_resumes_cleanly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shard: int) -> None:
    monkeypatch.setenv(fileio.NO_FSYNC_ENV, "1")
    pristine = briefed_project(tmp_path, "pristine")
    warmup = tmp_path / "warmup"  # fills the caches outside the project, so every run writes the same
    shutil.copytree(pristine, warmup)
    assert forked(lambda: _start(warmup), None) == 0
    reference = tmp_path / "reference"
    shutil.copytree(pristine, reference)
    count_file = tmp_path / "writes.txt"
    assert forked(lambda: _start(reference), None, count_file) == 0
    writes = int(count_file.read_text())
    assert writes > 50
    expected = _snapshot(reference)
    points = sorted({1 + (writes - 1) * i // (POINTS - 1) for i in range(POINTS)})
    assert len(points) == POINTS

    def fresh(n: int) -> Path:
        return Path(shutil.copytree(pristine, tmp_path / f"kill-{n}"))

    def check(root: Path) -> list[str]:
        problems = []
        try:
            assert_quick_start_done(root)
        except AssertionError as exc:
            problems.append(str(exc))
        if differ := differing(expected, _snapshot(root)):
            problems.append(f"differs from the uninterrupted run: {differ}")
        if list(root.rglob("*.tmp")) or (root / "staging" / "quick-start").exists():
            problems.append("left temp or staged files behind")
        return problems

    sweep = kill_sweep(points[shard::SHARDS], fresh, _start, check)
    assert sweep.checked == points[shard::SHARDS]
    assert sweep.failures == []
