"""Storyline leaks (LS-005) with known answers: another storyline's exclusive character acting here is high and
pauses a run; bridges, convergence chapters, mentions and waivers are not; weak signals reach the judge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from studio.checks.judge_evidence import judge_evidence, judge_findings
from studio.checks.leaks import StorylineLeakCheck, exclusive_entities
from studio.checks.run import pausing_findings, project_context, run_checks
from studio.init_project import init_project
from studio.models.check_allow import AllowEntry, CheckAllowList
from studio.models.findings import ChecksReport, Finding
from studio.models.storylines import Storylines
from studio.paths import ProjectPaths
from studio.project import Project


def _meta(paths: ProjectPaths, n: int, **meta: object) -> None:
    folder = paths.root / "logs" / f"chapter-{n:03d}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"chapter-{n:03d}-summary.json").write_text(json.dumps(meta), encoding="utf-8")


def _chapter(paths: ProjectPaths, n: int, body: str) -> None:
    paths.chapter(n).write_text(f"# 第{n}章\n\n" + "\n\n".join(f"　　{p}" for p in body.split("\n")) + "\n",
                                encoding="utf-8")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = init_project(tmp_path / "novel", sample=True)
    paths = ProjectPaths(root)
    data = json.loads(paths.storylines.read_text(encoding="utf-8"))
    # a third line whose POV character 许青禾 is hers alone (no relationship bridges her anywhere)
    data["storylines"].append({"id": "north-watch", "name": "城北夜巡", "type": "character_arc",
                               "pov_characters": ["xu-qing-he"], "exclusive_entities": ["北门哨"]})
    paths.storylines.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return root


def _findings(root: Path, first: int, last: int) -> list[Finding]:
    ctx, _ = project_context(Project.open(root), first, last, lang="zh")
    return run_checks(ctx, checks=[StorylineLeakCheck()],
                      allow=CheckAllowList.load_or_default(ProjectPaths(root).check_allow)).findings


def test_exclusive_entities_leave_out_shared_ones_and_know_their_bridges(root: Path) -> None:
    found = exclusive_entities(Project.open(root).storylines)
    assert found["xu-qing-he"] == ("north-watch", set())
    assert found["gu-yuan-zhou"] == ("fog-tide", {"main-arc"})  # a bridge of main-arc and fog-tide
    assert found["灭灯人"] == ("fog-tide", set())
    assert "守灯司" not in found  # listed by two storylines: not exclusive


def test_another_lines_character_acting_is_high_and_pauses(root: Path) -> None:
    paths = ProjectPaths(root)
    _chapter(paths, 3, "沈照推开灯铺的门。\n许青禾站在门口，低声道：“跟我来。”\n顾远舟也来了。")
    _meta(paths, 3, storyline_id="main-arc")
    found = _findings(root, 3, 3)
    assert [(f.kind, f.text, f.severity, f.paragraph, f.count) for f in found] == [
        ("storyline_leak", "许青禾", "high", 2, 1)
    ]
    assert "城北夜巡" in found[0].message and "守灯人之路" in found[0].message
    assert pausing_findings(ChecksReport(findings=found)) == found


def test_mentions_are_weak_signals_and_convergence_chapters_are_clean(root: Path) -> None:
    paths = ProjectPaths(root)
    _chapter(paths, 3, "沈照听说许青禾去了北门哨。\n灭灯人的铃声远远传来。")
    _meta(paths, 3, storyline_id="main-arc")
    assert [(f.kind, f.text, f.severity) for f in _findings(root, 3, 3)] == [
        ("storyline_leak_hint", "许青禾", "low"),
        ("storyline_leak_hint", "北门哨", "low"),  # an `exclusive_entities` name
        ("storyline_leak_hint", "灭灯人", "low"),
    ]
    _chapter(paths, 9, "灭灯人的首领顾远舟转身走进雾里。")  # chapters 9-10: the planned convergence
    _meta(paths, 9, storyline_id="main-arc")
    assert _findings(root, 9, 9) == []


def test_the_summarizers_high_risk_is_a_medium_hint_and_reaches_the_judge(root: Path) -> None:
    paths = ProjectPaths(root)
    text = "# 第3章\n\n　　许青禾转身就走。\n"
    staged = paths.staging / "summaries"
    staged.mkdir(parents=True, exist_ok=True)
    (staged / "chapter-003-summary.json").write_text(
        json.dumps({"storyline_id": "main-arc", "leak_risk": "high", "cross_references": ["许青禾 出场"]}),
        encoding="utf-8",
    )
    found = judge_findings(Project.open(root), 3, text)
    assert sorted((f.kind, f.severity) for f in found) == [("storyline_leak", "high"), ("storyline_leak_hint", "medium")]
    evidence = judge_evidence(Project.open(root), 3, text)
    assert "城北夜巡" in evidence and "跨线泄漏风险高" in evidence


def test_a_deliberate_waiver_allows_the_entity(root: Path) -> None:
    paths = ProjectPaths(root)
    _chapter(paths, 3, "许青禾站在门口。")
    _meta(paths, 3, storyline_id="main-arc")
    assert [f.kind for f in _findings(root, 3, 3)] == ["storyline_leak"]
    CheckAllowList(entries=[AllowEntry(mode="deliberate", kind="storyline_leak", text="许青禾",
                                       reason="她本章作为信使出现")]).save(paths.check_allow)
    assert _findings(root, 3, 3) == []


def test_a_chapter_without_a_known_storyline_or_plan_is_skipped(tmp_path: Path) -> None:
    root = init_project(tmp_path / "novel", sample=True)
    paths = ProjectPaths(root)
    _chapter(paths, 12, "许青禾站在门口。")  # in no outline, no meta, no log
    assert _findings(root, 12, 12) == []
    assert Storylines().storylines == [] and exclusive_entities(Storylines()) == {}


def test_an_appearance_the_outline_plans_is_a_hint_not_a_pause(root: Path) -> None:
    # The author's own outline has 许青禾 in chapter 3 (main-arc): not a leak the gate pauses for, but a low hint
    # asking for a bridge between the storylines.
    paths = ProjectPaths(root)
    outline = paths.outline(1)
    text = outline.read_text(encoding="utf-8")
    outline.write_text(text.replace("- Arc: 顾远舟在旧债与旧友之间第一次动摇",
                                    "- Arc: 顾远舟在旧债与旧友之间第一次动摇；许青禾来借灯", 1), encoding="utf-8")
    _chapter(paths, 3, "沈照推开灯铺的门。\n许青禾站在门口，低声道：“跟我来。”")
    _meta(paths, 3, storyline_id="main-arc")
    found = _findings(root, 3, 3)
    assert [(f.kind, f.text, f.severity) for f in found] == [("storyline_leak_hint", "许青禾", "low")]
    assert "大纲" in found[0].message
    assert pausing_findings(ChecksReport(findings=found)) == []
