"""Rebuild after a hand edit: state = replay, later patches re-applied, dropped ops, summary, memory,
ledger, impact marks, the changelog design, crash safety and the `rebuild` CLI."""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pipeline.agents.protocol import SummarizerOutput
from pipeline.rebuild import (
    RebuildError,
    effective_chain,
    finish_interrupted_rebuild,
    ledger_before,
    rebuild_chapter,
)
from studio.cli import continue_cmd
from studio.cli.main import main
from studio.init_project import init_project
from studio.lock import ProjectLock
from studio.models.changelog import ChangelogEntry
from studio.models.evaluation import Evaluation
from studio.models.foreshadowing import ForeshadowingLedger
from studio.models.patch import StatePatch
from studio.models.review_marks import clear_review_mark, load_review_marks, review_marks_path
from studio.models.state import CurrentState
from studio.paths import ProjectPaths
from studio.state_engine import load_changelog, load_state, replay
from tests.fake_agents import FakeAgents, call
from tests.test_orchestrator import assert_consistent, fake, run

EDIT_OPS: list[Any] = [
    {"op": "set", "path": "characters.shen-zhao.location", "value": "城西码头"},
    {"op": "set", "path": "world_state.ongoing_events", "value": "码头停电"},  # later `add`s no longer fit
    {"op": "foreshadow", "path": "fs-dock", "value": "planted", "detail": "码头的灯塔不亮"},
]


@dataclass
class EditAgents(FakeAgents):
    """FakeAgents whose Summarizer returns the ops chosen by the test (what the edited text says)."""

    ops: list[Any] = field(default_factory=lambda: list(EDIT_OPS))
    read: list[str] = field(default_factory=list)

    async def summarize(self, chapter: int, text: str, hints: str) -> SummarizerOutput:
        self.read.append(text)
        return SummarizerOutput(
            summary=f"第{chapter}章（改稿）：沈照去了城西码头。",
            patch=StatePatch(chapter=chapter, base_state_version=0, storyline_id=self.storyline, ops=self.ops),
            storyline_id=self.storyline,
            storyline_memory=f"改稿后截至第{chapter}章：沈照在码头。",
            cross_references=[],
            leak_risk="low",
            warnings=[],
            calls=[call("summarize")],
        )


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """The sample (chapters 1-2) plus chapters 3-5 written by the orchestrator, chapter 3 edited by hand."""
    root = init_project(tmp_path / "novel", sample=True)
    result = asyncio.run(run(root, fake(root), 3))
    assert result.committed == [3, 4, 5]
    chapter = ProjectPaths(root).chapter(3)
    chapter.write_text(chapter.read_text(encoding="utf-8") + "\n沈照没有回灯铺，转身去了城西码头。\n", encoding="utf-8")
    return root


def edit_agents(root: Path, **kwargs: Any) -> EditAgents:
    return EditAgents(ProjectPaths(root), **kwargs)


def rebuild(root: Path, n: int = 3, agents: FakeAgents | None = None, **kwargs: Any) -> Any:
    return asyncio.run(rebuild_chapter(root, n, agents or edit_agents(root), **kwargs))


# ---------------------------------------------------------------------------------------------- state


def test_state_equals_replay_and_later_patches_reapplied(root: Path) -> None:
    paths = ProjectPaths(root)
    before_entries = load_changelog(paths.changelog)
    old_state = load_state(paths)
    agents = edit_agents(root)

    result = rebuild(root, agents=agents)

    assert "城西码头" in agents.read[0]  # the Summarizer read the edited text
    state = load_state(paths)
    entries = load_changelog(paths.changelog)
    assert replay(entries).to_data() == state.to_data()
    assert_consistent(root)
    shen = state.characters["shen-zhao"]
    assert shen.location == "城西码头"
    assert shen.emotional_state == "第5章的警惕"  # chapters 4 and 5 re-applied on top
    assert state.world_state["ongoing_events"] == "码头停电"
    assert "fs-dock" in state.active_foreshadowing and "fs-ch3" in state.active_foreshadowing  # ch 4 advances it
    assert state.state_version == old_state.state_version + 3 and state.last_updated_chapter == 5

    # the later chapters' `add world_state.ongoing_events` no longer fit: dropped with a warning, no crash
    assert [(d.chapter, d.entry["op"], d.entry["path"]) for d in result.dropped] == [
        (4, "add", "world_state.ongoing_events"),
        (5, "add", "world_state.ongoing_events"),
    ]
    assert any("第 4 章" in w for w in result.warnings)

    # the changelog: the old lines untouched, one rebuild line per re-derived chapter
    assert entries[: len(before_entries)] == before_entries
    group = entries[len(before_entries) :]
    assert [(e.kind, e.chapter) for e in group] == [("rebuild", 3), ("rebuild", 4), ("rebuild", 5)]
    assert group[0].snapshot is not None and group[1].snapshot is None
    assert group[0].base_state_version == old_state.state_version
    assert [getattr(e, "rebuild_of", None) for e in group] == [3, 3, 3]
    assert len(group[1].warnings) == 1 and len(group[1].ops) == len(before_entries[-2].ops) - 1
    # every earlier version is still replayable
    assert replay(entries, upto_version=old_state.state_version).to_data() == old_state.to_data()
    assert replay(entries, upto_version=2).characters["shen-zhao"].location == "青石巷·沈记灯铺"
    # the effective history now reads the rebuild lines
    chain = effective_chain(entries)
    assert [(link.chapter, link.entry.kind) for link in chain] == [
        (1, "patch"), (2, "patch"), (3, "rebuild"), (4, "rebuild"), (5, "rebuild")
    ]
    assert not paths.lock_dir.exists()


def test_undo_after_a_rebuild_keeps_the_rebuilt_earlier_chapters(root: Path) -> None:
    from pipeline.undo import undo_last_chapter

    paths = ProjectPaths(root)
    rebuild(root)
    entries = load_changelog(paths.changelog)
    expected = replay(entries, upto_version=entries[-1].base_state_version)  # state before chapter 5's line
    undo_last_chapter(paths)
    state = load_state(paths)
    assert state.to_data() == expected.to_data()
    assert state.characters["shen-zhao"].location == "城西码头"  # chapter 3's hand edit survives
    assert [(e.kind, e.chapter) for e in load_changelog(paths.changelog)][-2:] == [("rebuild", 3), ("rebuild", 4)]
    assert replay(load_changelog(paths.changelog)).to_data() == state.to_data()


def test_replay_holds_after_more_merges_and_a_second_rebuild(root: Path) -> None:
    paths = ProjectPaths(root)
    rebuild(root)
    result = asyncio.run(run(root, fake(root)))  # chapter 6, merged on top of the rebuilt state
    assert result.committed == [6]
    assert_consistent(root)
    assert load_state(paths).characters["shen-zhao"].location == "城西码头"

    # a second rebuild, of chapter 4, starts from the state after the *rebuilt* chapter 3
    ops = [{"op": "set", "path": "characters.shen-zhao.location", "value": "城隍庙"}]
    second = rebuild(root, 4, edit_agents(root, ops=ops))
    assert_consistent(root)
    state = load_state(paths)
    assert state.characters["shen-zhao"].location == "城隍庙"
    assert state.world_state["ongoing_events"] == "码头停电"  # chapter 3's rebuilt effect is kept
    assert "fs-dock" in state.active_foreshadowing
    assert state.characters["shen-zhao"].emotional_state == "第6章的警惕"
    assert [(e.chapter, e.kind) for e in second.entries] == [(4, "rebuild"), (5, "rebuild"), (6, "rebuild")]
    # chapter 4's old ops (emotional state, fs-ch3 advanced ...) are gone from the facts' new side
    assert any(f.key == "characters.shen-zhao.location" and f.new == "城隍庙" for f in second.facts)
    chain = effective_chain(load_changelog(paths.changelog))
    assert [link.chapter for link in chain] == [1, 2, 3, 4, 5, 6]
    assert chain[2].entry.kind == "rebuild" and chain[2].entry.ops[0].value == "城西码头"


def test_crash_between_changelog_and_state_is_finished(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = ProjectPaths(root)
    old_state = load_state(paths).to_data()

    class Killed(BaseException):
        pass

    original = CurrentState.save

    def die(self: CurrentState, path: Path) -> None:
        raise Killed()

    monkeypatch.setattr(CurrentState, "save", die)
    with pytest.raises(Killed):
        rebuild(root)
    monkeypatch.setattr(CurrentState, "save", original)
    ProjectLock(paths).status()  # the lock was released on the way out
    assert not paths.lock_dir.exists()
    assert load_state(paths).to_data() == old_state  # the log is 3 versions ahead
    assert finish_interrupted_rebuild(paths) is True
    assert_consistent(root)
    assert finish_interrupted_rebuild(paths) is False
    rebuild(root)  # running it again is fine
    assert_consistent(root)


# ---------------------------------------------------------------------------------------------- derived files


def test_summary_memory_and_ledger_rebuilt(root: Path) -> None:
    paths = ProjectPaths(root)
    old_ledger = ForeshadowingLedger.load(paths.global_foreshadowing)
    old_memory = paths.storyline_memory("main-arc").read_text(encoding="utf-8")
    eval_before = paths.evaluation(3).read_bytes()

    result = rebuild(root)

    assert paths.summary(3).read_text(encoding="utf-8") == "第3章（改稿）：沈照去了城西码头。\n"
    assert result.old_summary is not None and "守灯" in result.old_summary
    # a later chapter of the same storyline exists: its memory stays, the new one becomes its "before"
    assert result.memory_written is False
    assert paths.storyline_memory("main-arc").read_text(encoding="utf-8") == old_memory
    assert (root / "logs" / "chapter-004" / "memory-before.md").read_text(encoding="utf-8") == (
        "改稿后截至第3章：沈照在码头。\n"
    )
    # the ledger: fs-dock planted in chapter 3, fs-ch3 no longer planted (chapter 4 advances an unknown id)
    ledger = ForeshadowingLedger.load(paths.global_foreshadowing)
    dock = ledger.get("fs-dock")
    assert dock is not None and dock.planted_chapter == 3 and dock.status == "planted"
    ch3 = ledger.get("fs-ch3")
    assert ch3 is not None and ch3.planted_chapter is None and ch3.status == "advanced"
    assert [h.chapter for h in ch3.history] == [4]
    for item_id in ("fs-ch4", "fs-ch5", "bell-in-fog", "grandfather-ledger", "thirteenth-lamp"):
        assert ledger.get(item_id) == old_ledger.get(item_id)
    assert any("fs-ch3" in w for w in result.warnings)
    # undo's "before" copy of chapter 4 follows the new history
    before4 = ForeshadowingLedger.load(root / "logs" / "chapter-004" / "foreshadowing-before.json")
    assert before4.get("fs-dock") is not None and before4.get("fs-ch3") is None
    # not re-judged unless asked
    assert paths.evaluation(3).read_bytes() == eval_before and result.evaluation is None


def test_rebuild_of_the_last_chapter_writes_the_memory_and_rejudges(root: Path) -> None:
    paths = ProjectPaths(root)
    agents = edit_agents(root, ops=[], scores={5: [3.7]})
    result = rebuild(root, 5, agents, rejudge=True)
    assert result.memory_written is True
    assert paths.storyline_memory("main-arc").read_text(encoding="utf-8") == "改稿后截至第5章：沈照在码头。\n"
    assert result.impacted == {}
    assert result.evaluation is not None and result.evaluation.computed_overall() == pytest.approx(3.7)
    assert Evaluation.load(paths.evaluation(5)).computed_overall() == pytest.approx(3.7)
    ledger = ForeshadowingLedger.load(paths.global_foreshadowing)
    assert ledger.get("fs-ch5") is None  # chapter 5 no longer plants it
    item = ledger.get("fs-ch4")
    assert item is not None and item.status == "planted" and [h.chapter for h in item.history] == [4]
    assert_consistent(root)


def test_ledger_before_strips_later_chapters() -> None:
    ledger = ForeshadowingLedger.model_validate(
        {
            "foreshadowing": [
                {"id": "a", "description": "计划中的线", "scope": "short", "status": "resolved", "planted_chapter": 1,
                 "target_resolve_range": [3, 5], "last_updated_chapter": 4,
                 "history": [{"chapter": 1, "action": "planted"}, {"chapter": 2, "action": "advanced"},
                             {"chapter": 4, "action": "resolved"}]},
                {"id": "b", "description": "第3章埋下", "status": "planted", "planted_chapter": 3, "scope": "long",
                 "history": [{"chapter": 3, "action": "planted", "detail": "第3章埋下"}]},
                {"id": "c", "description": "手写的线", "status": "planted"},
            ]
        }
    )
    stripped, removed = ledger_before(ledger, 3)
    a = stripped.get("a")
    assert a is not None and a.status == "advanced" and a.last_updated_chapter == 2 and a.scope == "short"
    assert stripped.get("b") is None and set(removed) == {"b"}
    assert stripped.get("c") == ledger.get("c")


# ---------------------------------------------------------------------------------------------- impact


def test_impacted_chapters_marked_with_reasons_and_marks_persist(root: Path) -> None:
    paths = ProjectPaths(root)
    result = rebuild(root)

    assert sorted(result.impacted) == [4, 5]
    reasons4 = "\n".join(result.impacted[4])
    assert "沈照·位置：（未写） → 城西码头" in reasons4 and "本章摘要提到“沈照”" in reasons4
    assert "伏笔 fs-ch3" in reasons4 and "推进了这条伏笔" in reasons4
    assert "不再适用" in reasons4  # the dropped op
    assert "沈照·情绪" in "\n".join(result.diff_lines())

    marks = load_review_marks(paths)  # a fresh read of the project file: survives a restart
    assert review_marks_path(paths).is_file()
    assert marks.chapters() == [4, 5]
    assert all(m.caused_by_chapter == 3 and m.reasons and m.created_at for m in marks.marks)

    rebuild(root)  # rebuilding the same chapter again replaces its marks
    assert [m.chapter for m in load_review_marks(paths).marks] == [4, 5]
    assert clear_review_mark(paths, 4) is True
    assert load_review_marks(paths).chapters() == [5]
    assert clear_review_mark(paths, 4) is False


# ---------------------------------------------------------------------------------------------- refusals


def test_uncommitted_chapter_is_a_clear_error(root: Path) -> None:
    with pytest.raises(RebuildError, match="第 7 章尚未提交"):
        rebuild(root, 7)
    with pytest.raises(RebuildError):
        rebuild(root, 0)
    assert not ProjectPaths(root).lock_dir.exists()


def test_locked_project_raises(root: Path) -> None:
    from studio.errors import LockHeldError

    holder = ProjectLock(ProjectPaths(root), heartbeat_interval=0)
    holder.acquire()
    try:
        with pytest.raises(LockHeldError):
            rebuild(root)
    finally:
        holder.release()


# ---------------------------------------------------------------------------------------------- CLI


def test_cli_offline_prints_changes_and_impact(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # --yes: chapter 3 was written by (fake) real-model agents; offline output replaces it only when told to
    assert main(["rebuild", "3", "--project", str(root), "--offline", "--yes"]) == 0
    out = capsys.readouterr().out
    assert "第 3 章已重建" in out and "新摘要：" in out
    assert "状态变化：" in out
    assert "需要复查的后续章节：" in out and "第 4 章：" in out
    memory = next(x for x in out.splitlines() if "的记忆" in x)
    assert "雾潮暗涌" in memory and "fog-tide" not in memory, memory  # the storyline's name (issue 12 item 4)
    assert_consistent(root)
    assert load_review_marks(ProjectPaths(root)).chapters()


def test_cli_rejudge_names_the_recommendation_in_the_ui_language(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """issue 12 item 4: it printed `重新评分：4.18（pass）`."""
    assert main(["rebuild", "3", "--project", str(root), "--offline", "--yes", "--rejudge"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("重新评分："))
    assert re.fullmatch(r"重新评分：\d\.\d\d（(通过|润色|修订|待作者审阅|重写)）", line), line
    assert main(["rebuild", "3", "--project", str(root), "--offline", "--yes", "--rejudge", "--lang", "en"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("Judged again: "))
    assert re.fullmatch(r"Judged again: \d\.\d\d \((pass|polish|revise|author review|rewrite)\)", line), line


def test_cli_with_fake_agents_json(root: Path, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    import json

    monkeypatch.setattr(continue_cmd, "AGENTS_FACTORY", lambda r, s, o: EditAgents(ProjectPaths(r)))
    assert main(["rebuild", "3", "--project", str(root), "--yes", "--json", "--lang", "en"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["chapter"] == 3 and sorted(data["impacted"]) == ["4", "5"]
    assert [d["chapter"] for d in data["dropped"]] == [4, 5]
    assert any(f["key"] == "characters.shen-zhao.location" for f in data["facts"])


def test_cli_uncommitted_exit_1_and_locked_exit_4(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rebuild", "9", "--project", str(root), "--offline"]) == 1
    assert "第 9 章尚未提交" in capsys.readouterr().err
    holder = ProjectLock(ProjectPaths(root), heartbeat_interval=0)
    holder.acquire()
    try:
        assert main(["rebuild", "3", "--project", str(root), "--offline"]) == 4
    finally:
        holder.release()
    entries: list[ChangelogEntry] = load_changelog(ProjectPaths(root).changelog)
    assert all(e.kind != "rebuild" for e in entries)


def test_rebuild_report_names_the_storyline(tmp_path: Path) -> None:
    """The rebuild's report names the storyline whose memory it updated by the storylines file's name; an id the
    file does not name (or an unreadable file) is shown as it is (issue 12 item 4)."""
    from studio.cli.rebuild_cmd import storyline_names
    from studio.models.storylines import Storylines

    root = tmp_path / "named"
    init_project(root, sample=True)
    names = storyline_names(ProjectPaths(root))
    assert names["main-arc"] == "守灯人之路"
    data = Storylines.load(ProjectPaths(root).storylines).to_data()
    data["storylines"][0]["name"] = "  "
    assert Storylines.parse_data(data, ProjectPaths(root).storylines).names()["main-arc"] == "main-arc"
    assert storyline_names(ProjectPaths(tmp_path / "nowhere")) == {}
