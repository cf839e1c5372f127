"""The one plan session (`pipeline.planning.session.run_plan_session`), driven by scripted deciders: the
plan-approval question and its answers (re-plan, count, edit, cancel, approve), contracts in batches with the
chained state, repair per batch, re-planning the rest of the current volume (written chapters untouched, diff
shown), entries from summaries for a volume without an outline, hand-edited files shown and asked about."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from pipeline.decisions import Question, QuestionKind
from pipeline.events import Event, Notice
from pipeline.planning.offline_replies import plot_reply
from pipeline.planning.plan_volume import plan_request
from pipeline.planning.prompt_context import PlanTarget
from pipeline.planning.session import PlanSessionResult, run_plan_session
from pipeline.providers.base import BadRequestError, ModelRequest, ModelResult, TextCallback, Usage
from pipeline.providers.offline import OfflineProvider
from studio.config import load_settings
from studio.errors import PausedForAuthor
from studio.fileio import atomic_write_text, read_text
from studio.init_project import init_project
from studio.models.character import CharacterFile
from studio.models.checkpoint import Checkpoint, OrchestratorState, save_checkpoint
from studio.models.contract import ChapterContract
from studio.models.foreshadowing import ForeshadowingLedger
from studio.models.volume_plan import load_volume_plan
from studio.outline import parse_outline, render_outline
from studio.paths import ProjectPaths
from studio.planning.review import review_path
from studio.planning.staged import staged_outline_path, staged_plans
from studio.planning.written import is_written
from studio.project import Project


class CountingProvider(OfflineProvider):
    """The offline provider, recording every request; `bad` replies (by stage) are served first."""

    def __init__(self, bad: dict[str, list[str]] | None = None) -> None:
        super().__init__()
        self.requests: list[ModelRequest] = []
        self.bad = bad or {}

    async def run(self, request: ModelRequest, on_text: TextCallback | None = None) -> ModelResult:
        self.requests.append(request)
        queue = self.bad.get(request.stage or "")
        if queue:
            return ModelResult(text=queue.pop(0), model="offline", stop_reason="end_turn", usage=Usage(), duration_ms=1,
                               ttft_ms=None)
        return await super().run(request, on_text)

    def stages(self) -> list[str]:
        return [r.stage or "" for r in self.requests]


Decide = Callable[[Question], Awaitable[str]]


def scripted(*steps: str | Callable[[Question], str]) -> tuple[Decide, list[Question]]:
    asked: list[Question] = []
    queue = list(steps)

    async def decide(question: Question) -> str:
        asked.append(question)
        step = queue.pop(0)
        return step(question) if callable(step) else step

    return decide, asked


def session(root: Path, decide: Decide, provider: OfflineProvider | None = None, **kw: object) -> tuple[
    PlanSessionResult, list[Event]
]:
    events: list[Event] = []
    result = asyncio.run(
        run_plan_session(root, load_settings(root), provider or CountingProvider(), decide, events.append,
                         offline=True, **kw)  # type: ignore[arg-type]
    )
    return result, events


def notices(events: list[Event]) -> str:
    return "\n".join(e.message for e in events if isinstance(e, Notice))


def written_to_end(tmp_path: Path, last: int = 3, *, reviewed: bool = True) -> Path:
    """The sample with volume 1 cut to chapters 1..`last`, all of them committed (the volume end); `reviewed`
    leaves the review's `volumes/vol-01/review.md` as `novel-studio review` does (else planning volume 2 asks
    first whether to plan without the review)."""
    root = init_project(tmp_path / "novel", sample=True)
    paths = ProjectPaths(root)
    outline = parse_outline(read_text(paths.outline(1)), paths.outline(1))
    atomic_write_text(paths.outline(1), render_outline(outline.model_copy(update={"chapters": outline.chapters[:last]})))
    for n in range(3, last + 1):
        atomic_write_text(paths.chapter(n), f"# 第{n}章 试写\n\n沈照推开门。\n")
        atomic_write_text(paths.summary(n), f"第{n}章：沈照推开门。\n")
    cp = Checkpoint.load(paths.checkpoint)
    cp.last_completed_chapter = last
    cp.orchestrator_state = OrchestratorState.VOL_REVIEW
    save_checkpoint(paths, cp)
    if reviewed:
        atomic_write_text(review_path(paths, 1), "# 第 1 卷回顾\n")
    return root


def test_an_unreviewed_volume_is_asked_about_before_the_plan(tmp_path: Path) -> None:
    root = written_to_end(tmp_path, reviewed=False)
    provider = CountingProvider()
    decide, asked = scripted("y", "y")
    result, events = session(root, decide, provider, volume_length=3)
    assert [q.kind for q in asked] == [QuestionKind.PLAN_UNREVIEWED, QuestionKind.PLAN_APPROVAL]
    assert "第 1 卷还没有做卷末回顾" in asked[0].title_zh and asked[0].data == {"volume": 2, "unreviewed": 1}
    assert result.status == "applied"


def test_the_question_carries_the_plan_and_a_note_replans(tmp_path: Path) -> None:
    root = written_to_end(tmp_path)
    provider = CountingProvider()
    decide, asked = scripted("r:让顾远舟早点出场", "bad answer", "y")
    result, events = session(root, decide, provider, volume_length=3)
    assert result.status == "applied" and result.volume == 2 and result.activated
    assert (result.first_chapter, result.last_chapter) == (4, 6)
    question = asked[0]
    assert question.kind is QuestionKind.PLAN_APPROVAL and question.recommended == "y"
    assert [o.key for o in question.options] == ["y", "k", "r", "e", "n"]
    data = question.data
    assert data["volume"] == 2 and Path(str(data["outline_path"])).name == "outline.md"
    plan = data["plan"]
    assert isinstance(plan, dict) and [c["chapter"] for c in plan["chapters"]] == [4, 5, 6]
    assert any("爽点" in f for f in question.facts)
    # storylines by the name the storylines file gives them, not their ids (issue 12 item 4)
    lines = [f for f in question.facts if f.strip().startswith("故事线：")]
    assert lines and all("main-arc" not in f and "fog-tide" not in f for f in lines), lines
    assert any("守灯人之路" in f for f in lines), lines
    # the note went to the second outline call; a bad answer is said and asked again
    outline_calls = [r for r in provider.requests if r.stage == "plan"]
    assert len(outline_calls) == 2 and "让顾远舟早点出场" in json.dumps(outline_calls[1].messages, ensure_ascii=False)
    assert "无法理解的回答" in notices(events) and len(asked) == 3
    assert "预计最多" in notices(events) and "已应用第 2 卷计划" in notices(events)
    assert "正在派生第 4-6 章的章节契约" in notices(events)
    assert load_volume_plan(ProjectPaths(root), 2).outline.chapter_range == (4, 6)


def test_contracts_come_in_batches_with_the_chained_state(tmp_path: Path) -> None:
    root = written_to_end(tmp_path)
    provider = CountingProvider()
    decide, _ = scripted("y")
    result, _ = session(root, decide, provider, volume_length=25)
    assert result.status == "applied"
    assert provider.stages() == ["plan", "plan-contracts", "plan-contracts", "plan-contracts"]
    batches = [r.context["chapters"] for r in provider.requests[1:]]
    assert [[c["number"] for c in b] for b in batches] == [list(range(4, 14)), list(range(14, 24)), [24, 25, 26, 27, 28]]
    # the second batch is told the state after chapter 13's postconditions
    second = "".join(str(b.get("text", "")) for m in provider.requests[2].messages for b in m["content"])
    second = second[second.index("<state_before>"):]
    contract_13 = ChapterContract.load(ProjectPaths(root).contract(2, 13))
    (slug, change), *_ = contract_13.postconditions.state_changes.items()
    assert f'"{slug}"' in second and change["location"] in second
    contract_14 = ChapterContract.load(ProjectPaths(root).contract(2, 14))
    assert contract_14.preconditions.character_states[slug]["location"] == change["location"]


def _contracts_reply(chapters: list[int]) -> str:
    return json.dumps({"chapter_contracts": [{"chapter": n, "storyline_id": "main-arc"} for n in chapters]})


def test_a_bad_batch_is_repaired_and_a_batch_still_wrong_stages_nothing(tmp_path: Path) -> None:
    root = written_to_end(tmp_path)
    provider = CountingProvider(bad={"plan-contracts": [_contracts_reply([4, 5])]})  # chapter 6 missing
    decide, _ = scripted("y")
    result, _ = session(root, decide, provider, volume_length=3)
    assert result.status == "applied"
    assert provider.stages() == ["plan", "plan-contracts", "plan-contracts-repair"]
    repair = json.dumps(provider.requests[2].messages[-1], ensure_ascii=False)
    assert "第 4-6 章" in repair

    root2 = written_to_end(tmp_path / "two")
    bad = _contracts_reply([4, 5])
    provider = CountingProvider(bad={"plan-contracts": [bad], "plan-contracts-repair": [bad, bad]})
    decide, asked = scripted()
    result, events = session(root2, decide, provider, volume_length=3)
    assert result.status == "rejected" and asked == []
    assert "第 2 卷第 4-6 章的章节契约" in notices(events)
    paths = ProjectPaths(root2)
    assert not paths.volume_dir(2).exists() and staged_plans(paths) == []
    assert Checkpoint.load(paths.checkpoint).orchestrator_state is OrchestratorState.VOL_REVIEW


def _edit_outline(question: Question, old: str, new: str) -> str:
    path = Path(str(question.data["outline_path"]))
    text = read_text(path)
    assert old in text
    atomic_write_text(path, text.replace(old, new, 1))
    return "e"


def test_an_edited_outline_is_checked_and_only_changed_contracts_are_derived_again(tmp_path: Path) -> None:
    root = written_to_end(tmp_path)
    provider = CountingProvider()

    def move_chapter_5(question: Question) -> str:
        text = read_text(Path(str(question.data["outline_path"])))
        chapter_5 = text[text.index("## 第5章"):]
        place = chapter_5.split("- Location: ", 1)[1].split("\n", 1)[0]
        return _edit_outline(question, f"- Location: {place}\n- Conflict", "- Location: 城南渡口\n- Conflict")

    decide, asked = scripted(move_chapter_5, "y")
    result, events = session(root, decide, provider, volume_length=3)
    assert result.status == "applied", notices(events)
    assert provider.stages() == ["plan", "plan-contracts", "plan-contracts"]
    assert [c["number"] for c in provider.requests[2].context["chapters"]] == [5]  # only the changed chapter
    assert "大纲改动了第 5 章" in notices(events)
    assert any("城南渡口" in f for f in asked[1].facts)  # asked again with the edit
    paths = ProjectPaths(root)
    assert "城南渡口" in read_text(paths.outline(2))
    c5 = ChapterContract.load(paths.contract(2, 5))
    assert "城南渡口" in json.dumps(c5.postconditions.state_changes, ensure_ascii=False)
    c6 = ChapterContract.load(paths.contract(2, 6))
    assert "城南渡口" in json.dumps(c6.preconditions.character_states, ensure_ascii=False)  # chained again


def test_an_edited_outline_with_errors_is_said_and_nothing_applied(tmp_path: Path) -> None:
    root = written_to_end(tmp_path)
    decide, asked = scripted(
        lambda q: _edit_outline(q, "- Storyline: main-arc", "- Storyline: no-such-line"),
        lambda q: _edit_outline(q, "## 第5章", "## 第4章"),
        "n",
    )
    result, events = session(root, decide, volume_length=3)
    assert result.status == "cancelled" and len(asked) == 3
    said = notices(events)
    assert "修改后的大纲有错误" in said and "no-such-line" in said and "appears twice" in said
    paths = ProjectPaths(root)
    assert not paths.volume_dir(2).exists() and staged_plans(paths) == []


def test_replan_the_rest_of_the_current_volume(tmp_path: Path) -> None:
    root = init_project(tmp_path / "novel", sample=True)  # volume 1: chapters 1-10, 1-2 written
    paths = ProjectPaths(root)
    before = parse_outline(read_text(paths.outline(1)), paths.outline(1))
    contract_2 = paths.contract(1, 2).read_bytes()
    decide, asked = scripted("y")
    result, events = session(root, decide, volume=1, volume_length=6)
    assert result.status == "applied" and (result.first_chapter, result.last_chapter) == (3, 6)
    assert "已写的第 1-2 章保持不变" in notices(events)
    question = asked[0]
    assert question.data["plan"]["fixed_chapters"] == [1, 2]  # type: ignore[index]
    assert "-## 第3章" in str(question.data["diff"])
    # the sample's outline and contracts were written by hand: shown, and no automatic approval
    assert question.recommended == "" and question.data["overwrites"]
    after = parse_outline(read_text(paths.outline(1)), paths.outline(1))
    assert after.chapters[:2] == before.chapters[:2] and after.chapter_range == (1, 6)
    assert paths.contract(1, 2).read_bytes() == contract_2  # written chapters never touched
    assert not paths.contract(1, 7).exists()  # chapters past the new end are gone (backed up)
    assert sorted(p.name for p in (result.backup or tmp_path).rglob("chapter-007.json"))
    threads = ForeshadowingLedger.load(paths.global_foreshadowing).foreshadowing
    assert len({t.id for t in threads}) == len(threads)


def test_after_a_quick_start_volume_one_is_planned_with_chapters_1_to_3_fixed(tmp_path: Path) -> None:
    root = written_to_end(tmp_path)  # chapters 1-3 written, volume 1's outline is 1-3
    decide, _ = scripted("y")
    result, _ = session(root, decide, volume=1, volume_length=8)
    assert result.status == "applied" and (result.volume, result.first_chapter, result.last_chapter) == (1, 4, 8)
    paths = ProjectPaths(root)
    plan = load_volume_plan(paths, 1)
    assert plan.outline.chapter_range == (1, 8) and [c.chapter for c in plan.contracts] == list(range(1, 9))
    cp = Checkpoint.load(paths.checkpoint)
    assert (cp.current_volume, cp.orchestrator_state) == (1, OrchestratorState.WRITING)
    # nothing left to re-plan once the volume is written to its end
    decide, _ = scripted()
    result, _ = session(root, decide, volume=1, volume_length=3)
    assert result.status == "usage" and "没有剩下可以重新规划的章节" in result.message


def test_a_volume_without_an_outline_gets_entries_from_its_summaries(tmp_path: Path) -> None:
    root = init_project(tmp_path / "novel", sample=True)
    paths = ProjectPaths(root)
    for n in range(1, 11):
        paths.contract(1, n).unlink(missing_ok=True)
    paths.outline(1).unlink()
    decide, asked = scripted("y")
    result, events = session(root, decide, volume_length=5)
    assert result.status == "applied" and (result.volume, result.first_chapter, result.last_chapter) == (1, 3, 5)
    assert "按摘要生成大纲条目" in notices(events)
    outline = parse_outline(read_text(paths.outline(1)), paths.outline(1))
    assert outline.chapter_range == (1, 5)
    first = outline.chapters[0]
    assert is_written(first) and first.title == "子时送单" and "沈照" in first.notes[0]
    assert not is_written(outline.chapters[2])
    assert asked[0].data["plan"]["fixed_chapters"] == [1, 2]  # type: ignore[index]


def test_hand_edits_are_shown_and_never_approved_automatically(tmp_path: Path) -> None:
    root = written_to_end(tmp_path)
    decide, _ = scripted("y")
    assert session(root, decide, volume_length=6)[0].status == "applied"  # volume 2: chapters 4-9
    paths = ProjectPaths(root)
    # a re-plan of files the planner wrote itself: nothing to warn about
    decide, asked = scripted("n")
    session(root, decide, volume=2, volume_length=6, note="节奏再快一点")
    assert "overwrites" not in asked[0].data and asked[0].recommended == "y"
    # the author edits chapter 6's contract by hand: the next re-plan shows the difference and asks
    contract = paths.contract(2, 6)
    atomic_write_text(contract, read_text(contract).replace("OBJ-006-1", "OBJ-006-1-作者改过"))
    decide, asked = scripted("n")
    session(root, decide, volume=2, volume_length=6, note="节奏再快一点")
    question = asked[0]
    overwrites = question.data["overwrites"]
    assert isinstance(overwrites, list) and [o["path"] for o in overwrites] == ["volumes/vol-02/chapter-contracts/chapter-006.json"]
    assert "作者改过" in overwrites[0]["diff"] and question.recommended == ""
    assert any("手动修改过" in f for f in question.facts)

    async def take_recommended(q: Question) -> str:
        if not q.recommended:
            raise PausedForAuthor("needs the author")
        return q.recommended

    with pytest.raises(PausedForAuthor):
        session(root, take_recommended, volume=2, volume_length=6, note="节奏再快一点")
    assert "作者改过" in read_text(contract)  # still the author's
    assert staged_outline_path(paths, 2).is_file()  # the plan waits for the author


def _outline_with_a_new_character(root: Path) -> str:
    request = plan_request(Project.open(root), load_settings(root), PlanTarget(2, 4, 6))
    reply = plot_reply(request.context)
    pov = reply["outline_md"].split("- POV: ", 1)[1].split("\n", 1)[0]
    reply["outline_md"] = reply["outline_md"].replace(f"- POV: {pov}", "- POV: zhou-ming", 1)
    reply["new_characters"] = [{"id": "zhou-ming", "display_name": "周明", "role": "antagonist", "reason": "本卷的对手"}]
    return json.dumps(reply, ensure_ascii=False)


def test_new_characters_are_woven_staged_and_applied_with_the_plan(tmp_path: Path) -> None:
    root = written_to_end(tmp_path)
    provider = CountingProvider(bad={"plan": [_outline_with_a_new_character(root)]})
    decide, asked = scripted("y")
    result, events = session(root, decide, provider, volume_length=3)
    assert result.status == "applied", notices(events)
    assert provider.stages() == ["plan", "plan-contracts", "plan-characters"]
    weaver = provider.requests[2]
    assert weaver.agent == "character_weaver" and "zhou-ming（周明）" in json.dumps(weaver.messages, ensure_ascii=False)
    assert "本卷需要新角色 周明" in notices(events)
    assert any("本卷新角色：周明（zhou-ming）" in f for f in asked[0].facts)
    paths = ProjectPaths(root)
    character = CharacterFile.load(paths.character("zhou-ming"))
    assert character.display_name == "周明" and character.contracts
    assert paths.character_profile("zhou-ming").is_file()
    assert "zhou-ming" in Project.open(root).characters


def test_a_weaver_reply_without_the_wanted_character_is_repaired_then_rejected(tmp_path: Path) -> None:
    root = written_to_end(tmp_path)
    wrong = json.dumps({"characters": [{"id": "someone-else", "display_name": "别人"}]}, ensure_ascii=False)
    provider = CountingProvider(bad={"plan": [_outline_with_a_new_character(root)], "plan-characters": [wrong],
                                     "plan-characters-repair": [wrong, wrong]})
    decide, asked = scripted()
    result, events = session(root, decide, provider, volume_length=3)
    assert result.status == "rejected" and asked == []
    assert provider.stages() == [
        "plan", "plan-contracts", "plan-characters", "plan-characters-repair", "plan-characters-repair"
    ]
    assert "缺少角色 zhou-ming" in json.dumps(provider.requests[3].messages[-1], ensure_ascii=False)
    paths = ProjectPaths(root)
    assert not paths.character("zhou-ming").exists() and staged_plans(paths) == []


def test_approving_an_outline_edited_since_the_check_checks_it_first(tmp_path: Path) -> None:
    root = written_to_end(tmp_path)

    def edit_then_approve(question: Question) -> str:
        _edit_outline(question, "- Storyline: main-arc", "- Storyline: no-such-line")
        return "y"  # without saying "e": the session still checks the file before applying anything

    decide, asked = scripted(edit_then_approve, "n")
    result, events = session(root, decide, volume_length=3)
    assert result.status == "cancelled" and len(asked) == 2
    assert "no-such-line" in notices(events)
    assert not ProjectPaths(root).volume_dir(2).exists()


def test_an_edit_that_drops_the_last_chapter_shortens_the_plan(tmp_path: Path) -> None:
    root = written_to_end(tmp_path)

    def drop_chapter_6(question: Question) -> str:
        path = Path(str(question.data["outline_path"]))
        text = read_text(path)
        atomic_write_text(path, text[: text.index("## 第6章")])
        return "e"

    provider = CountingProvider()
    decide, asked = scripted(drop_chapter_6, "y")
    result, events = session(root, decide, provider, volume_length=3)
    assert result.status == "applied" and (result.first_chapter, result.last_chapter) == (4, 5), notices(events)
    assert provider.stages() == ["plan", "plan-contracts"]  # nothing to derive again
    assert [c["chapter"] for c in asked[1].data["plan"]["chapters"]] == [4, 5]  # type: ignore[index]
    assert not ProjectPaths(root).contract(2, 6).exists()


class _WeaverDown(CountingProvider):
    """Plans with a new character; the weaver's call fails with an error no retry helps."""

    async def run(self, request: ModelRequest, on_text: TextCallback | None = None) -> ModelResult:
        if request.stage == "plan-characters":
            self.requests.append(request)
            raise BadRequestError("the request is too large", status_code=400)
        return await super().run(request, on_text)


def test_a_model_error_in_a_planning_call_is_the_sessions_result_and_stages_nothing(tmp_path: Path) -> None:
    root = written_to_end(tmp_path)
    provider = _WeaverDown(bad={"plan": [_outline_with_a_new_character(root)]})
    decide, asked = scripted()
    result, events = session(root, decide, provider, volume_length=3)
    assert result.status == "rejected" and asked == []
    assert result.errors == ["the request is too large"] and result.message == "the request is too large"
    assert provider.stages() == ["plan", "plan-contracts", "plan-characters"]
    assert result.calls == 2  # the plan and its contracts were booked; the failed call returned nothing to book
    assert "the request is too large" in notices(events)
    assert staged_plans(ProjectPaths(root)) == []
