"""Staging and applying a volume plan (studio.planning.staged): the files land where seed 001 §9 puts them, the
threads join the global ledger, the checkpoint moves on, and a kill at every write point of an apply resumes
to the very same project (fault injection through `studio.fileio`, no timing)."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

import pytest

from pipeline.planning.plan_volume import plan_volume
from pipeline.planning.prompt_context import PlanTarget
from pipeline.providers.factory import build_provider
from studio import fileio
from studio.coldstart import check_cold_start, refusals
from studio.config import load_settings
from studio.init_project import init_project
from studio.models.checkpoint import Checkpoint, OrchestratorState, PendingAction, save_checkpoint
from studio.models.foreshadowing import ForeshadowingLedger
from studio.paths import ProjectPaths
from studio.planning.staged import (
    PlanApplyRefused,
    apply_journal_path,
    apply_staged_plan,
    discard_staged_plan,
    load_staged_plan,
    pending_plan_applies,
    prepare_apply,
    resume_plan_applies,
    stage_plan,
    staged_plan_dir,
    staged_plans,
)
from studio.project import Project
from tests.fault_runner import checkpoint_bytes, differing, forked, kill_sweep, shard_points, tree_bytes

COMPARED = ("volumes", "foreshadowing", "characters")
pytestmark = pytest.mark.usefixtures("no_offline_delay")  # the streaming pace is not tested here
NEW_CHARACTER: tuple[str, dict[str, object], str] = ("zhou-ming", {"id": "zhou-ming", "display_name": "周明"}, "# 周明\n")


def _staged(root: Path, target: PlanTarget, *, with_character: bool = False) -> ProjectPaths:
    project = Project.open(root)
    settings = load_settings(root)
    outcome = asyncio.run(plan_volume(project, settings, build_provider(settings, root, offline=True), target))
    stage_plan(project.paths, outcome.plan, warnings=["w"], note="n",
               character_files=[NEW_CHARACTER] if with_character else [])
    return project.paths


@pytest.fixture()
def at_volume_end(tmp_path: Path) -> Path:
    """The sample with its checkpoint at the end of a 2-chapter volume 1 (a volume-end pause pending)."""
    root = init_project(tmp_path / "novel", sample=True)
    paths = ProjectPaths(root)
    cp = Checkpoint.load(paths.checkpoint)
    cp.orchestrator_state = OrchestratorState.VOL_REVIEW
    cp.pending_actions = [PendingAction(kind="volume_end", question="review")]
    save_checkpoint(paths, cp)
    return root


def test_stage_then_apply_moves_the_plan_and_merges_the_threads(at_volume_end: Path) -> None:
    paths = _staged(at_volume_end, PlanTarget(2, 3, 7))
    assert Checkpoint.load(paths.checkpoint).orchestrator_state is OrchestratorState.VOL_PLANNING
    assert staged_plans(paths) == [2]
    plan, meta = load_staged_plan(paths, 2)
    assert (plan.first_chapter, plan.last_chapter, meta.previous_state) == (3, 7, OrchestratorState.VOL_REVIEW)
    before = ForeshadowingLedger.load(paths.global_foreshadowing)
    global_bytes = paths.global_foreshadowing.read_bytes()

    outcome = apply_staged_plan(paths, 2)

    assert outcome.activated
    vol = paths.volume_dir(2)
    assert (vol / "outline.md").is_file() and (vol / "storyline-schedule.json").is_file()
    assert sorted(p.name for p in (vol / "chapter-contracts").iterdir()) == [f"chapter-{n:03d}.json" for n in range(3, 8)]
    after = ForeshadowingLedger.load(paths.global_foreshadowing)
    ids = [i.id for i in after.foreshadowing]
    assert ids[: len(before.foreshadowing)] == [i.id for i in before.foreshadowing]
    assert {"vol2-token", "vol2-old-debt"} <= set(ids)
    cp = Checkpoint.load(paths.checkpoint)
    assert (cp.current_volume, cp.orchestrator_state, cp.pending_actions) == (2, OrchestratorState.WRITING, [])
    assert (outcome.backup / "global.json").read_bytes() == global_bytes
    assert not staged_plan_dir(paths, 2).exists() and not apply_journal_path(paths, 2).exists()
    assert Project.open(paths.root).outline is not None  # the project reads the new volume


def test_a_plan_over_committed_chapters_is_refused_and_changes_nothing(at_volume_end: Path) -> None:
    paths = _staged(at_volume_end, PlanTarget(2, 2, 6))  # chapter 2 is committed
    with pytest.raises(PlanApplyRefused, match="第 2 章已经提交"):
        prepare_apply(paths, 2)
    assert not paths.volume_dir(2).exists() and pending_plan_applies(paths) == []


def test_a_volume_planned_ahead_keeps_the_current_one(tmp_path: Path) -> None:
    root = init_project(tmp_path / "novel", sample=True)  # writing chapter 3 of volume 1
    paths = _staged(root, PlanTarget(2, 11, 14))
    outcome = apply_staged_plan(paths, 2)
    cp = Checkpoint.load(paths.checkpoint)
    assert not outcome.activated
    assert (cp.current_volume, cp.orchestrator_state) == (1, OrchestratorState.WRITING)


def test_discard_puts_the_state_back(at_volume_end: Path) -> None:
    paths = _staged(at_volume_end, PlanTarget(2, 3, 5))
    discard_staged_plan(paths, 2)
    assert Checkpoint.load(paths.checkpoint).orchestrator_state is OrchestratorState.VOL_REVIEW
    assert staged_plans(paths) == [] and not paths.volume_dir(2).exists()


def test_cold_start_knows_the_planning_states(at_volume_end: Path) -> None:
    paths = _staged(at_volume_end, PlanTarget(2, 3, 5))
    keys = [f.key for f in refusals(check_cold_start(paths))]
    assert keys == ["plan_staged"]
    prepare_apply(paths, 2)  # killed right after the commit point
    found = check_cold_start(paths)
    assert refusals(found) == [] and [f.key for f in found] == ["plan_apply_pending"]
    resume_plan_applies(paths)
    assert check_cold_start(paths) == []
    cp = Checkpoint.load(paths.checkpoint)
    cp.orchestrator_state = OrchestratorState.VOL_PLANNING
    save_checkpoint(paths, cp)
    assert [f.key for f in refusals(check_cold_start(paths))] == ["planning_unfinished"]


# ------------------------------------------------------------------------------------ fault injection


def _snapshot(root: Path) -> dict[str, bytes]:
    out = {**tree_bytes(root, COMPARED), ".checkpoint.json": checkpoint_bytes(root)}
    plan = root / "staging" / "plan"
    out["staging/plan"] = b"present" if plan.exists() else b""
    manifest = root / ".novel-studio" / "plan-files.json"
    out["plan-files.json"] = manifest.read_bytes() if manifest.is_file() else b""
    return out


def _apply(root: Path) -> int:
    """What a start does with a staged plan, in the (forked) process that calls it."""
    paths = ProjectPaths(root)
    fileio.sweep_temp_files(root)  # a start's safe point (the lock held), as in `plan` and `continue`
    resume_plan_applies(paths)  # what every start does first
    for volume in staged_plans(paths):  # the author runs `plan --yes` again
        apply_staged_plan(paths, volume)
    return 0


SHARDS = 2


# Each forked child kills itself at its own write point in its own folder, nothing races and nothing is timed: the
# shards spread over the xdist workers and together check every write point.
@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork and SIGKILL")
@pytest.mark.parametrize("shard", range(SHARDS))
def test_kill_at_every_write_point_of_an_apply(at_volume_end: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              shard: int) -> None:
    monkeypatch.setenv(fileio.NO_FSYNC_ENV, "1")
    _staged(at_volume_end, PlanTarget(2, 3, 7), with_character=True)  # a new character goes in the same step
    reference = tmp_path / "reference"
    shutil.copytree(at_volume_end, reference)
    count_file = tmp_path / "writes.txt"
    assert forked(lambda: _apply(reference), None, count_file) == 0
    writes = int(count_file.read_text())
    assert writes >= 10  # journal, backups, 8 files, ledger, checkpoint, journal updates
    expected = _snapshot(reference)

    def fresh(n: int) -> Path:
        return Path(shutil.copytree(at_volume_end, tmp_path / f"kill-{n}"))

    def check(root: Path) -> list[str]:
        problems = []
        if not (root / "characters" / "active" / "zhou-ming.json").is_file():
            problems.append("the new character is missing")
        if differ := differing(expected, _snapshot(root)):
            problems.append(f"differs from the uninterrupted apply: {differ}")
        if list(root.rglob("*.tmp")):
            problems.append("temp files left")
        return problems

    sweep = kill_sweep(shard_points(writes, shard, SHARDS), fresh, _apply, check)
    assert sweep.checked == [n for n in range(1, writes + 1) if n % SHARDS == shard]
    assert sweep.failures == []


def test_continue_finishes_an_interrupted_apply_first(at_volume_end: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from studio.cli.main import main

    paths = _staged(at_volume_end, PlanTarget(2, 3, 5))
    prepare_apply(paths, 2)  # the commit point was reached, then the process died
    assert main(["continue", "1", "--project", str(paths.root), "--yes", "--offline"]) == 0
    cp = Checkpoint.load(paths.checkpoint)
    assert (cp.current_volume, cp.last_completed_chapter) == (2, 3)
    assert paths.contract(2, 3).is_file() and paths.chapter(3).is_file()
    assert pending_plan_applies(paths) == []


def test_planning_again_after_a_staged_plan_was_removed_by_hand(tmp_path: Path) -> None:
    root = init_project(tmp_path / "novel", sample=True)
    paths = _staged(root, PlanTarget(2, 11, 13))
    shutil.rmtree(staged_plan_dir(paths, 2))  # VOL_PLANNING with nothing staged
    paths = _staged(root, PlanTarget(2, 11, 13))
    apply_staged_plan(paths, 2)  # planned ahead: the state goes back to writing, not to VOL_PLANNING
    assert Checkpoint.load(paths.checkpoint).orchestrator_state is OrchestratorState.WRITING
