"""Undo of the last committed chapter restores state, foreshadowing, memory and checkpoint exactly."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pipeline.undo import UndoError, backup_root, undo_last_chapter, undo_target
from studio.init_project import init_project
from studio.models.checkpoint import Checkpoint
from studio.paths import ProjectPaths
from studio.state_engine import load_state
from tests.test_orchestrator import Recorder, assert_consistent, fake, patch_chapters, run


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return init_project(tmp_path / "novel", sample=True)


def _files(root: Path) -> dict[str, bytes | None]:
    paths = ProjectPaths(root)
    out: dict[str, bytes | None] = {}
    for p in (paths.changelog, paths.global_foreshadowing, paths.storyline_memory("main-arc"),
              paths.storyline_memory("fog-tide")):
        out[str(p.relative_to(root))] = p.read_bytes() if p.is_file() else None
    return out


def _cp(root: Path) -> dict[str, Any]:
    data = Checkpoint.load(ProjectPaths(root).checkpoint).to_data()
    data.pop("last_checkpoint_time")
    return data


async def test_commit_then_undo_restores_everything(root: Path) -> None:
    files, state, cp = _files(root), load_state(ProjectPaths(root)).to_data(), _cp(root)
    await run(root, fake(root, scores={3: [3.2, 4.2]}))
    assert _files(root) != files

    result = undo_last_chapter(ProjectPaths(root))
    assert result.chapter == 3 and result.warnings == []
    assert _files(root) == files
    assert load_state(ProjectPaths(root)).to_data() == state
    assert _cp(root) == cp
    paths = ProjectPaths(root)
    for path in (paths.chapter(3), paths.summary(3), paths.evaluation(3), paths.log(3)):
        assert not path.exists()
    assert not (root / "logs" / "chapter-003").exists()
    backup = result.backup_dir
    assert backup.parent == backup_root(paths)
    assert (backup / "chapters" / "chapter-003.md").is_file()
    assert (backup / "logs" / "chapter-003" / "undo.json").is_file()
    assert_consistent(root)

    # the chapter can be written again, exactly once
    again = await run(root, fake(root))
    assert again.committed == [3] and patch_chapters(root) == [1, 2, 3]


async def test_undo_twice_goes_back_two_chapters(root: Path) -> None:
    files, cp = _files(root), _cp(root)
    await run(root, fake(root), 2)
    undo_last_chapter(ProjectPaths(root))
    undo_last_chapter(ProjectPaths(root))
    assert _files(root) == files and _cp(root) == cp
    assert patch_chapters(root) == [1, 2]


async def test_undo_of_a_volume_end_reopens_writing(root: Path) -> None:
    await run(root, fake(root), 8)
    assert Checkpoint.load(ProjectPaths(root).checkpoint).orchestrator_state == "VOL_REVIEW"
    undo_last_chapter(ProjectPaths(root))
    cp = Checkpoint.load(ProjectPaths(root).checkpoint)
    assert cp.orchestrator_state == "WRITING" and cp.last_completed_chapter == 9


async def test_undo_refused_while_a_chapter_waits(root: Path) -> None:
    await run(root, fake(root, scores={3: [2.5]}), decider=Recorder(pause=True))
    with pytest.raises(UndoError):
        undo_target(ProjectPaths(root))


def test_undo_of_a_sample_chapter_without_archive_warns(root: Path) -> None:
    result = undo_last_chapter(ProjectPaths(root))
    assert result.chapter == 2 and result.warnings
    assert patch_chapters(root) == [1]
    assert_consistent(root)
