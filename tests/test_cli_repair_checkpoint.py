"""`repair` and a checkpoint that cannot be read (issue 11 sweep): the cold start refused with no way out, and
`repair` only repeated the refusal. Now `repair` rebuilds the checkpoint from the chapters, the changelog and
the outlines when they agree (the broken file kept in the backup), and says what to do by hand when they do
not."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.cli.main import main
from studio.models.checkpoint import Checkpoint, OrchestratorState, PipelineStage
from studio.paths import ProjectPaths
from studio.repair import plan_repair

BROKEN = b'{"last_completed_chapter": 2, "current_vol'


def test_a_broken_checkpoint_is_rebuilt_from_the_disk_and_continue_works(
    sample: Path, provider_factory: object, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = ProjectPaths(sample)
    paths.checkpoint.write_bytes(BROKEN)

    assert main(["continue", "--offline", "--yes", "--project", str(sample)]) == 1
    err = capsys.readouterr().err
    assert ".checkpoint.json" in err and "novel-studio repair" in err

    assert main(["repair", "--yes", "--project", str(sample)]) == 0
    out = capsys.readouterr().out
    assert "按磁盘重建检查点：已完成第 2 章" in out and "第 1 卷" in out and "写作" in out
    (backup,) = (sample / ".novel-studio" / "repair").iterdir()
    assert (backup / ".checkpoint.json").read_bytes() == BROKEN
    cp = Checkpoint.load(paths.checkpoint)
    assert (cp.last_completed_chapter, cp.current_volume, cp.orchestrator_state, cp.inflight_chapter) == (
        2, 1, OrchestratorState.WRITING, None)

    assert main(["continue", "--offline", "--yes", "--project", str(sample)]) == 0
    assert paths.chapter(3).is_file() and Checkpoint.load(paths.checkpoint).last_completed_chapter == 3


def test_staged_work_of_the_next_chapter_makes_it_the_inflight_one(sample: Path) -> None:
    paths = ProjectPaths(sample)
    paths.checkpoint.write_bytes(b"")
    paths.staged_chapter(3).parent.mkdir(parents=True, exist_ok=True)
    paths.staged_chapter(3).write_text("第三章的草稿", encoding="utf-8")
    plan = plan_repair(paths)
    assert [i.key for i in plan.fixes] == ["checkpoint_rebuilt"] and plan.cannot == []
    assert plan.checkpoint is not None
    assert plan.checkpoint.inflight_chapter == 3 and plan.checkpoint.pipeline_stage is PipelineStage.DRAFTING


def test_a_gap_in_the_chapters_is_left_to_the_author(sample: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paths = ProjectPaths(sample)
    paths.checkpoint.write_bytes(BROKEN)
    paths.chapter(1).write_bytes(b"")
    assert main(["repair", "--yes", "--project", str(sample)]) == 1
    out = capsys.readouterr().out
    assert "无法按磁盘重建检查点：第 1 章" in out and "修正 .checkpoint.json" in out
    assert out.count(".checkpoint.json:1:") == 1  # said once, not again as the cold start's refusal
    assert paths.checkpoint.read_bytes() == BROKEN
    assert not (sample / ".novel-studio" / "repair").exists()


def test_in_english(sample: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ProjectPaths(sample).checkpoint.write_bytes(BROKEN)
    assert main(["repair", "--yes", "--lang", "en", "--project", str(sample)]) == 0
    out = capsys.readouterr().out
    assert "Rebuild the checkpoint from the disk: chapters done up to 2" in out and "写作" not in out
