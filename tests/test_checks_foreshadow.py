"""Foreshadowing findings with known answers: overdue (threads planted while writing too, with the default
range), never advanced, long threads idle for a volume (never overdue); the ledger as of the last chapter."""

from __future__ import annotations

from pathlib import Path

import pytest

from studio.checks.foreshadow import ForeshadowingCheck
from studio.checks.run import project_context, run_checks
from studio.foreshadow_ledger import apply_foreshadow_ops
from studio.init_project import init_project
from studio.models.findings import Finding
from studio.models.foreshadowing import ForeshadowingLedger
from studio.models.patch import StateOp
from studio.paths import ProjectPaths
from studio.project import Project


def _op(path: str, value: str, **extra: object) -> StateOp:
    return StateOp.model_validate({"op": "foreshadow", "path": path, "value": value, "detail": path, **extra})


def test_a_planted_op_carries_scope_and_range_else_short_n_plus_3_to_10() -> None:
    ledger, _ = apply_foreshadow_ops(
        ForeshadowingLedger(),
        [
            _op("plain", "planted"),
            _op("given", "planted", scope="medium", target_resolve_range=[20, 40]),
            _op("epic", "planted", scope="long"),
            _op("mid", "planted", scope="medium"),
            _op("bad", "planted", scope="huge", target_resolve_range=[9, 2]),
        ],
        5,
        "main-arc",
    )
    got = {i.id: (i.scope, i.target_resolve_range) for i in ledger.foreshadowing}
    assert got == {
        "plain": ("short", (8, 15)),
        "given": ("medium", (20, 40)),
        "epic": ("long", None),
        "mid": ("medium", None),
        "bad": ("short", (8, 15)),
    }


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = init_project(tmp_path / "novel", sample=True)
    paths = ProjectPaths(root)
    for n in range(3, 41):
        paths.chapter(n).write_text(f"# 第{n}章\n\n　　夜里起了雾。\n", encoding="utf-8")
    ledger = ForeshadowingLedger.parse_data({"foreshadowing": [
        # written by the Summarizer before scopes existed: read as short, due 5..12
        {"id": "old-short", "planted_chapter": 2, "history": [{"chapter": 2, "action": "planted"}]},
        {"id": "due", "scope": "short", "planted_chapter": 3, "target_resolve_range": [6, 9],
         "history": [{"chapter": 3, "action": "planted"}, {"chapter": 11, "action": "resolved"}]},
        {"id": "mid", "scope": "medium", "planted_chapter": 3, "history": [{"chapter": 3, "action": "planted"}]},
        {"id": "mid-moving", "scope": "medium", "planted_chapter": 3,
         "history": [{"chapter": 3, "action": "planted"}, {"chapter": 8, "action": "advanced"}]},
        {"id": "epic", "scope": "long", "planted_chapter": 1, "target_resolve_range": [2, 3],
         "history": [{"chapter": 1, "action": "planted"}, {"chapter": 4, "action": "advanced"}]},
    ]})
    ledger.save(paths.global_foreshadowing)
    return root


def _found(root: Path, first: int, last: int) -> list[Finding]:
    ctx, _ = project_context(Project.open(root), first, last, lang="zh")
    return run_checks(ctx, checks=[ForeshadowingCheck()]).findings


def test_as_of_chapter_10(root: Path) -> None:
    found = _found(root, 1, 10)
    assert [(f.kind, f.text, f.chapter, f.severity) for f in found] == [
        ("foreshadowing_overdue", "due", 10, "medium"),  # due 6-9, resolved only in chapter 11
    ]
    assert "6-9" in found[0].message and "1 章" in found[0].message


def test_as_of_chapter_24_each_on_the_chapter_where_it_began(root: Path) -> None:
    assert sorted((f.kind, f.text, f.chapter, f.severity) for f in _found(root, 1, 24)) == [
        ("foreshadowing_long_idle", "epic", 24, "low"),  # idle since 4: two volumes of 10 chapters
        ("foreshadowing_never_advanced", "mid", 23, "low"),  # planted in 3, 20 chapters on
        ("foreshadowing_overdue", "old-short", 13, "medium"),  # the default range 5..12
    ]


def test_after_each_commit_a_thread_is_reported_once(root: Path) -> None:
    reported = [(n, f.text) for n in range(3, 30) for f in _found(root, n, n)]
    assert reported == [(10, "due"), (13, "old-short"), (14, "epic"), (23, "mid"), (24, "epic")]


def test_a_long_thread_idle_for_a_volume_is_a_note_never_overdue(root: Path) -> None:
    # the sample's volume 1 outline holds 10 chapters: a volume's length here
    found = {f.text: f for f in _found(root, 1, 14)}
    assert (found["epic"].kind, found["epic"].severity, found["epic"].chapter) == ("foreshadowing_long_idle", "info", 14)
    assert "epic" not in {f.text for f in _found(root, 1, 13)}  # its range [2, 3] never makes it overdue
