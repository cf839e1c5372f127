"""Staging -> validate -> commit (issue 11 item 5): a broken file the commit would move or rewrite stops it before
its first move, for a fresh commit and when it finishes an interrupted one; nothing moved, the staging kept, a
Chinese message naming the file and the way out."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from pipeline.commit import CommitRefused, prepare_commit, resume_commits, run_commit
from pipeline.staging import ChapterStaging
from studio.fileio import read_json
from studio.init_project import init_project
from studio.models.checkpoint import Checkpoint
from studio.paths import ProjectPaths
from tests.test_orchestrator import Boom, assert_consistent, fake, patch_chapters, run, staging_files


def _stop_at(step: str) -> Callable[[str], None]:
    def hook(name: str) -> None:
        if name == step:
            raise Boom(name)

    return hook


@pytest.fixture
def prepared(tmp_path: Path) -> Path:
    """A sample project with chapter 3 judged and its commit journal written (nothing moved yet)."""
    root = init_project(tmp_path / "novel", sample=True)
    with pytest.raises(Boom):
        asyncio.run(run(root, fake(root), hook=_stop_at("commit:prepared")))
    return root


@pytest.fixture
def interrupted(prepared: Path) -> Path:
    """`prepared` with the commit killed after its chapter step (the archive made, the chapter in place)."""
    with pytest.raises(Boom):
        run_commit(ProjectPaths(prepared), 3, hook=_stop_at("commit:chapter"))
    assert ProjectPaths(prepared).chapter(3).is_file()
    return prepared


def _project_files(root: Path) -> dict[str, bytes]:
    """Everything but the staging (the commit moves files out of it into these)."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and "staging" not in p.relative_to(root).parts and p.name != "writes.jsonl"}


def _staged(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in staging_files(root)}


def _refused(root: Path, call: Callable[[], object]) -> CommitRefused:
    project, staged = _project_files(root), _staged(root)
    with pytest.raises(CommitRefused) as caught:
        call()
    assert _project_files(root) == project, "a refused commit moved or rewrote a project file"
    assert _staged(root) == staged, "a refused commit changed the staging"
    return caught.value


BREAKS: dict[str, Callable[[ProjectPaths, ChapterStaging], Path]] = {
    "summary": lambda p, st: st.summary,
    "evaluation": lambda p, st: st.evaluation,
    "log": lambda p, st: st.staged_log,
    "delta": lambda p, st: st.delta,
    "memory": lambda p, st: st.memory("main-arc"),
}


@pytest.mark.parametrize("what", sorted(BREAKS))
def test_finishing_an_interrupted_commit_refuses_a_broken_staged_file(interrupted: Path, what: str) -> None:
    """Items 1 and 2: the resumed commit used to copy a broken summary or evaluation into place as it was, and to
    move a broken chapter log before failing to read it."""
    paths = ProjectPaths(interrupted)
    target = BREAKS[what](paths, ChapterStaging(paths, 3))
    target.write_bytes(target.read_bytes()[:40] + b"\xff\xfe{")
    error = _refused(interrupted, lambda: resume_commits(paths))
    rel = target.relative_to(interrupted).as_posix()
    assert rel in error.text("zh") and "没有移动任何文件" in error.text("zh") and "continue" in error.text("zh")
    assert rel in str(error) and "nothing was moved" in str(error)
    assert not paths.summary(3).exists()


@pytest.mark.parametrize("what", [*sorted(BREAKS), "text"])
def test_a_fresh_commit_refuses_a_broken_staged_file_before_its_first_move(prepared: Path, what: str) -> None:
    paths = ProjectPaths(prepared)
    st = ChapterStaging(paths, 3)
    target = st.current if what == "text" else BREAKS[what](paths, st)
    target.write_bytes(b"" if what == "text" else b"\xff" + target.read_bytes())
    error = _refused(prepared, lambda: run_commit(paths, 3))
    assert target.relative_to(prepared).as_posix() in error.text("zh")
    assert not paths.chapter(3).exists() and not (prepared / "logs" / "chapter-003").exists()


def test_a_fixed_staged_file_lets_the_interrupted_commit_finish(interrupted: Path) -> None:
    paths = ProjectPaths(interrupted)
    st = ChapterStaging(paths, 3)
    good = st.evaluation.read_bytes()
    st.evaluation.write_text('{"chapter": "三"}', encoding="utf-8")
    error = _refused(interrupted, lambda: resume_commits(paths))
    assert "evaluations/chapter-003-eval.json" in error.text("zh")
    st.evaluation.write_bytes(good)
    assert [o.chapter for o in resume_commits(paths)] == [3]
    assert paths.evaluation(3).read_bytes() == good
    assert patch_chapters(interrupted) == [1, 2, 3] and staging_files(interrupted) == []
    assert_consistent(interrupted)


def test_a_broken_foreshadowing_ledger_stops_the_commit_before_its_first_move(prepared: Path) -> None:
    """Item 3: the ledger the commit rewrites was archived as it was and found broken only at the foreshadowing
    step, with the chapter, summary and state already moved."""
    paths = ProjectPaths(prepared)
    paths.global_foreshadowing.write_text('{"foreshadowing": "不是列表"}', encoding="utf-8")
    error = _refused(prepared, lambda: run_commit(paths, 3))
    assert "foreshadowing/global.json" in error.text("zh") and "novel-studio repair" in error.text("zh")
    assert not paths.chapter(3).exists() and not (prepared / "logs" / "chapter-003").exists()


def test_a_broken_archived_ledger_stops_the_interrupted_commit(interrupted: Path) -> None:
    paths = ProjectPaths(interrupted)
    before = interrupted / "logs" / "chapter-003" / "foreshadowing-before.json"
    before.write_bytes(b"\xff")
    error = _refused(interrupted, lambda: resume_commits(paths))
    assert "logs/chapter-003/foreshadowing-before.json" in error.text("zh")


def test_a_broken_checkpoint_stops_the_commit_before_its_first_move(prepared: Path) -> None:
    paths = ProjectPaths(prepared)
    paths.checkpoint.write_text('{"last_completed_chapter": "二"}', encoding="utf-8")
    error = _refused(prepared, lambda: run_commit(paths, 3))
    assert ".checkpoint.json" in error.text("zh")


def test_a_fresh_commit_names_the_stage_that_remakes_a_broken_staged_file(prepared: Path) -> None:
    """Before the journal (prepare): a broken staged evaluation is refused with the way out by the stage."""
    paths = ProjectPaths(prepared)
    st = ChapterStaging(paths, 3)
    st.journal.unlink()
    st.evaluation.write_text("[1, 2]", encoding="utf-8")
    error = _refused(prepared, lambda: prepare_commit(paths, 3, gate_decision="pass", revisions=0,
                                                     force_passed=False, started_at=None))
    assert "staging/evaluations/chapter-003-eval.json" in error.text("zh")
    assert "移出项目再运行 continue" in error.text("zh") and "move it out of the project" in str(error)
    assert not st.journal.exists()
    # the way out works: the evaluation moved away, the run judges again and commits
    st.evaluation.unlink()
    cp = Checkpoint.load(paths.checkpoint)
    assert cp.inflight_chapter == 3
    asyncio.run(run(prepared, fake(prepared)))
    assert paths.evaluation(3).is_file() and read_json(paths.evaluation(3))["chapter"] == 3
    assert_consistent(prepared)


def test_a_broken_state_stops_the_interrupted_commit_before_its_next_move(interrupted: Path) -> None:
    """Finishing a commit used to merge into the state only at its state step, after the summary, evaluation and
    memory were moved."""
    paths = ProjectPaths(interrupted)
    paths.current_state.write_text('{"state_version": "七"}', encoding="utf-8")
    error = _refused(interrupted, lambda: resume_commits(paths))
    assert "state/current-state.json" in error.text("zh")
