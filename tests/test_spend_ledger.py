"""The one spend ledger (issue 11 item 11): every model call booked at the provider seam, read by status,
the run's totals and `--max-cost`; undo never takes money back. Real SDK against the fake Messages API."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from pipeline.agents.protocol import WriterOutput
from pipeline.agents.runner import ModelAgents
from pipeline.estimate import chapters_left_in_volume, estimate_chapter_cost
from pipeline.orchestrator import Orchestrator
from pipeline.providers.base import BadRequestError
from pipeline.providers.factory import build_provider
from pipeline.providers.ledger import LedgerProvider
from pipeline.structured import StructuredReplyError
from pipeline.undo import undo_last_chapter
from studio.cli.main import main
from studio.init_project import init_project
from studio.models.checkpoint import Checkpoint
from studio.models.settings import ProviderSettings, Settings
from studio.models.spend import SpendEntry
from studio.paths import ProjectPaths
from studio.project import Project
from studio.spend_ledger import append_spend, read_spend, spend_totals
from studio.status import build_status
from tests.fake_agents import FakeAgents
from tests.fakeapi import FakeMessagesAPI, Reply

USAGE = {"input_tokens": 1000, "output_tokens": 200, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return init_project(tmp_path / "novel", sample=True)


@pytest.fixture
async def api() -> AsyncIterator[FakeMessagesAPI]:
    with FakeMessagesAPI() as server:
        yield server


def real_settings(api: FakeMessagesAPI) -> Settings:
    return Settings(provider=ProviderSettings(base_url=api.base_url, max_retries=0, stage_retries=0))


async def test_failed_stage_and_repair_calls_are_booked(root: Path, api: FakeMessagesAPI) -> None:
    settings = real_settings(api)
    provider = build_provider(settings, root, env={"ANTHROPIC_API_KEY": "test-key"})
    assert isinstance(provider, LedgerProvider)
    agents = ModelAgents(Project.open(root), settings, provider)
    bad = Reply(text='{"not": "edits"}', usage=USAGE)
    api.script(bad, bad, bad)  # the reply and both repair rounds fail validation: the stage fails
    text = (root / "chapters" / "chapter-001.md").read_text(encoding="utf-8")
    with pytest.raises(StructuredReplyError):
        await agents.refine(1, text, polish=False)
    api.script(Reply.error(400, "invalid_request_error", "bad request"))
    with pytest.raises(BadRequestError):
        await agents.refine(1, text, polish=False)
    await provider.aclose()

    entries, unreadable = read_spend(ProjectPaths(root).spend_ledger)
    assert unreadable == 0
    assert [(e.stage, e.ok, e.chapter) for e in entries] == [
        ("refine", True, 1), ("repair", True, 1), ("repair", True, 1), ("refine", False, 1)
    ]
    assert entries[-1].error == "bad_request" and entries[0].agent == "style_refiner"
    assert entries[0].model == settings.models.style_refiner and entries[0].input_tokens == 1000
    totals = spend_totals(ProjectPaths(root).spend_ledger)
    assert totals.calls == 4 and totals.failed_calls == 1 and totals.tokens_out == 600
    assert totals.cost_usd == pytest.approx(3 * (1000 * 4.0 + 200 * 20.0) / 1e6)  # opus list price


def test_status_reads_the_ledger_and_undo_never_lowers_it(root: Path) -> None:
    paths = ProjectPaths(root)
    assert build_status(Project.open(root)).cost_usd == 0.0  # the sample claims no made-up spend
    append_spend(paths.spend_ledger, SpendEntry(at="2026-11-22T10:00:00+00:00", stage="draft", chapter=3,
                                                model="m", input_tokens=10, output_tokens=5, cost_usd=0.5))
    assert main(["continue", "--project", str(root), "--offline", "--yes"]) == 0
    assert Checkpoint.load(paths.checkpoint).last_completed_chapter == 3
    before = build_status(Project.open(root))
    assert before.cost_usd == pytest.approx(0.5) and before.input_tokens > 10  # offline calls booked at $0
    undo_last_chapter(paths)
    after = build_status(Project.open(root))
    assert Checkpoint.load(paths.checkpoint).last_completed_chapter == 2
    assert (after.cost_usd, after.input_tokens) == (before.cost_usd, before.input_tokens)


def test_a_project_from_before_the_ledger_keeps_the_cost_its_chapter_logs_record(root: Path) -> None:
    paths = ProjectPaths(root)
    log = paths.root / "logs" / "chapter-001-log.json"
    data = json.loads(log.read_text(encoding="utf-8"))
    data["stages"][0]["cost_usd"] = 0.25  # written by a version of the studio that had no spend ledger
    log.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    paths.spend_ledger.unlink()  # the sample ships an empty ledger; a project from before it has none
    assert build_status(Project.open(root)).cost_usd == pytest.approx(0.25)
    append_spend(paths.spend_ledger, SpendEntry(at="2026-11-22T10:00:00+00:00", stage="draft", chapter=3,
                                                model="m", input_tokens=10, output_tokens=5, cost_usd=0.5))
    assert build_status(Project.open(root)).cost_usd == pytest.approx(0.5)  # once there is a ledger, it rules


def test_a_torn_ledger_line_is_counted_not_fatal(root: Path) -> None:
    path = ProjectPaths(root).spend_ledger
    append_spend(path, SpendEntry(at="t", model="m", cost_usd=0.25))
    with open(path, "ab") as fh:
        fh.write(b'{"at": "t", "cost_usd": 0.')
    totals = spend_totals(path)
    assert totals.cost_usd == 0.25 and totals.unreadable_lines == 1


class BookingAgents(FakeAgents):
    """Fake agents whose draft also pays for a failed side call, as repair rounds do inside a stage."""

    async def write(self, chapter: int, **kwargs: object) -> WriterOutput:
        append_spend(self.paths.spend_ledger, SpendEntry(at="t", stage="repair", chapter=chapter, model="m",
                                                         cost_usd=2.0, ok=False, error="server"))
        return await super().write(chapter, **kwargs)  # type: ignore[arg-type]


async def test_max_cost_counts_every_booked_call(root: Path) -> None:
    paths = ProjectPaths(root)
    agents = BookingAgents(paths, cost=0.001)
    orchestrator = Orchestrator(root, agents, decider=_recommended, emit=lambda e: None, settings=Settings())
    result = await orchestrator.run(3, max_cost_usd=1.5)
    # chapter 3 fit the estimate; it booked $2 on the side, so the run stops before chapter 4
    assert result.committed == [3] and result.stopped_by_cost
    assert result.cost_usd >= 2.0


async def _recommended(question: object) -> str:
    return question.recommended  # type: ignore[attr-defined]


def test_estimate_counts_no_more_chapters_than_the_volume_has_left(root: Path) -> None:
    paths = ProjectPaths(root)
    left = chapters_left_in_volume(paths)
    assert left is not None and left > 0
    estimate = estimate_chapter_cost(paths, Settings())
    assert estimate.chapters_for(left + 40) == left
    assert estimate.for_chapters(left + 40) == pytest.approx(estimate.per_chapter_usd * left, abs=1e-4)
    assert estimate.for_chapters(1) == pytest.approx(estimate.per_chapter_usd, abs=1e-4)


def test_ledger_line_format_keeps_unknown_fields(tmp_path: Path) -> None:
    path = tmp_path / "spend.jsonl"
    path.write_text(json.dumps({"at": "t", "model": "m", "cost_usd": 0.1, "vendor_extra": {"x": 1}}) + "\n")
    [entry], bad = read_spend(path)
    assert bad == 0 and entry.to_data()["vendor_extra"] == {"x": 1}


def test_incremental_reads_follow_appends_torn_tails_and_rewrites(tmp_path: Path) -> None:
    path = tmp_path / "logs" / "spend.jsonl"
    assert spend_totals(path).calls == 0
    append_spend(path, SpendEntry(at="t", model="m", cost_usd=0.25, input_tokens=10))
    assert spend_totals(path).cost_usd == 0.25
    line = SpendEntry(at="t", model="m", cost_usd=0.5, output_tokens=3).to_data()
    text = json.dumps(line)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(text[:10])  # torn mid-append
    torn = spend_totals(path)
    assert (torn.cost_usd, torn.unreadable_lines) == (0.25, 1)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(text[10:] + "\n")  # the append completes
    done = spend_totals(path)
    assert (done.cost_usd, done.calls, done.unreadable_lines, done.tokens_out) == (0.75, 2, 0, 3)
    path.write_text(json.dumps({"at": "t", "cost_usd": 0.1}) + "\n", encoding="utf-8")  # rewritten smaller
    assert spend_totals(path).cost_usd == 0.1
    assert spend_totals(path, start=1).calls == 0
