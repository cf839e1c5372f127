"""studio.status and `novel-studio status`: text in zh/en, --json, the 字数 cache, errors without traceback."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import sys
from datetime import datetime
from pathlib import Path
from types import ModuleType

import pytest

from studio import wordcount
from studio.fileio import read_json
from studio.lock import LockState, LockStatus
from studio.models.lock_info import LockInfo
from studio.paths import ProjectPaths
from studio.project import Project
from studio.status import WORDCOUNT_CACHE, build_status, cache_file, render_status, total_word_count

BENCH = Path(__file__).resolve().parent.parent / "bench"


def _synth() -> ModuleType:
    spec = importlib.util.spec_from_file_location("novel_studio_bench_synth", BENCH / "synth.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def synth60(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("status") / "novel"
    _synth().generate_project(root, 60, chars_per_chapter=1500, seed=1)
    return root


@pytest.fixture
def project60(synth60: Path, tmp_path: Path) -> Path:
    """A private copy, so a test may change files."""
    root = tmp_path / "novel"
    shutil.copytree(synth60, root)
    return root


def _main(argv: list[str]) -> int:
    from studio.cli.main import main

    return main(argv)


def test_status_on_60_chapters(project60: Path) -> None:
    project = Project.open(project60)
    report = build_status(project)
    assert report.current_volume == 2
    assert report.last_completed_chapter == 60
    assert (report.volume_start, report.volume_end) == (51, 100)
    assert report.chapters_committed == 60
    expected = sum(wordcount.word_count(project.chapter_text(n) or "") for n in range(1, 61))
    assert report.total_chars == expected > 60 * 1000
    assert report.evaluated_chapters == 60
    assert [s.chapter for s in report.recent_scores] == [56, 57, 58, 59, 60]
    assert report.average_score is not None and 3.0 <= report.average_score <= 5.0
    assert report.cost_usd > 0 and report.input_tokens > 0 and report.output_tokens > 0
    assert report.chapters_without_cost == 0
    assert [s.id for s in report.active_storylines] == ["main-arc", "sect-conspiracy", "su-wan-arc"]
    assert report.active_storylines[0].volume_role == "primary"
    assert report.foreshadowing_overdue and all(f.scope == "short" for f in report.foreshadowing_overdue)
    assert report.lock.state == "free"
    assert report.recovery is None
    en = render_status(report, "en")
    assert "Vol 2, Ch 60/100" in en
    assert "Words: " in en and "Avg score" in en
    zh = render_status(report)
    assert "第2卷" in zh and "第60/100章" in zh and "万字" in zh and "均分" in zh


def test_force_passed_marked(project60: Path) -> None:
    report = build_status(Project.open(project60))
    forced = [s for s in report.recent_scores if s.force_passed]
    assert not forced  # chapter 37 is force-passed, not among the last five
    paths = ProjectPaths(project60)
    data = read_json(paths.evaluation(60))
    data["force_passed"] = True
    paths.evaluation(60).write_text(json.dumps(data), encoding="utf-8")
    report = build_status(Project.open(project60))
    assert report.recent_scores[-1].force_passed
    assert "60:" in render_status(report, "en") and "force-passed" in render_status(report, "en")


def test_json_output(project60: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _main(["status", "--project", str(project60), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["last_completed_chapter"] == 60
    assert data["volume_end"] == 100
    assert data["chapters_committed"] == 60
    assert data["total_chars"] > 0
    assert len(data["recent_scores"]) == 5
    assert data["project_name"] == "青云剑歌"
    assert data["lock"]["state"] == "free"


def test_cli_text_zh_and_en(project60: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _main(["status", "--project", str(project60)]) == 0
    assert "第60/100章" in capsys.readouterr().out
    assert _main(["status", "--project", str(project60), "--lang", "en"]) == 0
    assert "Vol 2, Ch 60/100" in capsys.readouterr().out


def test_wordcount_cache_used_on_second_call(project60: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = wordcount.word_count

    def counting(text: str) -> int:
        calls.append(1)
        return real(text)

    monkeypatch.setattr(wordcount, "word_count", counting)
    cache_file(project60, WORDCOUNT_CACHE).unlink(missing_ok=True)
    first, _ = total_word_count(Project.open(project60))
    assert len(calls) == 60
    assert cache_file(project60, WORDCOUNT_CACHE).is_file()
    calls.clear()
    second, _ = total_word_count(Project.open(project60))
    assert calls == [] and second == first
    # one chapter changes: only that one is read again
    chapter = ProjectPaths(project60).chapter(7)
    chapter.write_text(chapter.read_text(encoding="utf-8") + "\n新增一句。\n", encoding="utf-8")
    third, _ = total_word_count(Project.open(project60))
    assert len(calls) == 1 and third == first + 5
    # a corrupt cache is rebuilt, not an error
    calls.clear()
    cache_file(project60, WORDCOUNT_CACHE).write_text("{broken", encoding="utf-8")
    assert total_word_count(Project.open(project60))[0] == third
    assert len(calls) == 60


def test_interrupted_chapter_and_lock(project60: Path) -> None:
    paths = ProjectPaths(project60)
    cp = read_json(paths.checkpoint)
    cp.update(inflight_chapter=61, pipeline_stage="drafting")
    paths.checkpoint.write_text(json.dumps(cp), encoding="utf-8")
    info = LockInfo(pid=4242, host="writer-box", started=datetime(2026, 3, 15, 14, 30).astimezone(), chapter=61)
    lock = LockStatus(LockState.HELD_ALIVE, "held", info, 12.0)
    report = build_status(Project.open(project60), lock_status=lock)
    assert report.inflight_chapter == 61
    assert report.recovery is not None and report.recovery.action == "restart_chapter"
    assert report.lock.pid == 4242
    zh = render_status(report)
    assert "中断" in zh and "第61章" in zh and "4242" in zh
    en = render_status(report, "en")
    assert "Interrupted: Ch 61" in en and "pid 4242@writer-box" in en


def test_unreadable_evaluation_is_reported_not_fatal(project60: Path) -> None:
    ProjectPaths(project60).evaluation(3).write_text("{oops", encoding="utf-8")
    report = build_status(Project.open(project60))
    assert report.evaluated_chapters == 59
    assert any("chapter-003-eval.json" in p for p in report.problems)
    assert "chapter-003-eval.json" in render_status(report, "en")


def test_skipped_ops_warning(project60: Path) -> None:
    paths = ProjectPaths(project60)
    cp = read_json(paths.checkpoint)
    cp["skipped_ops_chapters"] = [12, 40, 41]
    paths.checkpoint.write_text(json.dumps(cp), encoding="utf-8")
    report = build_status(Project.open(project60))
    assert report.skipped_ops_warnings == 3
    assert "3" in render_status(report, "en").splitlines()[-1]


def test_fresh_project_status(project_dir: Path) -> None:
    from studio.init_project import init_project

    init_project(project_dir)
    report = build_status(Project.open(project_dir))
    assert report.chapters_committed == 0 and report.total_chars == 0
    assert report.orchestrator_state == "INIT"
    assert "尚无章节" in render_status(report)


def test_no_project_exits_1_without_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _main(["status", "--project", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert str(tmp_path) in err and "novel-studio init" in err


def test_corrupt_file_exits_1_listing_problems(project60: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project60 / "storylines" / "storylines.json").write_text("[", encoding="utf-8")
    (project60 / ".checkpoint.json").write_text('{"current_volume": -1}', encoding="utf-8")
    assert _main(["status", "--project", str(project60), "--lang", "en"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert "storylines.json" in err and ".checkpoint.json" in err and "current_volume" in err


def test_read_only_project_still_reports(project60: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import studio.stat_cache as stat_cache_mod  # the caches' writer (`StatCache.save`)

    def refuse(path: Path, text: str, **options: bool) -> None:
        raise PermissionError(13, "read-only", str(path))

    monkeypatch.setattr(stat_cache_mod, "atomic_write_text", refuse)
    shutil.rmtree(project60 / ".novel-studio", ignore_errors=True)
    report = build_status(Project.open(project60))
    assert report.total_chars > 0
    assert not (project60 / ".novel-studio").exists() or not os.listdir(project60 / ".novel-studio" / "cache")
