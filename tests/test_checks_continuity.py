"""Continuity checks with known answers: a dead or absent character who acts, an item used by its former holder,
an ordered attribute that goes down or skips a rank without an event; memories and quotes are not findings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from studio.checks.continuity import ContinuityCheck, acting_hits
from studio.checks.run import PAUSE_KINDS, pausing_findings, project_context, run_checks
from studio.checks.story import StoryFacts, changes_by_chapter
from studio.init_project import init_project
from studio.models.findings import ChecksReport
from studio.paths import ProjectPaths
from studio.project import Project

LADDER = ["炼气", "筑基", "金丹", "元婴"]


def _append(paths: ProjectPaths, chapter: int, ops: list[dict[str, Any]]) -> None:
    with open(paths.changelog, "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"state_version": chapter, "base_state_version": chapter - 1, "chapter": chapter,
                             "storyline_id": "main-arc", "kind": "patch", "ops": ops}, ensure_ascii=False) + "\n")


def _chapter(paths: ProjectPaths, n: int, body: str) -> None:
    paths.chapter(n).write_text(f"# 第{n}章\n\n" + "\n\n".join(f"　　{p}" for p in body.split("\n")) + "\n",
                                encoding="utf-8")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = init_project(tmp_path / "novel", sample=True)
    paths = ProjectPaths(root)
    _append(paths, 3, [
        {"op": "set", "path": "characters.xu-qing-he.status", "value": "dead", "detail": "许青禾死于雾中"},
        {"op": "set", "path": "world_state.ordered_attributes", "value": {"realm": LADDER}},
        {"op": "set", "path": "characters.shen-zhao.realm", "value": "炼气"},
        {"op": "set", "path": "items.lamp-seven.display_name", "value": "长明灯"},
        {"op": "set", "path": "items.lamp-seven.holder", "value": "shen-zhao"},
    ])
    _chapter(paths, 3, "许青禾低声道：“快走。”说完便倒在雾里。")
    return root


def _run(root: Path, first: int, last: int) -> list[Any]:
    project = Project.open(root)
    ctx, _ = project_context(project, first, last, lang="zh")
    return run_checks(ctx, checks=[ContinuityCheck()]).findings


def test_a_dead_character_who_speaks_later_is_a_high_finding_that_pauses(root: Path) -> None:
    paths = ProjectPaths(root)
    _append(paths, 4, [])
    _chapter(paths, 4, "沈照推开门。\n许青禾冷冷道：“你来晚了。”\n许青禾转身走进雾里。")
    found = _run(root, 3, 4)
    assert [(f.kind, f.chapter, f.text, f.count, f.severity, f.paragraph, f.offset) for f in found] == [
        ("continuity_status", 4, "许青禾", 2, "high", 2, 0)
    ]
    assert "死亡" in found[0].message
    assert "continuity_status" in PAUSE_KINDS
    assert pausing_findings(ChecksReport(findings=found)) == found


def test_dying_in_this_chapter_is_fine_and_memories_and_quotes_are_not_acts(root: Path) -> None:
    paths = ProjectPaths(root)
    _append(paths, 4, [])
    _chapter(
        paths,
        4,
        "沈照想起许青禾说过的话，心里一酸。\n当年许青禾笑着把灯递给他。\n"
        "顾远舟道：“许青禾说过，雾散之前别回头。”\n许青禾的灯还亮着。",
    )
    assert _run(root, 3, 4) == []  # chapter 3: she dies there; chapter 4: memories, a quote, a mention


def test_absent_and_retired_are_medium_and_a_return_in_the_chapter_is_not_checked(root: Path) -> None:
    paths = ProjectPaths(root)
    _append(paths, 4, [{"op": "set", "path": "characters.gu-yuan-zhou.status", "value": "absent"}])
    _chapter(paths, 4, "顾远舟收拾行李，连夜出了城。")
    _append(paths, 5, [])
    _chapter(paths, 5, "顾远舟推开书店的门，抖了抖伞上的水。")
    _append(paths, 6, [{"op": "set", "path": "characters.gu-yuan-zhou.status", "value": "active"}])
    _chapter(paths, 6, "顾远舟推开书店的门，说：“我回来了。”")
    found = _run(root, 4, 6)
    assert [(f.kind, f.chapter, f.severity) for f in found] == [("continuity_status", 5, "medium")]


def test_an_item_used_by_its_former_holder(root: Path) -> None:
    paths = ProjectPaths(root)
    _append(paths, 4, [{"op": "set", "path": "items.lamp-seven.holder", "value": "gu-yuan-zhou"}])
    _chapter(paths, 4, "沈照把长明灯交给了顾远舟。")
    _append(paths, 5, [])
    _chapter(paths, 5, "夜深了。\n沈照举起长明灯，照亮了巷口。\n沈照看着顾远舟手里的长明灯。")
    found = _run(root, 4, 5)
    assert [(f.kind, f.chapter, f.text, f.paragraph, f.offset, f.severity) for f in found] == [
        ("continuity_item", 5, "长明灯", 2, 4, "medium")
    ]
    assert "顾远舟" in found[0].message


def test_ordered_attribute_down_or_skipping_needs_an_event(root: Path) -> None:
    paths = ProjectPaths(root)
    _append(paths, 4, [{"op": "set", "path": "characters.shen-zhao.realm", "value": "金丹"}])
    _chapter(paths, 4, "沈照一夜之间到了金丹。")
    _append(paths, 5, [{"op": "set", "path": "characters.shen-zhao.realm", "value": "筑基"}])
    _chapter(paths, 5, "沈照还是筑基修为。")
    _append(paths, 6, [{"op": "set", "path": "characters.shen-zhao.realm", "value": "元婴", "detail": "吞下灯芯，连破两境"}])
    _chapter(paths, 6, "沈照吞下灯芯。")
    found = _run(root, 4, 6)
    assert [(f.kind, f.chapter, f.text, f.severity, f.paragraph) for f in found] == [
        ("continuity_attribute", 4, "金丹", "low", 1),
        ("continuity_attribute", 5, "筑基", "medium", 1),
    ]


def test_after_a_commit_the_state_before_copy_is_read_not_the_changelog(root: Path) -> None:
    paths = ProjectPaths(root)
    _append(paths, 4, [])
    _chapter(paths, 4, "许青禾冷冷道：“你来晚了。”")
    before = paths.root / "logs" / "chapter-004"
    before.mkdir(parents=True)
    # the copy says she is alive: proof that the fast path read it (the changelog says dead)
    (before / "state-before.json").write_text(json.dumps({"characters": {"xu-qing-he": {"status": "active"}}}))
    facts = StoryFacts(paths)
    assert facts.changes([4])[4].before.status == {"xu-qing-he": "active"}
    assert _run(root, 4, 4) == []
    (before / "state-before.json").unlink()
    assert [f.kind for f in _run(root, 4, 4)] == ["continuity_status"]


def test_the_fold_keeps_former_holders_and_the_last_entry_of_a_rebuilt_chapter() -> None:
    entries = [
        {"kind": "init", "chapter": 0, "snapshot": {"items": {"sword": {"holder": "a"}}}},
        {"kind": "patch", "chapter": 1, "ops": [{"op": "set", "path": "items.sword.holder", "value": "b"}]},
        {"kind": "patch", "chapter": 2, "ops": [{"op": "set", "path": "items.sword.holder", "value": "c"}]},
        {"kind": "rebuild", "chapter": 2, "ops": []},
    ]
    changes = changes_by_chapter(entries)
    assert changes[2].before.holder == {"sword": "b"} and changes[2].before.former == {"sword": ("a",)}
    assert changes[2].ops == []  # the rebuild's


@pytest.mark.parametrize(
    ("text", "acts"),
    [
        ("许青禾道：“走。”", True),
        ("“走。”许青禾说。", True),
        ("忽然许青禾转身。", True),
        ("许青禾的师父说：“走。”", False),
        ("他记得许青禾笑着的样子。", False),
        ("许青禾生前说过这句话。", False),
        ("“许青禾说要走。”", False),
        ("墙上挂着许青禾的画像。", False),
    ],
)
def test_attributions_not_mentions(text: str, acts: bool) -> None:
    from studio.checks.metrics import dialogue_spans
    from studio.checks.paragraphs import Paragraphs

    spans = dialogue_spans(Paragraphs(text))
    assert bool(list(acting_hits(text, ["许青禾"], spans))) is acts


def test_a_ladder_declared_after_the_rank_in_the_same_chapter_still_counts() -> None:
    entries = [
        {"kind": "patch", "chapter": 1, "ops": [
            {"op": "set", "path": "characters.a.realm", "value": "筑基"},
            {"op": "set", "path": "world_state.ordered_attributes.realm", "value": LADDER},
        ]},
        {"kind": "patch", "chapter": 2, "ops": []},
    ]
    assert changes_by_chapter(entries)[2].before.attributes == {("a", "realm"): "筑基"}
