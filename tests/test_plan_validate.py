"""The volume plan's checks by code and its precondition chaining (issue 7 item 3)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from studio.errors import FormatError
from studio.init_project import init_project
from studio.models.contract import ChapterContract
from studio.models.foreshadowing import ForeshadowingItem, ForeshadowingLedger
from studio.models.schedule import ConvergenceEvent, ScheduledStoryline, StorylineSchedule
from studio.models.state import CharacterState, CurrentState
from studio.models.volume_plan import VolumePlan, VolumePlanReply, hook, load_volume_plan, payoff
from studio.outline import OutlineChapter, VolumeOutline
from studio.planning.chaining import chain_preconditions, check_plan
from studio.planning.checks import PlanContext, pacing_warnings, validate_plan
from studio.planning.findings import MESSAGES, Finding, PlanReport
from studio.planning.project_context import plan_context
from studio.project import Project

CHARACTERS = {"shen-zhao": "沈照", "xu-qing-he": "许青禾", "gu-yuan-zhou": "顾远舟"}
RULES = ["W-001", "W-002", "W-003"]


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Project:
    return Project.open(init_project(tmp_path_factory.mktemp("plan") / "novel", sample=True))


def _ctx(storylines: tuple[str, ...] = ("main-arc", "fog-tide"), state: CurrentState | None = None) -> PlanContext:
    return PlanContext.build(storylines=storylines, characters=CHARACTERS, world_rules=RULES, state=state)


def _sample_plan(sample: Project) -> VolumePlan:
    return load_volume_plan(sample.paths, 1)


def _codes(report: PlanReport) -> set[str]:
    return {f.code for f in report.errors}


def _chapter(plan: VolumePlan, n: int) -> OutlineChapter:
    found = plan.outline.get(n)
    assert found is not None
    return found


def _line_plan(lines: str, *, primary_max: int | None = 3, every: str | None = "every_4_chapters") -> VolumePlan:
    """A plan whose chapters 1.. follow `lines` (m = main-arc primary, f = fog-tide secondary)."""
    ids = {"m": "main-arc", "f": "fog-tide"}
    chapters = [OutlineChapter(number=i + 1, title=f"章{i + 1}", storyline=ids[c]) for i, c in enumerate(lines)]
    schedule = StorylineSchedule.parse_data(
        {
            "volume": 1,
            "active_storylines": [
                {"storyline_id": "main-arc", "volume_role": "primary"},
                {"storyline_id": "fog-tide", "volume_role": "secondary"},
            ],
            "interleaving_pattern": {"primary_max_consecutive": primary_max, "secondary_min_appearance": every},
        }
    )
    return VolumePlan(
        volume=1, first_chapter=1, last_chapter=len(lines), outline=VolumeOutline(chapters=chapters), schedule=schedule
    )


# ---------------------------------------------------------------------------------------------- the sample


def test_the_samples_volume_plan_passes(sample: Project) -> None:
    plan = _sample_plan(sample)
    assert (plan.first_chapter, plan.last_chapter, len(plan.contracts)) == (1, 10, 10)
    report = validate_plan(plan, _ctx())
    assert report.ok, report.error_lines("en")
    assert report.warnings == []


def test_every_finding_has_both_languages(sample: Project) -> None:
    for key, (zh, en) in MESSAGES.items():
        assert zh and en, key


# ---------------------------------------------------------------------------------------------- errors


def test_unknown_ids_are_errors(sample: Project) -> None:
    plan = _sample_plan(sample)
    _chapter(plan, 4).pov = "王五"
    _chapter(plan, 5).foreshadowing = "推进 lost-sword（无人埋过）"
    contract = plan.contracts[5]
    contract.preconditions.required_world_rules.append("W-404")
    contract.postconditions.foreshadowing_updates["jade-seal"] = "planted"
    contract.postconditions.state_changes["li-si"] = {"location": "码头"}
    contract.transition_hint = None
    report = validate_plan(plan, _ctx())
    ids = {(f.code, f.params.get("id")) for f in report.errors}
    assert ("unknown_character", "王五") in ids
    assert ("unknown_thread", "lost-sword") in ids
    assert ("unknown_rule", "W-404") in ids
    assert ("unknown_thread", "jade-seal") in ids
    assert ("unknown_character", "li-si") in ids
    assert all(f.message("en") and f.message("zh") for f in report.errors)


def test_display_names_resolve(sample: Project) -> None:
    plan = _sample_plan(sample)
    _chapter(plan, 4).pov = "沈照"
    assert validate_plan(plan, _ctx()).ok


def test_unknown_storyline_in_outline_and_schedule(sample: Project) -> None:
    plan = _sample_plan(sample)
    _chapter(plan, 4).storyline = "sea-plan"
    plan.schedule.convergence_events[0].involved_storylines.append("ghost-line")
    report = validate_plan(plan, _ctx())
    ids = {(f.code, f.params.get("id")) for f in report.errors}
    assert {("unknown_storyline", "sea-plan"), ("unknown_storyline", "ghost-line")} <= ids


def test_gap_duplicate_and_outside_chapters(sample: Project) -> None:
    plan = _sample_plan(sample)
    chapters = [c for c in plan.outline.chapters if c.number != 5]
    chapters.append(_chapter(plan, 3).model_copy(update={"number": 12}))
    plan.outline = VolumeOutline(title=plan.outline.title, chapters=chapters)
    plan.contracts.append(plan.contracts[2].model_copy(deep=True))
    report = validate_plan(plan, _ctx())
    by_code = {f.code: f for f in report.errors}
    assert by_code["chapter_gap"].params["missing"] == "5"
    assert by_code["chapter_outside"].params["chapter"] == 12
    assert by_code["duplicate_chapter"].params == {"chapter": 3, "count": 2}


def test_missing_contracts_only_when_required(sample: Project) -> None:
    plan = _sample_plan(sample)
    plan.contracts = plan.contracts[:4]
    assert "missing_contract" in _codes(validate_plan(plan, _ctx()))
    assert validate_plan(plan, _ctx(), require_contracts=False).ok  # a first batch of contracts


def test_chapter_on_an_inactive_storyline(sample: Project) -> None:
    plan = _sample_plan(sample)
    _chapter(plan, 6).storyline = "side-line"
    plan.contracts[5].storyline_id = "side-line"
    report = validate_plan(plan, _ctx(("main-arc", "fog-tide", "side-line")))
    assert [(f.code, f.chapter) for f in report.errors] == [("storyline_not_active", 6)]


def test_contract_storyline_must_match_the_outline(sample: Project) -> None:
    plan = _sample_plan(sample)
    plan.contracts[3].storyline_id = "fog-tide" if _chapter(plan, 4).storyline == "main-arc" else "main-arc"
    assert "contract_storyline_mismatch" in _codes(validate_plan(plan, _ctx()))


def test_chapter_without_storyline_in_a_multi_line_volume(sample: Project) -> None:
    plan = _sample_plan(sample)
    _chapter(plan, 4).storyline = None
    assert "missing_storyline" in _codes(validate_plan(plan, _ctx()))


def test_convergence_outside_the_volume(sample: Project) -> None:
    plan = _sample_plan(sample)
    plan.schedule.convergence_events[0] = ConvergenceEvent(chapter_range=(9, 12), involved_storylines=["main-arc"])
    [finding] = validate_plan(plan, _ctx()).errors
    assert finding.code == "convergence_outside" and finding.params["last"] == 12


def test_more_than_four_active_lines(sample: Project) -> None:
    plan = _sample_plan(sample)
    extra = ("line-c", "line-d", "line-e")
    for sid in extra:
        plan.schedule.active_storylines.append(ScheduledStoryline(storyline_id=sid, volume_role="seasoning"))
    report = validate_plan(plan, _ctx(("main-arc", "fog-tide", *extra)))
    assert [f.code for f in report.errors] == ["too_many_lines"]
    assert report.errors[0].params == {"count": 5, "max": 4}


def test_schedule_for_another_volume(sample: Project) -> None:
    plan = _sample_plan(sample)
    plan.schedule.volume = 2
    assert _codes(validate_plan(plan, _ctx())) == {"schedule_volume"}


def test_threads_need_scope_and_range_inside_the_volume(sample: Project) -> None:
    plan = _sample_plan(sample)
    plan.foreshadowing.append(ForeshadowingItem(id="red-thread", planted_chapter=14))
    plan.foreshadowing.append(
        ForeshadowingItem(id="early-end", scope="short", planted_chapter=6, target_resolve_range=(2, 4))
    )
    codes = [(f.code, f.params.get("id")) for f in validate_plan(plan, _ctx()).errors]
    assert ("thread_no_scope", "red-thread") in codes
    assert ("thread_no_range", "red-thread") in codes
    assert ("thread_planted_outside", "red-thread") in codes
    assert ("thread_range_before_plant", "early-end") in codes


def test_a_new_thread_may_not_reuse_a_ledger_id(sample: Project) -> None:
    ledger = ForeshadowingLedger.load(sample.paths.global_foreshadowing)
    ctx = PlanContext.build(storylines=("main-arc", "fog-tide"), characters=CHARACTERS, world_rules=RULES, ledger=ledger)
    codes = {(f.code, f.params.get("id")) for f in validate_plan(_sample_plan(sample), ctx).errors}
    assert ("thread_exists", "bell-in-fog") in codes


# ---------------------------------------------------------------------------------------------- pacing


def test_primary_run_longer_than_the_limit_warns() -> None:
    warnings = pacing_warnings(_line_plan("mmmmmfmmmf", every=None))
    assert [(w.code, w.params["first"], w.params["last"]) for w in warnings] == [("primary_run", 1, 5)]
    assert all(w.severity == "warning" for w in warnings)


def test_pacing_warnings_name_the_storyline() -> None:
    """The author reads storylines by name (issue 12 item 4): a pacing warning names its line as the storylines
    file does; an id the file does not name, and an unknown id, are shown as they are."""
    (warning,) = pacing_warnings(_line_plan("mmmmmfmmmf", every=None))
    line_id = str(warning.params["id"])
    assert line_id in warning.line("zh")
    named = warning.line("zh", {line_id: "守灯人之路"})
    assert "主线 守灯人之路 连续" in named and line_id not in named
    assert "primary line 守灯人之路 runs" in warning.line("en", {line_id: "守灯人之路"})
    assert line_id in warning.line("zh", {"other": "别的线"})
    unknown = Finding("unknown_storyline", "error", "outline", {"id": line_id})
    assert line_id in unknown.line("zh", {line_id: "守灯人之路"})  # a wrong id is shown as written


def test_primary_rule_needs_a_second_line() -> None:
    plan = _line_plan("mmmmmm", every=None)
    plan.schedule.active_storylines.pop()
    assert pacing_warnings(plan) == []


def test_secondary_gap_warns() -> None:
    warnings = pacing_warnings(_line_plan("mmfmmmmfm", primary_max=None))
    assert [(w.code, w.params["first"], w.params["last"]) for w in warnings] == [("secondary_gap", 4, 7)]
    assert pacing_warnings(_line_plan("mmfmmmfmm", primary_max=None)) == []


def test_secondary_absent_warns_and_convergence_counts() -> None:
    assert [w.code for w in pacing_warnings(_line_plan("mmmmmm", primary_max=None))] == ["secondary_absent"]
    plan = _line_plan("mmfmmmmfm", primary_max=None)
    plan.schedule.convergence_events.append(ConvergenceEvent(chapter_range=(5, 5), involved_storylines=["fog-tide"]))
    assert pacing_warnings(plan) == []


def test_pacing_warnings_do_not_block(sample: Project) -> None:
    plan = _sample_plan(sample)
    plan.schedule.interleaving_pattern.primary_max_consecutive = 1
    report = validate_plan(plan, _ctx())
    assert report.ok and {w.code for w in report.warnings} == {"primary_run"}


# ---------------------------------------------------------------------------------------------- chaining


def _contract(n: int, storyline: str, pre: dict[str, Any] | None = None, post: dict[str, Any] | None = None) -> ChapterContract:
    return ChapterContract.parse_data(
        {
            "chapter": n,
            "storyline_id": storyline,
            "preconditions": {"character_states": pre or {}},
            "postconditions": {"state_changes": post or {}},
        }
    )


def _chain_plan(contracts: list[ChapterContract]) -> VolumePlan:
    plan = _line_plan("mfmf", primary_max=None, every=None)
    _chapter(plan, 1).pov = "shen-zhao"
    return plan.model_copy(update={"contracts": contracts})


def test_preconditions_chain_across_storylines() -> None:
    state = CurrentState(characters={"shen-zhao": CharacterState(display_name="沈照", location="灯铺")})
    plan = _chain_plan(
        [
            _contract(1, "main-arc", post={"沈照": {"location": "城隍庙后街"}}),
            _contract(2, "fog-tide", post={"gu-yuan-zhou": {"location": "码头", "emotional_state": "动摇"}}),
            _contract(3, "main-arc", pre={"shen-zhao": {}}, post={"gu-yuan-zhou": {"mood_note": "x"}}),
            _contract(4, "fog-tide", pre={"顾远舟": {"location": "码头"}}),
        ]
    )
    contracts, findings = chain_preconditions(plan, _ctx(state=state))
    assert findings == []
    by_n = {c.chapter: c for c in contracts}
    assert by_n[1].preconditions.character_states == {"shen-zhao": {"location": "灯铺"}}  # the POV, from the state
    assert by_n[1].postconditions.state_changes == {"shen-zhao": {"location": "城隍庙后街"}}  # display name -> slug
    # chapter 3 (main-arc) knows what chapter 2 (fog-tide) established
    assert by_n[3].preconditions.character_states["gu-yuan-zhou"] == {"emotional_state": "动摇", "location": "码头"}
    assert by_n[3].preconditions.character_states["shen-zhao"] == {"location": "城隍庙后街"}
    assert by_n[4].preconditions.character_states == {
        "gu-yuan-zhou": {"emotional_state": "动摇", "location": "码头", "mood_note": "x"}
    }


def test_a_contradicting_precondition_is_an_error_and_is_corrected() -> None:
    state = CurrentState(characters={"shen-zhao": CharacterState(location="灯铺")})
    plan = _chain_plan(
        [
            _contract(1, "main-arc", pre={"shen-zhao": {"location": "学校"}}),
            _contract(2, "fog-tide", post={"shen-zhao": {"location": "码头"}}),
            _contract(3, "main-arc", pre={"沈照": {"location": "灯铺"}}),
        ]
    )
    contracts, findings = chain_preconditions(plan, _ctx(state=state))
    assert [(f.code, f.severity, f.chapter) for f in findings] == [
        ("precondition_mismatch", "error", 1),
        ("precondition_mismatch", "error", 3),
    ]
    assert "当前状态" in findings[0].message("zh") and "the current state" in findings[0].message("en")
    assert "第 2 章" in findings[1].message("zh") and "“码头”" in findings[1].message("zh")
    assert contracts[2].preconditions.character_states == {"shen-zhao": {"location": "码头"}}


def test_a_mood_mismatch_only_warns_and_keeps_the_plans_value() -> None:
    plan = _chain_plan(
        [
            _contract(1, "main-arc", post={"shen-zhao": {"emotional_state": "慌"}}),
            _contract(2, "fog-tide", pre={"shen-zhao": {"emotional_state": "定了神"}}),
        ]
    )
    contracts, findings = chain_preconditions(plan, _ctx())
    assert [(f.code, f.severity) for f in findings] == [("precondition_mismatch", "warning")]
    assert contracts[1].preconditions.character_states == {"shen-zhao": {"emotional_state": "定了神"}}


def test_the_sample_plan_chains(sample: Project) -> None:
    contracts, findings = chain_preconditions(_sample_plan(sample), _ctx())
    assert all(f.severity == "warning" for f in findings)
    assert len(contracts) == 10 and [c.chapter for c in contracts] == list(range(1, 11))


# ---------------------------------------------------------------------------------------------- reply


def test_reply_becomes_a_plan() -> None:
    reply = VolumePlanReply.parse_data(
        {
            "outline_md": "# 第二卷\n\n## 第11章 开局\n- Storyline: main-arc\n- POV: shen-zhao\n- Payoff: 当众打脸\n"
            "- Hook: 门外有人敲了三下\n\n## 第12章 续\n- Storyline: main-arc\n爽点：赢回灯契\n章末钩子：灯灭了\n",
            "storyline_schedule": {"volume": 2, "active_storylines": [{"storyline_id": "main-arc", "volume_role": "primary"}]},
            "foreshadowing": [],
            "chapter_contracts": [],
            "notes_from_model": "kept",
        }
    )
    plan = reply.to_plan(2, 11, 12)
    first, second = plan.outline.chapters
    assert (payoff(first), hook(first)) == ("当众打脸", "门外有人敲了三下")
    assert (payoff(second), hook(second)) == ("赢回灯契", "灯灭了")
    assert validate_plan(plan, _ctx(), require_contracts=False).ok
    assert reply.to_data()["notes_from_model"] == "kept"


def test_reply_with_a_broken_outline_names_the_line() -> None:
    reply = VolumePlanReply.parse_data(
        {"outline_md": "## 第1章 甲\n- Storyline: 主线\n", "storyline_schedule": {"volume": 1}}
    )
    with pytest.raises(FormatError, match="slug"):
        reply.to_plan(1, 1, 1)


def test_load_volume_plan_without_outline(tmp_path: Path) -> None:
    root = init_project(tmp_path / "novel")
    with pytest.raises(FormatError, match="outline"):
        load_volume_plan(Project.open(root).paths, 1)


def test_check_plan_combines_checks_and_chaining(sample: Project) -> None:
    plan = _sample_plan(sample)
    ctx = plan_context(sample, new_storylines=["side-line"], new_characters={"li-si": "李四"})
    assert "side-line" in ctx.storylines and ctx.resolve_character("李四") == "li-si"
    assert ctx.state.characters  # the sample's current state (after chapter 2)
    checked, report = check_plan(plan, ctx)
    codes = set(report.codes())
    assert "thread_exists" in codes  # volume 1's threads are already in the sample's ledger
    assert "precondition_mismatch" in codes  # chapter 1's preconditions predate the current state
    assert len(checked.contracts) == 10
