"""`studio.pending`: what waits in a project folder, by file names alone (the paths the owning modules re-export)."""

from __future__ import annotations

from pathlib import Path

from studio import pending
from studio.paths import ProjectPaths


def _touch(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{}", encoding="utf-8")


def test_nothing_pending_in_an_empty_folder(tmp_path: Path) -> None:
    paths = ProjectPaths(tmp_path)
    assert pending.staged_plans(paths) == []
    assert pending.pending_plan_applies(paths) == []
    assert pending.pending_reviews(paths) == []
    assert pending.pending_tool_changes(paths) == []


def test_plans_reviews_and_tool_changes_by_name(tmp_path: Path) -> None:
    paths = ProjectPaths(tmp_path)
    _touch(pending.staged_plan_dir(paths, 3) / pending.PLAN_META_NAME)
    _touch(pending.staged_plan_dir(paths, 12) / pending.PLAN_META_NAME)
    (pending.staged_plan_dir(paths, 4)).mkdir(parents=True)  # no plan.json yet: not a staged plan
    _touch(pending.apply_journal_path(paths, 12))  # its apply is under way: pending, no longer staged
    _touch(pending.review_journal_path(paths, 10))
    _touch(pending.review_journal_path(paths, 2))
    _touch(paths.staging / "review" / "notes.json")  # not a review journal's name
    _touch(pending.tool_journal_dir(paths) / "b.json")
    _touch(pending.tool_journal_dir(paths) / "a.json")
    _touch(pending.tool_journal_dir(paths) / "a")  # a staged folder's name, not a journal
    assert pending.staged_plans(paths) == [3]
    assert pending.pending_plan_applies(paths) == [12]
    assert pending.pending_reviews(paths) == [2, 10]
    assert [p.name for p in pending.pending_tool_changes(paths)] == ["a.json", "b.json"]


def test_the_owning_modules_use_these_paths(tmp_path: Path) -> None:
    """One definition: the modules that read and write the files name the same paths."""
    from studio.importing.journal import journal_path
    from studio.models.extraction_progress import extraction_progress_path
    from studio.planning.quick_start_progress import progress_path
    from studio.planning.review import review_journal_path, review_path
    from studio.planning.staged import apply_journal_path, staged_plan_dir
    from studio.tools.txn import journal_dir

    paths = ProjectPaths(tmp_path)
    assert journal_path(paths) == pending.import_journal_path(paths) == tmp_path / ".novel-studio" / "import-journal.json"
    assert extraction_progress_path(paths) == pending.extraction_progress_path(paths)
    assert progress_path(paths) == pending.quick_start_progress_path(paths)
    assert review_path(paths, 2) == tmp_path / "volumes" / "vol-02" / "review.md"
    assert review_journal_path(paths, 2) == tmp_path / "staging" / "review" / "vol-02.json"
    assert apply_journal_path(paths, 2) == tmp_path / "staging" / "plan" / "apply-vol-02.json"
    assert staged_plan_dir(paths, 2) == tmp_path / "staging" / "plan" / "vol-02"
    assert journal_dir(paths) == tmp_path / "staging" / "tools"
