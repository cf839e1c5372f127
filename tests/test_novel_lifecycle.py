"""Issue 7's whole path, offline, through the CLI: an empty folder with a brief → quick start (world, cast,
main-arc, style, trial chapters 1-3) → the rest of volume 1 planned and written → `continue` stops at the volume
end → review → volume 2 planned → its first two chapters written; every file valid by its model (seed 001 §9)."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.cli.main import main
from studio.models.checkpoint import Checkpoint, OrchestratorState
from studio.models.contract import ChapterContract
from studio.models.volume_plan import load_volume_plan
from studio.paths import ProjectPaths
from studio.project import Project
from tests.quick_start_helpers import BRIEF_ARGS, assert_quick_start_done

pytestmark = pytest.mark.usefixtures("no_offline_delay")  # the streaming pace is not tested here


def _state(paths: ProjectPaths) -> tuple[int, int, OrchestratorState]:
    cp = Checkpoint.load(paths.checkpoint)
    return cp.current_volume, cp.last_completed_chapter, cp.orchestrator_state


def test_from_an_empty_folder_to_chapter_two_of_volume_two(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "新书"
    paths = ProjectPaths(root)
    off = ["--project", str(root), "--offline", "--yes"]
    assert main(["start", str(root), "--offline", "--yes", "--volume-length", "5", *BRIEF_ARGS]) == 0
    assert_quick_start_done(root)
    assert main(["plan", *off]) == 0  # the rest of volume 1: chapters 4-5, the trial chapters fixed
    assert load_volume_plan(paths, 1).last_chapter == 5
    assert main(["continue", "5", "--on-low-score", "accept", *off]) == 0  # asks for 5, stops at the volume's last chapter
    assert _state(paths) == (1, 5, OrchestratorState.VOL_REVIEW)
    capsys.readouterr()
    assert main(["review", *off]) == 0
    assert (paths.volume_dir(1) / "review.md").is_file()
    assert (paths.state_history / "vol-01-final-state.json").is_file()
    assert main(["plan", "--volume-length", "4", *off]) == 0
    plan = load_volume_plan(paths, 2)
    assert (plan.first_chapter, plan.last_chapter) == (6, 9)
    for n in range(6, 10):
        ChapterContract.load(paths.contract(2, n))
    assert main(["continue", "2", "--on-low-score", "accept", *off]) == 0  # chapter 6 is the demo's pause band
    assert _state(paths) == (2, 7, OrchestratorState.WRITING)
    assert paths.chapter(7).is_file() and paths.summary(7).is_file()
    project = Project.open(root)  # validates every file of the project
    assert project.last_completed_chapter == 7 and project.current_volume == 2
