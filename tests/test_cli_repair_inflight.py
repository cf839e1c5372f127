"""`repair` and a checkpoint whose inflight chapter is not the next one (issue 11, cold start `inflight_absurd`).

With nothing staged, `repair` clears the inflight chapter. With work staged for that chapter it used to change
nothing and send the author back to `repair`; now it moves that chapter's staged files into its backup folder
(same relative paths, bytes unchanged), clears the inflight chapter, and the whole way out works: refused ->
`repair` -> `continue`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from studio.cli.main import main
from studio.coldstart import check_cold_start, refusals
from studio.models.checkpoint import Checkpoint, PendingAction, PipelineStage, save_checkpoint
from studio.paths import ProjectPaths
from studio.repair import plan_repair, staged_work


def _stage(paths: ProjectPaths, n: int) -> dict[Path, bytes]:
    """Staged work of chapter `n` (a draft, its summary naming a storyline, that storyline's memory, a log)."""
    files: dict[Path, bytes] = {
        paths.staged_chapter(n): f"第{n}章的暂存草稿，作者可能还要用。\n".encode(),
        paths.staging / "summaries" / f"chapter-{n:03d}-summary.json": json.dumps(
            {"storyline_id": "main-arc"}).encode(),
        paths.staged_memory("main-arc"): "主线记忆：沈照点灯。\n".encode(),
        paths.staging / "logs" / f"chapter-{n:03d}-calls.jsonl": b'{"stage": "writer"}\n',
    }
    for path, data in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return files


def _inflight(paths: ProjectPaths, n: int, **extra: object) -> None:
    cp = Checkpoint.load_or_default(paths.checkpoint)
    cp.inflight_chapter = n
    cp.pipeline_stage = PipelineStage.DRAFTED
    for key, value in extra.items():
        setattr(cp, key, value)
    save_checkpoint(paths, cp)


def test_staged_work_of_an_absurd_inflight_chapter_is_set_aside_and_continue_works(
    sample: Path, provider_factory: object, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = ProjectPaths(sample)
    _inflight(paths, 5)
    staged = _stage(paths, 5)
    other = paths.staging / "chapters" / "chapter-1005.md"  # chapter 1005's file: not chapter 5's work
    other.write_bytes("另一章".encode())

    # refused, and the refusal names `repair`
    assert main(["continue", "--offline", "--yes", "--project", str(sample)]) == 1
    err = capsys.readouterr().err
    assert "第 5 章正在进行" in err and "novel-studio repair" in err
    assert not paths.chapter(3).exists()

    # the advised command fixes it: files moved into the backup byte for byte, the checkpoint cleared
    assert main(["repair", "--yes", "--project", str(sample)]) == 0
    out = capsys.readouterr().out
    assert "4 个暂存文件移到备份文件夹" in out and "无法自动修复" not in out
    (backup,) = (sample / ".novel-studio" / "repair").iterdir()
    for path, data in staged.items():
        assert not path.exists()
        assert (backup / path.relative_to(sample)).read_bytes() == data
    assert other.read_bytes() == "另一章".encode()  # another chapter's file stays where it is
    cp = Checkpoint.load(paths.checkpoint)
    assert cp.inflight_chapter is None and cp.last_completed_chapter == 2
    assert json.loads((backup / ".checkpoint.json").read_text(encoding="utf-8"))["inflight_chapter"] == 5
    assert refusals(check_cold_start(paths)) == []

    # the way out is complete: continue writes the next chapter
    other.unlink()
    assert main(["continue", "--offline", "--yes", "--project", str(sample)]) == 0
    assert paths.chapter(3).is_file() and Checkpoint.load(paths.checkpoint).last_completed_chapter == 3


def test_the_pauses_of_the_set_aside_chapter_go_with_the_old_checkpoint(sample: Path) -> None:
    paths = ProjectPaths(sample)
    keep = PendingAction(kind="volume_end", question="卷末")
    _inflight(paths, 7, pending_actions=[PendingAction(kind="gate_low_score", chapter=7), keep])
    _stage(paths, 7)
    plan = plan_repair(paths)
    assert [i.key for i in plan.fixes] == ["inflight_set_aside"] and plan.cannot == []
    assert plan.checkpoint is not None and [a.kind for a in plan.checkpoint.pending_actions] == ["volume_end"]


def test_nothing_staged_is_still_a_plain_reset(sample: Path) -> None:
    paths = ProjectPaths(sample)
    _inflight(paths, 9)
    plan = plan_repair(paths)
    assert [i.key for i in plan.fixes] == ["inflight_reset"] and plan.set_aside == []


def test_staged_work_is_matched_by_chapter_number_not_by_text(sample: Path) -> None:
    paths = ProjectPaths(sample)
    _stage(paths, 10)
    (paths.staging / "chapters" / "chapter-100.md").write_text("第100章", encoding="utf-8")
    (paths.staging / "chapters" / "chapter-1000.md").write_text("第1000章", encoding="utf-8")
    names = sorted(p.name for p in staged_work(paths, 100))
    assert names == ["chapter-100.md"]
    assert len(staged_work(paths, 10)) == 4


def test_a_broken_staged_summary_names_no_memory_and_loses_nothing(sample: Path) -> None:
    paths = ProjectPaths(sample)
    _inflight(paths, 6)
    _stage(paths, 6)
    summary = paths.staging / "summaries" / "chapter-006-summary.json"
    summary.write_bytes(b"\xff\xfe not json")
    found = staged_work(paths, 6)
    assert summary in found and paths.staged_memory("main-arc") not in found
    assert main(["repair", "--yes", "--project", str(sample)]) == 0
    (backup,) = (sample / ".novel-studio" / "repair").iterdir()
    assert (backup / summary.relative_to(sample)).read_bytes() == b"\xff\xfe not json"
    assert paths.staged_memory("main-arc").is_file()  # not named by a readable summary: left in staging
