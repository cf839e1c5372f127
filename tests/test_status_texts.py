"""What `status` says of broken files (issue 11's last `status` items): in the author's language, unreadable
commit journals with the way out, and the spend ledger's unreadable lines by number (the total may be
incomplete: status, the studio's header and `--max-cost` all say so)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.agents.protocol import WriterOutput
from pipeline.orchestrator import Orchestrator
from studio.cli.main import main
from studio.fileio import append_line
from studio.init_project import init_project
from studio.models.settings import Settings
from studio.models.spend import SpendEntry
from studio.paths import ProjectPaths
from studio.project import Project
from studio.spend_ledger import append_spend, spend_totals
from studio.status import build_status, spend_figures
from tests.fake_agents import FakeAgents
from widgets.studio_header import HeaderInfo, render_header


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    return init_project(tmp_path / "novel", sample=True)


def _status(capsys: pytest.CaptureFixture[str], root: Path, *extra: str) -> str:
    assert main(["status", "--project", str(root), *extra]) == 0
    return capsys.readouterr().out


def test_broken_evaluation_and_log_are_told_in_chinese_by_default(sample: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    paths = ProjectPaths(sample)
    paths.evaluation(1).write_text("{oops", encoding="utf-8")
    paths.log(2).write_bytes(b"\xff\xfe not utf-8")
    zh = _status(capsys, sample)
    assert "chapter-001-eval.json:1:2：不是有效的 JSON" in zh
    assert "不是 UTF-8 文本" in zh and "chapter-002-log.json" in zh
    assert "invalid JSON" not in zh and "not UTF-8" not in zh
    en = _status(capsys, sample, "--lang", "en")
    assert "chapter-001-eval.json:1:2: invalid JSON" in en and "not UTF-8" in en
    report = build_status(Project.open(sample), lang="zh")
    assert any("不是有效的 JSON" in p for p in report.problems)  # --json carries the same text


def test_an_unreadable_file_says_so_in_chinese(sample: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def denied(self: Project, n: int) -> str:  # chmod would not stop a test run as root
        raise PermissionError(13, "Permission denied", str(self.paths.chapter(n)))

    monkeypatch.setattr(Project, "chapter_text", denied)
    report = build_status(Project.open(sample), lang="zh")
    assert any("chapter-001.md" in p and "无法读取" in p for p in report.problems), report.problems
    assert not any("cannot read" in p for p in report.problems)


@pytest.mark.parametrize(("folder", "name", "what"), [("tools", "tx1.json", "角色/世界工具改动"),
                                                      ("plan", "apply-vol-01.json", "分卷规划应用")])
def test_an_unreadable_journal_blocks_with_the_way_out(sample: Path, capsys: pytest.CaptureFixture[str], folder: str,
                                                       name: str, what: str) -> None:
    """`continue` refuses on such a journal; status used to say the next run would finish it."""
    journal = sample / "staging" / folder / name
    journal.parent.mkdir(parents=True, exist_ok=True)
    journal.write_text('{"id": 3', encoding="utf-8")
    out = _status(capsys, sample)
    blocked = out.split("无法继续写作（continue 会拒绝）：", 1)
    assert len(blocked) == 2, out
    assert f"{name}:1:9：不是有效的 JSON" in blocked[1] and what in blocked[1] and "手动处理" in blocked[1]
    assert "下次运行会自动修复" not in out  # the next run does not finish it: it refuses
    en = _status(capsys, sample, "--lang", "en")
    assert "continue would refuse:" in en and "cannot be read" in en and "By hand" in en
    assert journal.read_text(encoding="utf-8") == '{"id": 3'  # status reads only


def _bad_lines(path: Path) -> None:
    append_spend(path, SpendEntry(at="t", model="m", cost_usd=0.25))
    append_line(path, "this is not json")
    append_spend(path, SpendEntry(at="t", model="m", cost_usd=0.5))
    append_line(path, json.dumps({"at": "t", "cost_usd": -3}))  # refused by the entry's rules
    with open(path, "ab") as fh:
        fh.write(b'{"at": "t", "cost_usd": 0.')  # torn by a kill mid-append


def test_ledger_unreadable_lines_are_numbered(sample: Path) -> None:
    path = ProjectPaths(sample).spend_ledger
    before = path.read_bytes().count(b"\n")  # whole lines already there (the sample's ledger may be empty)
    _bad_lines(path)
    totals = spend_totals(path)
    first = before + 2
    assert totals.unreadable_lines == 3 and totals.unreadable_at == (first, first + 2, first + 3)
    assert spend_totals(path, start=0) == totals
    again = spend_totals(path)  # the incremental read: the same numbers
    assert again.unreadable_at == totals.unreadable_at


def test_status_names_the_unreadable_ledger_lines(sample: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = ProjectPaths(sample).spend_ledger
    _bad_lines(path)
    at = spend_totals(path).unreadable_at
    zh = _status(capsys, sample)
    assert "（可能不全，见下）" in zh
    assert f"花费账本 logs/spend.jsonl 有 3 行读不出（第 {'、'.join(map(str, at))} 行）" in zh
    assert "总花费可能不全" in zh
    en = _status(capsys, sample, "--lang", "en")
    assert "(may be incomplete, see below)" in en and f"unreadable lines (3: line {', '.join(map(str, at))})" in en
    data = json.loads(_status(capsys, sample, "--json"))
    assert data["ledger_unreadable_lines"] == 3 and data["ledger_unreadable_at"] == list(at)
    report = build_status(Project.open(sample))  # the ledger totals now come from the status cache
    assert report.ledger_unreadable_at == list(at)


def test_header_says_the_book_cost_may_be_incomplete(sample: Path) -> None:
    path = ProjectPaths(sample).spend_ledger
    figures = spend_figures(Project.open(sample))
    assert figures.ledger_unreadable_lines == 0
    whole = render_header(HeaderInfo(project_cost=figures.cost_usd), "zh", width=160).plain
    assert "≥$" not in whole
    _bad_lines(path)
    figures = spend_figures(Project.open(sample))
    assert figures.ledger_unreadable_lines == 3
    partial = HeaderInfo(project_cost=figures.cost_usd, project_cost_partial=True)
    assert "全书 0 tokens ≥$" in render_header(partial, "zh", width=160).plain
    assert "book 0 tokens ≥$" in render_header(partial, "en", width=160).plain


class GarblingAgents(FakeAgents):
    """Fake agents whose draft leaves an unreadable line in the ledger (another writer's garbage, a bad disk)."""

    async def write(self, chapter: int, **kwargs: object) -> WriterOutput:
        append_line(self.paths.spend_ledger, "garbage")
        return await super().write(chapter, **kwargs)  # type: ignore[arg-type]


async def _recommended(question: object) -> str:
    return question.recommended  # type: ignore[attr-defined]


async def test_max_cost_says_the_spend_may_be_incomplete(sample: Path) -> None:
    paths = ProjectPaths(sample)
    orchestrator = Orchestrator(sample, GarblingAgents(paths, cost=0.001), decider=_recommended,
                                emit=lambda e: None, settings=Settings())
    result = await orchestrator.run(2, max_cost_usd=100.0)
    partial = [m for m in result.messages if "--max-cost 只按读得出的行计算" in m]
    assert len(partial) == 1 and "logs/spend.jsonl 第" in partial[0]  # said once, with the line
