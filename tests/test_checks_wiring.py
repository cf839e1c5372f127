"""The checks wired into the run: after each commit (report, event, CLI line, never failing the commit), the
per-chapter name statistics cache, and the findings given to the judge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.context import judge_context
from pipeline.decisions import take_recommended
from pipeline.events import ChapterCommitted, ChecksRan, Event, Notice
from pipeline.orchestrator import ChapterReport, Orchestrator
from studio.checks import run as checks_run
from studio.checks import stats_cache, variants
from studio.checks.matcher import Matcher
from studio.checks.names import NameRegistry
from studio.checks.registry import ChapterText, CheckContext
from studio.checks.variants import NameVariantCheck
from studio.cli.continue_cmd import chapter_line
from studio.init_project import init_project
from studio.models.character import CharacterFile
from studio.models.findings import ChecksReport, Finding
from studio.models.settings import Settings
from studio.paths import ProjectPaths
from studio.project import Project
from tests.fake_agents import FakeAgents


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return init_project(tmp_path / "novel", sample=True)


async def _run(root: Path, chapters: int = 1) -> tuple[list[Event], object]:
    events: list[Event] = []
    orch = Orchestrator(
        root, FakeAgents(ProjectPaths(root)), decider=take_recommended, emit=events.append, settings=Settings()
    )
    return events, await orch.run(chapters)


# ---------------------------------------------------------------------------------------------- after commit


async def test_each_commit_is_checked_and_the_count_reported(root: Path) -> None:
    events, result = await _run(root)
    saved = ChecksReport.load(ProjectPaths(root).checks_log(3))
    ran = [e for e in events if isinstance(e, ChecksRan)]
    assert ran == [ChecksRan(3, len(saved.findings), sum(f.severity == "high" for f in saved.findings))]
    kinds = [type(e) for e in events if isinstance(e, ChapterCommitted | ChecksRan)]
    assert kinds == [ChapterCommitted, ChecksRan]  # the commit first, then what the checks found
    # the fake chapter is far under the 2,500 字 target: a known finding
    assert "chapter_length" in {f.kind for f in saved.findings}
    report = result.reports[0]  # type: ignore[attr-defined]
    assert report.findings == len(saved.findings) > 0


@pytest.mark.parametrize("where", ["inside", "outside"])
async def test_a_crashing_check_never_fails_the_commit(
    root: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    def boom(*args: object, **kwargs: object) -> object:
        raise RuntimeError("checks exploded")

    if where == "inside":  # inside check_after_commit: it swallows the error and returns None
        monkeypatch.setattr(checks_run, "project_context", boom)
    else:  # check_after_commit itself raising: the orchestrator's own guard
        monkeypatch.setattr(checks_run, "check_after_commit", boom)
    events, result = await _run(root, 2)
    assert result.committed == [3, 4] and result.exit_code == 0  # type: ignore[attr-defined]
    assert ProjectPaths(root).chapter(4).is_file()
    assert not [e for e in events if isinstance(e, ChecksRan)]
    notices = [e for e in events if isinstance(e, Notice) and "检查未能运行" in e.message]
    assert [e.chapter for e in notices] == [3, 4]
    assert all(r.findings is None for r in result.reports)  # type: ignore[attr-defined]


async def test_high_continuity_findings_pause_a_multi_chapter_run(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(checks_run, "PAUSE_KINDS", frozenset({"chapter_length"}))
    real = checks_run.run_checks

    def severe(*args: object, **kwargs: object) -> ChecksReport:
        report = real(*args, **kwargs)  # type: ignore[arg-type]
        for f in report.findings:
            if f.kind == "chapter_length":
                f.severity = "high"
        return report

    monkeypatch.setattr(checks_run, "run_checks", severe)
    _, result = await _run(root, 3)
    assert result.committed == [3]  # type: ignore[attr-defined]
    assert result.paused and result.pause_kind == "checks"  # type: ignore[attr-defined]


def test_lower_severity_or_other_kinds_never_pause() -> None:
    report = ChecksReport(
        findings=[
            Finding(kind="name_variant", chapter=1, severity="high"),
            Finding(kind="chapter_length", chapter=1, severity="medium"),
        ]
    )
    assert checks_run.pausing_findings(report) == []


def test_every_tenth_chapter_runs_the_expensive_checks_over_the_last_ten(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(3, 11):
        ProjectPaths(root).chapter(n).write_text(f"# 第{n}章\n\n　　沈照说,好。\n", encoding="utf-8")
    seen: list[tuple[list[int], bool]] = []
    real = checks_run.run_checks

    def spy(ctx: CheckContext, **kwargs: object) -> ChecksReport:
        checks = kwargs.get("checks") or []
        seen.append(([c.number for c in ctx.chapters], any(checks_run.is_expensive(c) for c in checks)))  # type: ignore[attr-defined]
        return real(ctx, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(checks_run, "run_checks", spy)
    project = Project.open(root)
    nine = checks_run.check_after_commit(project, 9)
    ten = checks_run.check_after_commit(project, 10)
    assert seen == [([9], False), (list(range(1, 11)), True)]
    assert nine is not None and ten is not None
    assert {f.chapter for f in ten.findings} == {10}  # the returned report is the chapter's own
    # the last ten chapters' reports were rewritten: chapter 5's comma is in its report now
    assert [f.text for f in ChecksReport.load(project.paths.checks_log(5)).findings if f.kind == "punctuation"] == [","]


def test_cli_line_says_how_many_findings() -> None:
    report = ChapterReport(3, 2890, [4.2], ["pass"], findings=3)
    assert chapter_line(report, "zh").endswith("检查 3 条")
    assert chapter_line(report, "en").endswith("checks: 3")
    assert "检查" not in chapter_line(ChapterReport(3, 2890, [4.2], ["pass"], findings=0), "zh")


# ---------------------------------------------------------------------------------------------- name statistics cache

FILLER = "林枫走进院子，林枫看了看天。林枫笑道：“好。”林枫点了点头。林枫转身离开。\n"


def _ctx(tmp: Path, texts: list[str], checked: int) -> CheckContext:
    registry = NameRegistry.from_sources({"lin-feng": CharacterFile(display_name="林枫")})
    chapters = []
    for i, text in enumerate(texts, 1):
        path = tmp / f"chapter-{i:03d}.md"
        path.write_text(text, encoding="utf-8")
        chapters.append(ChapterText.on_disk(i, path))
    checked_ones = [ChapterText(c.number, c.text) for c in chapters if c.number == checked]
    return CheckContext(checked_ones, registry, Matcher([]), reference=[c for c in chapters if c.number != checked])


def test_name_counts_come_from_the_cache_without_reading_unchanged_chapters(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = [FILLER * 3] * 5 + ["第二天，林峰站在门口。\n"]
    cache = tmp_path / "cache"
    ctx = _ctx(tmp_path, texts, 6)
    first = [(f.chapter, f.text, f.suggestion) for f in NameVariantCheck(cache).run(ctx)]
    assert first == [(6, "林峰", "林枫")]  # the name's 75 uses are in the other chapters only
    stats_cache._SHARED.clear()  # a new process: the disk cache only
    computed: list[str] = []
    real = variants.chapter_name_stats

    def counting(index: variants.VariantIndex, text: str) -> variants.ChapterNameStats:
        computed.append(text)
        return real(index, text)

    monkeypatch.setattr(variants, "chapter_name_stats", counting)
    reads: list[int] = []
    real_text = ChapterText.text

    def spy_text(self: ChapterText) -> str:
        if self.path is not None:
            reads.append(self.number)
        return real_text.fget(self)  # type: ignore[attr-defined]

    monkeypatch.setattr(ChapterText, "text", property(spy_text))
    again = [(f.chapter, f.text) for f in NameVariantCheck(cache).run(_ctx_keep(tmp_path, ctx))]
    assert again == [(6, "林峰")]
    assert computed == [] and reads == []  # every chapter from the disk cache; unchanged files never read
    changed = ctx.reference[1].path
    assert changed is not None
    changed.write_text(FILLER * 2, encoding="utf-8")
    assert [f.text for f in NameVariantCheck(cache).run(_ctx_keep(tmp_path, ctx))] == ["林峰"]
    assert computed == [FILLER * 2] and set(reads) == {2}  # only the changed chapter is read and matched


def _ctx_keep(tmp: Path, ctx: CheckContext) -> CheckContext:
    """The same context with the reference chapters re-stated from their files as they are now."""
    reference = [ChapterText.on_disk(c.number, c.path) for c in ctx.reference if c.path is not None]
    return CheckContext(list(ctx.chapters), ctx.registry, ctx.blacklist, reference=reference)


def test_a_changed_chapter_is_counted_again_and_a_broken_cache_entry_recomputed(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    texts = [FILLER * 3] * 5 + ["第二天，林峰站在门口。\n"]
    ctx = _ctx(tmp_path, texts, 6)
    assert [f.text for f in NameVariantCheck(cache).run(ctx)] == ["林峰"]
    for entry in cache.glob("*.json"):  # the book's statistics and the names' variants
        entry.write_text("{broken", encoding="utf-8")
    stats_cache._SHARED.clear()
    # the other chapters now say 林峰 as often as 林枫: two real spellings, not a typo any more
    changed = [FILLER.replace("林枫", "林峰") * 3] * 5 + ["第二天，林峰站在门口。\n"]
    assert list(NameVariantCheck(cache).run(_ctx(tmp_path, changed, 6))) == []
    stats_cache._SHARED.clear()
    assert [f.text for f in NameVariantCheck(cache).run(_ctx(tmp_path, texts, 6))] == ["林峰"]


# ---------------------------------------------------------------------------------------------- judge evidence


def test_the_judge_sees_the_chapters_findings_in_the_chapter_tier_only(root: Path) -> None:
    project = Project.open(root)
    text = "# 第3章\n\n　　沈昭把灯举高了一点,眼中闪过一丝笑意。\n"
    bundle = judge_context(project, Settings(), 3, text)
    evidence = bundle.variables["check_findings"]
    assert "「沈昭」疑似「沈照」的笔误" in evidence  # 沈照 is used 53 times in chapters 1-2
    assert "眼中闪过一丝" in evidence and "，" in evidence  # blacklist and the half-width comma
    assert all(line.startswith("- 第 1 段：") for line in evidence.splitlines())
    chapter_tier = bundle.section("chapter")
    assert "「沈昭」疑似「沈照」的笔误" in chapter_tier
    assert "沈昭" not in bundle.section("stable") and "沈昭" not in bundle.section("volume")


def test_a_clean_chapter_gives_the_judge_no_findings(root: Path) -> None:
    bundle = judge_context(Project.open(root), Settings(), 3, "# 第3章\n\n　　沈照把灯举高了一点。\n")
    assert bundle.variables["check_findings"] == ""


# ---------------------------------------------------------------------------------------------- files known to the project


def test_the_checks_files_are_watched_and_validated_with_line_and_column(root: Path) -> None:
    from studio.models.check_allow import CheckAllowList
    from studio.models.names import NamesFile
    from studio.project import validate_project
    from studio.watch import ChangeKind, classify, inspect_paths

    names, allow = root / "world" / "names.json", root / "checks-allow.json"
    assert classify(names, root) == ChangeKind.NAMES
    assert classify(allow, root) == ChangeKind.CHECK_ALLOW
    assert classify(root / "world" / "other.json", root) is None
    broken = '{\n  "entities": [\n    {"name": "青云宗"},\n  ]\n}\n'
    names.write_text(broken, encoding="utf-8")
    waiver = {"kind": "name_variant", "text": "林峰", "mode": "deliberate", "reason": "两兄弟"}
    allow.write_text(json.dumps({"entries": [waiver]}, ensure_ascii=False), encoding="utf-8")
    changes = {c.path.name: c for c in inspect_paths(root, [names, allow])}
    problem = changes["names.json"].problems[0]
    assert (problem.line, problem.column) == (4, 3) and changes["names.json"].value is None
    assert changes["checks-allow.json"].ok and isinstance(changes["checks-allow.json"].value, CheckAllowList)
    found = [p for p in validate_project(root) if Path(p.path).name == "names.json"]
    assert [(p.line, p.column) for p in found] == [(4, 3)]
    assert names.read_text(encoding="utf-8") == broken  # reported, never rewritten
    names.write_text('{"entities": [{"name": "青云宗", "kind": "faction"}]}', encoding="utf-8")
    assert not [p for p in validate_project(root) if Path(p.path).name == "names.json"]
    assert isinstance(inspect_paths(root, [names])[0].value, NamesFile)


# ---------------------------------------------------------------------------------------------- recent repeats


def _recent(texts: dict[int, str], checked: list[int]) -> list[Finding]:
    from studio.checks.recent import RecentRepeatCheck

    registry = NameRegistry.from_sources({"lin-feng": CharacterFile(display_name="林枫")})
    chapters = [ChapterText(n, t) for n, t in sorted(texts.items()) if n in checked]
    reference = [ChapterText(n, t) for n, t in sorted(texts.items()) if n not in checked]
    return list(RecentRepeatCheck().run(CheckContext(chapters, registry, Matcher([]), reference=reference)))


FILLERS = ["春水初生，", "夏木成荫，", "秋叶飘零，", "冬雪覆城，", "山高月小，", "月落乌啼，"]


def test_a_phrase_used_in_most_recent_chapters_is_reported_once_as_one_stretch() -> None:
    texts = {n: f"# 第{n}章\n\n　　{FILLERS[n - 1]}他深吸一口气，推门而出。林枫走了过来。\n" for n in range(1, 7)}
    texts[3] = "# 第3章\n\n　　秋叶飘零，他停下了脚步。林枫走了过来。\n"  # 4 of the 5 before chapter 6 say it
    found = _recent(texts, [6])
    assert [(f.chapter, f.text, f.count, f.paragraph) for f in found] == [(6, "他深吸一口气", 4, 1)]
    assert "前 5 章中的 4 章" in found[0].message
    # no phrase spans a name (枫走了过来 is in every chapter); too few earlier chapters: nothing
    assert not any("林枫" in f.text for f in found)
    assert _recent({n: texts[n] for n in (4, 5, 6)}, [6]) == []


def test_a_phrase_in_only_two_recent_chapters_is_quiet() -> None:
    texts = {n: f"# 第{n}章\n\n　　{FILLERS[n - 1]}风吹过来。\n" for n in range(1, 7)}
    texts[4] += "　　他深吸一口气。\n"
    texts[5] += "　　他深吸一口气。\n"
    texts[6] += "　　他深吸一口气。\n"
    assert _recent(texts, [6]) == []
