"""The full depth of an import (pipeline.importing.extract): the cast pass, the style pass and the per-chapter
Summarizer through the journaled commit; the estimate, the confirmation, `--to`, `--max-cost`, a failed call
then a rerun, the cold-start rule, the `extract` command. The SDK path is tests/test_import_extract_fakeapi.py;
kills at every write point are tests/test_import_extract_kill.py."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from pipeline.decisions import Question, QuestionKind, take_recommended
from pipeline.importing.extract import (
    SUMMARY_STAGE,
    ExtractionRefused,
    ExtractionResult,
    chapter_extracted,
    estimate_extraction,
    run_extraction,
)
from pipeline.importing.replies import ImportSurveyReply
from pipeline.providers.base import ModelRequest, ModelResult, Provider, ProviderError, TextCallback
from pipeline.providers.cost import settings_prices
from pipeline.providers.factory import build_provider
from pipeline.providers.ledger import LedgerProvider
from pipeline.providers.offline import OfflineProvider
from studio.cli.main import main
from studio.coldstart import check_cold_start
from studio.config import load_settings
from studio.models.changelog import ChangelogEntry
from studio.models.extraction_progress import ExtractionProgress, extraction_progress_path
from studio.models.import_record import ImportRecord
from studio.models.settings import Settings
from studio.models.style_profile import StyleProfile
from studio.paths import ProjectPaths
from studio.project import Project
from studio.spend_ledger import read_spend
from studio.state_engine import load_changelog
from tests.import_extract_helpers import chapter_bytes, imported_project


def _run(root: Path, provider: Provider | None = None, **kwargs: Any) -> ExtractionResult:
    settings = load_settings(root)
    provider = provider or build_provider(settings, root, offline=True)
    kwargs.setdefault("offline", True)
    return asyncio.run(run_extraction(root, settings, provider, take_recommended, lambda e: None, **kwargs))


def _booked(root: Path) -> list[tuple[str | None, int | None, bool]]:
    entries, bad = read_spend(ProjectPaths(root).spend_ledger)
    assert bad == 0
    return [(e.stage, e.chapter, e.ok) for e in entries]


def _summaries_paid(root: Path) -> Counter[int | None]:
    return Counter(chapter for stage, chapter, ok in _booked(root) if stage == SUMMARY_STAGE and ok)


class PricedOffline(OfflineProvider):
    """The offline replies, priced as the requested model (so caps and costs are real), not marked offline."""

    offline = False

    def __init__(self, fail_on: set[int] | None = None) -> None:
        super().__init__(delay_s=0)
        self.fail_on = set(fail_on or ())
        self.failed: set[int] = set()

    async def run(self, request: ModelRequest, on_text: TextCallback | None = None) -> ModelResult:
        n = request.chapter
        if request.stage == SUMMARY_STAGE and n in self.fail_on and n not in self.failed:
            self.failed.add(n)
            raise ProviderError("connection reset by peer", retryable=False)
        result = await super().run(request, on_text)
        return replace(result, model=request.model)


def _priced(root: Path, settings: Settings, fail_on: set[int] | None = None) -> LedgerProvider:
    return LedgerProvider(PricedOffline(fail_on), ProjectPaths(root).spend_ledger, settings_prices(settings))


# --------------------------------------------------------------------------------------------- the whole run


def test_offline_extraction_builds_the_project_as_if_written_here(tmp_path: Path) -> None:
    root = imported_project(tmp_path / "book", 6)
    before = chapter_bytes(root, 6)
    result = _run(root)
    assert result.status == "done" and result.exit_code == 0, result.message
    assert result.extracted_through == 6 and result.chapters == [1, 2, 3, 4, 5, 6]
    assert chapter_bytes(root, 6) == before  # the author's text is never modified
    paths = ProjectPaths(root)
    project = Project.open(root)  # every file valid
    # characters from the cast pass, with contracts; the main storyline with the protagonist as POV
    assert "lin-feng" in project.characters and project.characters["lin-feng"].contracts
    main_arc = project.storylines.get("main-arc")
    assert main_arc is not None and main_arc.pov_characters == ["lin-feng"]
    # state and changelog: one patch line per chapter, in order, on top of each other
    entries = [e for e in load_changelog(paths.changelog) if e.kind == "patch"]
    assert [e.chapter for e in entries] == [1, 2, 3, 4, 5, 6]
    assert [e.base_state_version for e in entries] == [0, 1, 2, 3, 4, 5]
    state = project.state
    assert state.state_version == 6 and state.last_updated_chapter == 6
    assert state.characters["lin-feng"].to_data()["display_name"] == "林枫"
    # summaries, storyline memory, the foreshadowing ledger (chapter 5 plants a thread nobody resolves)
    assert all(paths.summary(n).is_file() for n in range(1, 7))
    memory = paths.storyline_memory("main-arc").read_text("utf-8")
    assert "第6章" in memory
    ledger = json.loads(paths.global_foreshadowing.read_text("utf-8"))
    status = {i["id"]: i["status"] for i in ledger["foreshadowing"]}
    assert status == {"import-ch001": "resolved", "import-ch005": "planted"}
    assert state.active_foreshadowing == ["import-ch005"]
    # the style profile: measured numbers, anchor passages cut verbatim from the author's chapters
    profile = StyleProfile.load(paths.style_profile)
    assert profile.source_type == "original" and profile.avg_sentence_length
    exemplars = profile.to_data()["style_exemplars"]
    texts = [paths.chapter(n).read_text("utf-8") for n in range(1, 7)]
    assert exemplars and all(any(x in t for t in texts) for x in exemplars)
    # undo's "before" copies exist as for a written chapter; nothing left in staging
    assert (paths.root / "logs" / "chapter-003" / "undo.json").is_file()
    assert not any(p.is_file() for p in paths.staging.rglob("*")) if paths.staging.exists() else True
    record = ImportRecord.load(paths.import_record)
    assert record.extracted_through == 6
    progress = ExtractionProgress.load(extraction_progress_path(paths))
    assert progress.status == "done" and progress.survey_done and progress.style_done
    assert progress.survey_chapters == [1, 2, 3, 4, 5] and progress.style_chapters == [1, 3, 6]
    assert [f.key for f in check_cold_start(paths) if f.severity == "refuse"] == []


def test_extract_to_then_later_goes_on_and_pays_each_chapter_once(tmp_path: Path) -> None:
    root = imported_project(tmp_path / "book", 5)
    settings = load_settings(root)
    first = _run(root, _priced(root, settings), last=2, offline=False)
    assert first.status == "done" and first.extracted_through == 2 and first.cost_usd > 0
    refused = [f.key for f in check_cold_start(ProjectPaths(root)) if f.severity == "refuse"]
    assert refused == ["extraction_unfinished"]
    second = _run(root, _priced(root, settings), offline=False)
    assert second.status == "done" and second.chapters == [3, 4, 5]
    assert [e.chapter for e in load_changelog(ProjectPaths(root).changelog) if e.kind == "patch"] == [1, 2, 3, 4, 5]
    assert _summaries_paid(root) == Counter({1: 1, 2: 1, 3: 1, 4: 1, 5: 1})
    stages = [stage for stage, _, _ in _booked(root)]
    assert stages.count("import-cast") == 1 and stages.count("style") == 1  # once per book
    again = _run(root, _priced(root, settings), offline=False)
    assert again.status == "done" and again.chapters == [] and again.calls == []
    assert check_cold_start(ProjectPaths(root)) == []


def test_max_cost_stops_between_chapters_and_the_rerun_goes_on(tmp_path: Path) -> None:
    root = imported_project(tmp_path / "book", 5)
    settings = load_settings(root)
    estimate = estimate_extraction(root, settings)
    assert estimate.cost_usd > 0 and estimate.survey and estimate.style and estimate.per_chapter_usd > 0
    assert estimate.cached_input_tokens > 0  # the Summarizer's stable prefix read from the prompt cache
    tiny = _run(root, _priced(root, settings), max_cost_usd=estimate.survey_usd / 2, offline=False)
    assert tiny.status == "stopped" and tiny.calls == [] and tiny.extracted_through == 0  # not even the cast pass
    _run(root, _priced(root, settings), last=1, offline=False)  # the passes and chapter 1
    per_chapter = estimate_extraction(root, settings).per_chapter_usd
    # room for one chapter and a half: chapter 2 runs, then chapter 3's estimate would pass the cap
    stopped = _run(root, _priced(root, settings), max_cost_usd=per_chapter * 1.5, offline=False)
    assert stopped.status == "stopped" and stopped.exit_code == 3, stopped.message
    assert stopped.extracted_through == 2 and stopped.chapters == [2]
    assert stopped.cost_usd + per_chapter > per_chapter * 1.5
    assert "novel-studio extract" in stopped.message and "第 3 章" in stopped.message
    assert ImportRecord.load(ProjectPaths(root).import_record).extracted_through == 2
    assert ExtractionProgress.load(extraction_progress_path(ProjectPaths(root))).status == "stopped"
    done = _run(root, _priced(root, settings), offline=False)
    assert done.status == "done" and done.extracted_through == 5
    assert _summaries_paid(root) == Counter({1: 1, 2: 1, 3: 1, 4: 1, 5: 1})


def test_a_failed_call_mid_way_then_a_rerun_resumes_without_paying_twice(tmp_path: Path) -> None:
    root = imported_project(tmp_path / "book", 4)
    settings = load_settings(root)
    before = chapter_bytes(root, 4)
    failed = _run(root, _priced(root, settings, fail_on={3}), offline=False)
    assert failed.status == "failed" and failed.exit_code == 1
    assert failed.extracted_through == 2 and "connection reset" in failed.message
    refused = [f.key for f in check_cold_start(ProjectPaths(root)) if f.severity == "refuse"]
    assert refused == ["extraction_unfinished"]
    done = _run(root, _priced(root, settings), offline=False)
    assert done.status == "done" and done.chapters == [3, 4]
    assert _summaries_paid(root) == Counter({1: 1, 2: 1, 3: 1, 4: 1})
    assert (SUMMARY_STAGE, 3, False) in _booked(root)  # the failed call is booked too, unpaid
    assert chapter_bytes(root, 4) == before


@pytest.mark.parametrize("point", ["_stage_summary", "_journal", "run_commit"])
def test_a_paid_summary_is_committed_without_a_new_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        point: str) -> None:
    """Stopped after chapter 2's reply was kept (before it was staged, before its commit journal, or with the
    journal written and no step done): the rerun commits it with no second call for that chapter."""
    root = imported_project(tmp_path / "book", 3)
    settings = load_settings(root)
    paths = ProjectPaths(root)
    _run(root, _priced(root, settings), last=1, offline=False)

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt  # stands for the kill at that point

    with monkeypatch.context() as patch:
        patch.setattr(f"pipeline.importing.extract.{point}", interrupted)
        with pytest.raises(KeyboardInterrupt):
            _run(root, _priced(root, settings), last=2, offline=False)
    assert (paths.staging / "import" / "chapter-002-reply.json").is_file()
    assert (paths.staging / "state" / "chapter-002-delta.json").is_file() == (point != "_stage_summary")
    assert (paths.staging / "commit-chapter-002.json").is_file() == (point == "run_commit")
    assert not chapter_extracted(paths, 2) and _summaries_paid(root)[2] == 1
    assert [f.key for f in check_cold_start(paths) if f.severity == "refuse"] == ["extraction_unfinished"]
    done = _run(root, _priced(root, settings), offline=False)
    assert done.status == "done" and done.extracted_through == 3
    assert _summaries_paid(root) == Counter({1: 1, 2: 1, 3: 1})
    assert [e.chapter for e in load_changelog(paths.changelog) if e.kind == "patch"] == [1, 2, 3]
    assert not paths.staging.exists() or not any(p.is_file() for p in paths.staging.rglob("*"))


# --------------------------------------------------------------------------------------------- refusals


def test_not_an_import_and_a_range_outside_it_are_refused(tmp_path: Path) -> None:
    root = imported_project(tmp_path / "book", 3)
    with pytest.raises(ExtractionRefused, match="第 9 章不在导入的章节中"):
        _run(root, last=9)
    ProjectPaths(root).import_record.unlink()
    with pytest.raises(ExtractionRefused, match="novel-studio import"):
        _run(root)


def test_chapters_written_here_after_the_import_block_a_later_extraction(tmp_path: Path) -> None:
    root = imported_project(tmp_path / "book", 3)
    paths = ProjectPaths(root)
    # another chapter committed here after the import (its changelog line), with no extraction before it
    line = ChangelogEntry(state_version=1, base_state_version=0, chapter=4, storyline_id="main-arc", kind="patch",
                          ops=[], recorded_at="2026-01-01T00:00:00+00:00")
    paths.changelog.write_text(json.dumps(line.to_data(), ensure_ascii=False) + "\n", encoding="utf-8")
    with pytest.raises(ExtractionRefused, match="无法再按章顺序提取"):
        _run(root)


def test_the_author_cancels_at_the_estimate_and_nothing_is_spent(tmp_path: Path) -> None:
    root = imported_project(tmp_path / "book", 3)
    asked: list[Question] = []

    async def cancel(question: Question) -> str:
        asked.append(question)
        return "cancel"

    settings = load_settings(root)
    result = asyncio.run(run_extraction(root, settings, build_provider(settings, root, offline=True), cancel,
                                        offline=True))
    assert result.status == "stopped" and result.exit_code == 3
    assert asked[0].kind is QuestionKind.IMPORT_EXTRACT and "第 1-3 章" in asked[0].title_zh
    assert any("离线" in fact for fact in asked[0].facts)
    assert not ProjectPaths(root).spend_ledger.exists()
    assert [f.key for f in check_cold_start(ProjectPaths(root))] == ["import_not_extracted"]  # a note only


# --------------------------------------------------------------------------------------------- the reply


def _survey(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "characters": [
            {"id": "lin-feng", "display_name": "林枫", "role": "protagonist", "aliases": ["小枫"],
             "contracts": [{"id": "C-LIN-FENG-001", "type": "capability", "rule": "打不过筑基修士"}]},
            {"id": "su-wan-qing", "display_name": "苏晚晴", "aliases": ["晚晴"],
             "contracts": [{"id": "C-SU-001", "rule": "从不说谎"}]},
        ],
        "storylines": [{"id": "zhu-xian", "name": "主线", "type": "main_arc"}],
    }
    data.update(changes)
    return data


def test_the_survey_reply_is_checked_before_anything_is_written() -> None:
    reply = ImportSurveyReply.model_validate(_survey())
    assert reply.storylines[0].id == "main-arc"  # the product's id for the main line
    with pytest.raises(ValueError, match="main_arc"):
        ImportSurveyReply.model_validate(_survey(storylines=[{"id": "a", "name": "甲", "type": "subplot"}]))
    shared = _survey()
    shared["characters"][1]["aliases"] = ["小枫"]
    with pytest.raises(ValueError, match="小枫"):
        ImportSurveyReply.model_validate(shared)
    with pytest.raises(ValueError, match="contracts"):
        ImportSurveyReply.model_validate(_survey(characters=[{"id": "x", "display_name": "甲", "contracts": []}]))


# --------------------------------------------------------------------------------------------- the command


def test_extract_command_asks_then_runs_offline_with_progress(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    root = imported_project(tmp_path / "book", 4)
    monkeypatch.setattr("studio.cli.extract_cmd.is_interactive", lambda: False)
    assert main(["extract", str(root), "--offline"]) == 3  # no terminal, no --yes: the question, nothing spent
    out = capsys.readouterr()
    assert "用模型完整提取第 1-4 章" in out.out and "extract --yes" in out.err
    assert not ProjectPaths(root).spend_ledger.exists()
    assert main(["extract", str(root), "--offline", "--yes", "--to", "2"]) == 0
    text = capsys.readouterr().out
    assert "离线模式" in text and "第 2 章：" in text and "从第 3 章接着提取" in text
    assert main(["extract", "--project", str(root), "--offline", "--yes", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "done" and data["extracted_through"] == 4 and data["chapters"] == [3, 4]
    assert data["offline"] is True and data["estimate"]["chapters"] == 2


def test_extract_command_refuses_a_project_that_was_not_imported(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    root = imported_project(tmp_path / "book", 2)
    ProjectPaths(root).import_record.unlink()
    assert main(["extract", str(root), "--offline", "--yes"]) == 1
    assert "novel-studio import" in capsys.readouterr().err
