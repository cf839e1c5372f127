"""Structure tags and structural drift with known answers: the reply fields (optional, normalised), repeated hooks
and beats three chapters in a row, a stalled volume goal, storyline balance against the schedule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.replies import SummarizerReply
from studio.checks.run import project_context, run_checks
from studio.checks.structure import StructureCheck
from studio.init_project import init_project
from studio.models.findings import Finding
from studio.paths import ProjectPaths
from studio.project import Project

BASE = {"storyline_id": "main-arc", "summary": "摘要", "ops": [], "storyline_memory": "记忆", "leak_risk": "low"}


def test_old_replies_validate_and_tags_are_normalised() -> None:
    assert SummarizerReply.model_validate(BASE).structure() == {}
    reply = SummarizerReply.model_validate(
        BASE | {"hook_type": " Cliffhanger ", "emotional_beat": "紧张", "goal_progress": 3, "chapter_function": ""}
    )
    assert reply.structure() == {"hook_type": "cliffhanger", "emotional_beat": "紧张"}


def _meta(paths: ProjectPaths, n: int, **meta: object) -> None:
    folder = paths.root / "logs" / f"chapter-{n:03d}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"chapter-{n:03d}-summary.json").write_text(json.dumps(meta), encoding="utf-8")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = init_project(tmp_path / "novel", sample=True)
    paths = ProjectPaths(root)
    for n in range(3, 11):
        paths.chapter(n).write_text(f"# 第{n}章\n\n　　夜里起了雾。\n", encoding="utf-8")
    return root


def _found(root: Path, first: int, last: int, kind: str = "") -> list[Finding]:
    ctx, _ = project_context(Project.open(root), first, last, lang="zh")
    return [f for f in run_checks(ctx, checks=[StructureCheck()]).findings if f.kind.startswith(kind)]


def test_the_same_hook_or_beat_three_in_a_row_once_per_run(root: Path) -> None:
    paths = ProjectPaths(root)
    hooks = {1: "reveal", 2: "cliffhanger", 3: "cliffhanger", 4: "Cliffhanger", 5: "cliffhanger", 6: "none",
             7: "none", 8: "none"}
    beats = {1: "tension", 2: "warmth", 3: "tension", 4: "tension", 5: "relief", 6: "tension", 7: "tension",
             8: "tension"}
    for n in range(1, 9):
        _meta(paths, n, storyline_id="main-arc", hook_type=hooks[n], emotional_beat=beats[n], goal_progress="advanced")
    found = _found(root, 1, 8, "structure_repeat")
    assert [(f.kind, f.chapter, f.text) for f in found] == [
        ("structure_repeat", 4, "cliffhanger"),  # 2-4; chapter 5 continues the same run: no second finding
        ("structure_repeat", 8, "tension"),  # 6-8; "none" hooks are no pattern
    ]
    assert "悬崖式断章" in found[0].message and "第 2-4 章" in found[0].message
    # after a commit only the chapter itself is checked, with the earlier tags read back
    assert [(f.kind, f.chapter) for f in _found(root, 4, 4)] == [("structure_repeat", 4)]
    assert _found(root, 5, 5, "structure_repeat") == []


def test_a_stalled_goal_and_storyline_balance(root: Path) -> None:
    paths = ProjectPaths(root)
    # the schedule plans 7 main-arc and 3 fog-tide chapters in 10; all written are main-arc
    for n in range(1, 11):
        _meta(paths, n, storyline_id="main-arc", goal_progress="none" if n >= 3 else "advanced")
    found = _found(root, 10, 10)
    assert [(f.kind, f.chapter, f.text) for f in found] == [("structure_balance", 10, "fog-tide")]
    assert "雾潮暗涌" in found[0].message
    assert _found(root, 8, 8, "structure_balance") == []  # after a commit, balance waits for every 5th chapter
    assert [f.chapter for f in _found(root, 1, 8, "structure_balance")] == [8]  # a range: at its last chapter
    found = _found(root, 7, 7)
    assert ("structure_goal_stalled", 7) in [(f.kind, f.chapter) for f in found]  # chapters 3-7
    assert [f.kind for f in _found(root, 1, 10)].count("structure_goal_stalled") == 1


def test_chapters_without_tags_give_nothing(root: Path) -> None:
    assert _found(root, 1, 10) == []


def test_outline_chapter_index_without_the_model() -> None:
    from studio.outline import chapter_numbers

    text = "# 卷一\n\n## 第1章 开端\n- Storyline: a\n  ### 第十二章：风\n## 第x章\n"
    assert chapter_numbers(text) == [1, 12]
    assert chapter_numbers(text + "```\n## 第3章\n```\n## 第4章\n") == [1, 12, 4]  # fenced code is no heading
