"""The commit transaction: idempotent steps under a journal, each chapter exactly once."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pipeline.commit import STEPS, pending_commits, resume_commits, run_commit
from pipeline.staging import ChapterStaging
from studio.fileio import atomic_write_json, read_json
from studio.init_project import init_project
from studio.models.checkpoint import Checkpoint, PipelineStage
from studio.paths import ProjectPaths
from tests.test_orchestrator import Boom, assert_consistent, fake, patch_chapters, run, staging_files


@pytest.fixture
def prepared(tmp_path: Path) -> Path:
    """A sample project with chapter 3 judged and its commit journal written (nothing moved yet)."""
    root = init_project(tmp_path / "novel", sample=True)

    def hook(step: str) -> None:
        if step == "commit:prepared":
            raise Boom(step)

    import asyncio

    with pytest.raises(Boom):
        asyncio.run(run(root, fake(root), hook=hook))
    assert pending_commits(ProjectPaths(root)) == [3]
    return root


def _snapshot(root: Path) -> dict[str, bytes]:
    paths = ProjectPaths(root)
    files = [paths.chapter(3), paths.summary(3), paths.evaluation(3), paths.log(3), paths.current_state,
             paths.changelog, paths.global_foreshadowing, paths.storyline_memory("main-arc")]
    return {str(p.relative_to(root)): p.read_bytes() for p in files}


def test_commit_runs_all_steps(prepared: Path) -> None:
    paths = ProjectPaths(prepared)
    outcome = run_commit(paths, 3)
    assert outcome.chapter == 3 and outcome.storyline_id == "main-arc" and not outcome.patch_skipped
    assert pending_commits(paths) == [] and staging_files(prepared) == []
    cp = Checkpoint.load(paths.checkpoint)
    assert cp.last_completed_chapter == 3 and cp.pipeline_stage is PipelineStage.COMMITTED
    assert patch_chapters(prepared) == [1, 2, 3]
    info = read_json(prepared / "logs" / "chapter-003" / "undo.json")
    assert info["memory_existed"] and info["foreshadowing_existed"]
    assert_consistent(prepared)


def test_commit_keeps_the_evaluations_score_for_status(prepared: Path) -> None:
    """The evaluation step keeps the moved evaluation's score under its final stat (the user cache), so the next
    `status` validates no evaluation of the chapter just committed."""
    from studio.models.evaluation import Evaluation
    from studio.status_memo import cache_file
    from studio.status_scores import EVALUATION_CACHE, score_of, score_rows

    paths = ProjectPaths(prepared)
    run_commit(paths, 3)
    read: list[int] = []

    def reader(n: int, path: Path) -> Evaluation:
        read.append(n)
        return Evaluation.load(path)

    rows = score_rows({3: paths.evaluation(3)},
                      cache_file(prepared, EVALUATION_CACHE), lambda path, exc: None, reader)
    assert read == []  # from the commit's record
    assert rows == [{"chapter": 3, **score_of(Evaluation.load(paths.evaluation(3)))}]


@pytest.mark.parametrize("step", [s for s in STEPS if s != "cleanup"])
def test_kill_after_each_step_then_resume(prepared: Path, tmp_path: Path, step: str) -> None:
    reference = tmp_path / "reference"
    shutil.copytree(prepared, reference)
    run_commit(ProjectPaths(reference), 3)
    expected = _snapshot(reference)

    paths = ProjectPaths(prepared)

    def hook(name: str) -> None:
        if name == f"commit:{step}":
            raise Boom(name)

    with pytest.raises(Boom):
        run_commit(paths, 3, hook=hook)
    finished = resume_commits(paths)
    assert [o.chapter for o in finished] == [3] and finished[0].resumed
    got = _snapshot(prepared)
    for name in expected:
        if name.endswith("-log.json") or name.endswith("changelog.jsonl"):
            continue  # timestamps
        assert got[name] == expected[name], name
    assert patch_chapters(prepared) == [1, 2, 3]
    assert staging_files(prepared) == []
    assert_consistent(prepared)


def test_steps_redone_without_journal_record_stay_exactly_once(prepared: Path) -> None:
    """A kill right after a step but before the journal recorded it: the step runs twice, harmlessly."""
    paths = ProjectPaths(prepared)

    def hook(name: str) -> None:
        if name == "commit:log":
            raise Boom(name)

    with pytest.raises(Boom):
        run_commit(paths, 3, hook=hook)
    ledger_once = paths.global_foreshadowing.read_bytes()
    journal_path = ChapterStaging(paths, 3).journal
    journal = read_json(journal_path)
    journal["steps_done"] = [s for s in journal["steps_done"] if s not in ("state", "foreshadowing", "archive")]
    atomic_write_json(journal_path, journal)
    run_commit(paths, 3)
    assert patch_chapters(prepared) == [1, 2, 3]
    assert paths.global_foreshadowing.read_bytes() == ledger_once
    assert_consistent(prepared)


def test_merge_cut_between_log_and_state_is_finished(prepared: Path) -> None:
    """The changelog line written, the state file not: reconcile finishes it, no second line."""
    from studio.state_engine import load_state, merge_patch

    paths = ProjectPaths(prepared)
    before = paths.current_state.read_bytes()
    patch, _ = ChapterStaging(paths, 3).load_delta()
    assert patch is not None
    merge_patch(paths, patch)
    merged_state = load_state(paths).to_data()
    paths.current_state.write_bytes(before)  # as if killed before the state file was replaced
    run_commit(paths, 3)
    assert patch_chapters(prepared) == [1, 2, 3]
    assert load_state(paths).to_data() == merged_state
    assert_consistent(prepared)


def test_skipped_ops_commit_records_the_chapter(tmp_path: Path) -> None:
    import asyncio

    root = init_project(tmp_path / "novel", sample=True)
    result = asyncio.run(run(root, fake(root, skip_ops={3})))
    assert result.committed == [3]
    paths = ProjectPaths(root)
    assert patch_chapters(root) == [1, 2]
    assert Checkpoint.load(paths.checkpoint).skipped_ops_chapters == [3]
    log = read_json(paths.log(3))
    assert any("skipped" in w for w in log["warnings"])
    assert_consistent(root)
