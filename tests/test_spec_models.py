"""Spec-file models: the seeds' own examples parse, round-trip, keep unknown fields, and bad files are
reported with file + JSON path."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from studio.errors import FormatError
from studio.models.base import FileModel
from studio.models.blacklist import AiBlacklist, default_blacklist
from studio.models.character import CharacterFile
from studio.models.contract import ChapterContract
from studio.models.evaluation import DIMENSION_WEIGHTS, Evaluation, weighted_overall
from studio.models.pipeline_log import PipelineLog
from studio.models.schedule import StorylineSchedule
from studio.models.storyline_spec import StorylineSpec, default_storyline_spec
from studio.models.storylines import Storylines
from studio.models.style_drift import StyleDrift
from studio.models.style_profile import StyleProfile
from studio.models.world_rules import WorldRules

FIXTURES = Path(__file__).parent / "fixtures" / "spec"

# (model, fixture file, a path to one nested object where an unknown field is injected)
CASES: list[tuple[type[FileModel], str, tuple[str | int, ...]]] = [
    (Storylines, "storylines.json", ("relationships", 0, "bridges")),
    (StorylineSpec, "storyline-spec.json", ("rules", 0)),
    (StorylineSchedule, "storyline-schedule.json", ("interleaving_pattern",)),
    (WorldRules, "rules.json", ("rules", 0)),
    (CharacterFile, "lu-chen.json", ("contracts", 1)),
    (ChapterContract, "chapter-048.json", ("objectives", 1)),
    (ChapterContract, "chapter-026.json", ("storyline_context",)),
    (StyleProfile, "style-profile.json", ()),
    (AiBlacklist, "ai-blacklist.json", ("words", 2)),
    (StyleDrift, "style-drift.json", ("drifts", 0)),
    (Evaluation, "chapter-047-eval.json", ("scores", "plot_logic")),
    (Evaluation, "chapter-048-eval-flat.json", ("required_fixes", 0)),
    (PipelineLog, "chapter-047-log.json", ("stages", 0)),
]
IDS = [name for _, name, _ in CASES]


def _data(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def _at(data: Any, path: tuple[str | int, ...]) -> Any:
    for part in path:
        data = data[part]
    return data


def _write(tmp_path: Path, name: str, data: Any) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.mark.parametrize(("model", "name", "nested"), CASES, ids=IDS)
def test_seed_example_parses_and_round_trips(
    model: type[FileModel], name: str, nested: tuple[str | int, ...], tmp_path: Path
) -> None:
    first = model.load(FIXTURES / name)
    out = tmp_path / name
    first.save(out)
    second = model.load(out)
    assert second == first
    assert second.to_data() == first.to_data()


@pytest.mark.parametrize(("model", "name", "nested"), CASES, ids=IDS)
def test_unknown_fields_survive_rewrite(
    model: type[FileModel], name: str, nested: tuple[str | int, ...], tmp_path: Path
) -> None:
    data = _data(name)
    data["x_author_note"] = {"keep": ["me", 1]}
    if nested:
        _at(data, nested)["x_nested"] = "保留"
    path = _write(tmp_path, name, data)
    model.load(path).save(path)
    again = json.loads(path.read_text(encoding="utf-8"))
    assert again["x_author_note"] == {"keep": ["me", 1]}
    if nested:
        assert _at(again, nested)["x_nested"] == "保留"


# (model, fixture, mutation, expected JSON path)
def _set(path: tuple[str | int, ...], value: Any) -> Any:
    def mutate(data: Any) -> None:
        _at(data, path[:-1])[path[-1]] = value

    return mutate


def _delete(path: tuple[str | int, ...]) -> Any:
    def mutate(data: Any) -> None:
        del _at(data, path[:-1])[path[-1]]

    return mutate


CORRUPT: list[tuple[type[FileModel], str, Any, str]] = [
    (Storylines, "storylines.json", _set(("storylines", 0, "id"), "../x"), "$.storylines[0].id"),
    (Storylines, "storylines.json", _set(("storylines", 1, "id"), "主线"), "$.storylines[1].id"),
    (Storylines, "storylines.json", _set(("storylines", 0, "scope"), "forever"), "$.storylines[0].scope"),
    (Storylines, "storylines.json", _delete(("relationships", 0, "from")), "$.relationships[0].from"),
    (
        StorylineSpec,
        "storyline-spec.json",
        _set(("rules", 2, "constraint_type"), "maybe"),
        "$.rules[2].constraint_type",
    ),
    (
        StorylineSchedule,
        "storyline-schedule.json",
        _set(("active_storylines", 1, "storyline_id"), "../x"),
        "$.active_storylines[1].storyline_id",
    ),
    (
        StorylineSchedule,
        "storyline-schedule.json",
        _set(("convergence_events", 0, "chapter_range"), [28, 25]),
        "$.convergence_events[0].chapter_range",
    ),
    (
        StorylineSchedule,
        "storyline-schedule.json",
        _set(("dormant_storylines", 0), "Faction Internal"),
        "$.dormant_storylines[0]",
    ),
    (StorylineSchedule, "storyline-schedule.json", _set(("volume",), 0), "$.volume"),
    (
        WorldRules,
        "rules.json",
        _set(("rules", 0, "introduced_chapter"), "第一章"),
        "$.rules[0].introduced_chapter",
    ),
    (WorldRules, "rules.json", _delete(("rules", 0, "rule")), "$.rules[0].rule"),
    (CharacterFile, "lu-chen.json", _delete(("display_name",)), "$.display_name"),
    (CharacterFile, "lu-chen.json", _set(("id",), "../../etc"), "$.id"),
    (
        CharacterFile,
        "lu-chen.json",
        _set(("contracts", 1, "exceptions"), "极度愤怒"),
        "$.contracts[1].exceptions",
    ),
    (ChapterContract, "chapter-026.json", _set(("storyline_id",), "主线"), "$.storyline_id"),
    (
        ChapterContract,
        "chapter-048.json",
        _set(("objectives", 0, "required"), "maybe"),
        "$.objectives[0].required",
    ),
    (ChapterContract, "chapter-048.json", _delete(("chapter",)), "$.chapter"),
    (StyleProfile, "style-profile.json", _set(("dialogue_ratio",), "四成"), "$.dialogue_ratio"),
    (StyleProfile, "style-profile.json", _set(("source_type",), "stolen"), "$.source_type"),
    (AiBlacklist, "ai-blacklist.json", _set(("words", 1), 42), "$.words[1]"),
    (AiBlacklist, "ai-blacklist.json", _set(("whitelist",), "仿佛"), "$.whitelist"),
    (StyleDrift, "style-drift.json", _set(("window",), [25, 21]), "$.window"),
    (StyleDrift, "style-drift.json", _delete(("drifts", 0, "metric")), "$.drifts[0].metric"),
    (
        Evaluation,
        "chapter-047-eval.json",
        _delete(("scores", "storyline_coherence")),
        "$.scores.storyline_coherence",
    ),
    (Evaluation, "chapter-047-eval.json", _set(("scores", "pacing", "score"), 6), "$.scores.pacing.score"),
    (Evaluation, "chapter-047-eval.json", _set(("scores", "pacing", "score"), 0.5), "$.scores.pacing.score"),
    (Evaluation, "chapter-047-eval.json", _set(("scores", "novelty"), {"score": 4}), "$.scores.novelty"),
    (
        Evaluation,
        "chapter-047-eval.json",
        _set(("contract_verification", "l1_checks"), [{"id": "W-001", "status": "maybe"}]),
        "$.contract_verification.l1_checks[0].status",
    ),
    (
        PipelineLog,
        "chapter-047-log.json",
        _set(("stages", 2, "input_tokens"), "many"),
        "$.stages[2].input_tokens",
    ),
    (PipelineLog, "chapter-047-log.json", _delete(("stages", 0, "name")), "$.stages[0].name"),
    (PipelineLog, "chapter-047-log.json", _set(("storyline_id",), "../x"), "$.storyline_id"),
]


@pytest.mark.parametrize(("model", "name", "mutate", "where"), CORRUPT, ids=[c[3] for c in CORRUPT])
def test_corrupt_file_names_file_and_json_path(
    model: type[FileModel], name: str, mutate: Any, where: str, tmp_path: Path
) -> None:
    data = _data(name)
    mutate(data)
    path = _write(tmp_path, name, data)
    with pytest.raises(FormatError) as info:
        model.load(path)
    problems = info.value.problems
    assert any(p.json_path == where and Path(p.path) == path for p in problems), problems
    assert str(path) in str(info.value)


def test_wrong_top_level_type_is_a_format_error(tmp_path: Path) -> None:
    path = _write(tmp_path, "rules.json", "not an object")
    with pytest.raises(FormatError):
        WorldRules.load(path)


# storylines


def test_storylines_seed_content_and_problems() -> None:
    lines = Storylines.load(FIXTURES / "storylines.json")
    assert lines.ids() == ["jiangwang_dao", "jinghai_plan", "zhonggu_secret"]
    rel = lines.relationships[0]
    assert (rel.from_, rel.to) == ("jiangwang_dao", "jinghai_plan")
    assert rel.bridges.shared_foreshadowing == ["巨龟初现", "天地斩衰"]
    assert lines.to_data()["relationships"][0]["from"] == "jiangwang_dao"
    assert lines.problems() == []


def test_storylines_cross_references_are_problems_not_errors() -> None:
    data = _data("storylines.json")
    data["relationships"][0]["to"] = "ghost_line"
    data["storylines"][2]["type"] = "romance"
    data["storylines"].append(dict(data["storylines"][0]))
    lines = Storylines.parse_data(data)
    problems = [str(p) for p in lines.problems()]
    assert any(p.startswith("$.relationships[0].to:") and "ghost_line" in p for p in problems)
    assert any(p.startswith("$.storylines[2].type:") for p in problems)
    assert any(p.startswith("$.storylines[3].id:") and "duplicate" in p for p in problems)
    # a type declared by the file itself is fine
    data["storyline_types"].append("romance")
    assert not any(".type" in str(p) for p in Storylines.parse_data(data).problems())


# storyline spec, schedule, contracts


def test_default_storyline_spec_has_ls_001_to_005() -> None:
    spec = default_storyline_spec()
    assert [r.id for r in spec.rules] == ["LS-001", "LS-002", "LS-003", "LS-004", "LS-005"]
    assert {r.id for r in spec.hard_rules()} == {"LS-001", "LS-005"}
    ls5 = spec.get("LS-005")
    assert ls5 is not None and "leak_risk" in ls5.rule
    seed = StorylineSpec.load(FIXTURES / "storyline-spec.json")
    assert [r.model_dump() for r in seed.rules] == [r.model_dump() for r in spec.rules[:4]]


def test_schedule_convergence_chapters_and_references() -> None:
    schedule = StorylineSchedule.load(FIXTURES / "storyline-schedule.json")
    assert schedule.convergence_chapters() == {25, 26, 27, 28}
    assert schedule.is_convergence_chapter(26) and not schedule.is_convergence_chapter(29)
    assert schedule.role_of("zhonggu_secret") == "seasoning"
    assert schedule.interleaving_pattern.primary_max_consecutive == 5
    lines = Storylines.load(FIXTURES / "storylines.json")
    # the seed's schedule names a dormant line that storylines.json does not define
    assert [str(p) for p in schedule.problems(lines)] == ["$.dormant_storylines[0]: unknown storyline 'faction_internal'"]


def test_chapter_contracts() -> None:
    c48 = ChapterContract.load(FIXTURES / "chapter-048.json")
    assert c48.storyline_id is None
    assert [o.id for o in c48.required_objectives()] == ["OBJ-048-1", "OBJ-048-2"]
    assert c48.objectives[1].action == "advance" and c48.objectives[1].target == "ancient_prophecy"
    assert c48.preconditions.character_states["陆尘"]["修为"] == "筑基后期"
    c26 = ChapterContract.load(FIXTURES / "chapter-026.json")
    assert c26.storyline_context is not None and c26.storyline_context.chapters_since_last == 8
    assert c26.transition_hint is not None and c26.transition_hint.next_storyline == "jiangwang_dao"


def test_world_rules_and_character() -> None:
    rules = WorldRules.load(FIXTURES / "rules.json")
    assert [r.id for r in rules.hard_rules()] == ["W-001"]
    assert rules.problems() == []
    char = CharacterFile.load(FIXTURES / "lu-chen.json")
    assert [c.id for c in char.contracts_in_force(10)] == ["C-LUCHEN-001", "C-LUCHEN-002"]
    assert char.problems("lu-chen") == []
    assert [str(p) for p in char.problems("lin-feng")] == ["$.id: id 'lu-chen' does not match the file name 'lin-feng'"]
    assert CharacterFile.parse_data({"display_name": "林枫"}).id is None


# style profile, blacklist, drift


def test_template_profile_validates() -> None:
    profile = StyleProfile.parse_data({"source_type": "template", "writing_directives": ["偏短句、动作推进"]})
    assert profile.avg_sentence_length is None and profile.forbidden_words == []
    assert StyleProfile().to_data()["source_type"] is None


def test_blacklist_effective_words_and_shapes(tmp_path: Path) -> None:
    bl = AiBlacklist.load(FIXTURES / "ai-blacklist.json")
    assert bl.effective_words() == ["不禁", "莫名的", "嘴角微微上扬"]
    assert bl.to_data()["words"][0] == "不禁"  # plain strings stay plain
    assert AiBlacklist.parse_data({"words": ["不禁"], "whitelist": []}).effective_words() == ["不禁"]
    bare = AiBlacklist.parse_data(["不禁", "仿佛"])
    assert bare.effective_words() == ["不禁", "仿佛"]
    assert bl.add("心中一动", added_by="author") and not bl.add("不禁")
    assert bl.effective_words()[-1] == "心中一动"


def test_default_blacklist() -> None:
    bl = default_blacklist()
    words = bl.effective_words()
    assert 60 <= len(words) <= 130  # the plugin caps its list at 130 words
    assert len(words) == len(set(words))
    assert {"嘴角…上扬", "不禁", "莫名的", "眼中闪过一丝", "深吸一口气"} <= set(words)


def test_style_drift_injection() -> None:
    drift = StyleDrift.load(FIXTURES / "style-drift.json")
    assert drift.injected_directives() == [
        "少用比喻，回到短句切换",
        "句子明显变长，回到 18 字左右的短句节奏",
        "对话偏少，多用对话推进情节",
    ]
    drift.active = False
    assert drift.injected_directives() == []
    assert StyleDrift().injected_directives() == []


# evaluation


def test_weighted_overall_against_hand_computation() -> None:
    ev = Evaluation.load(FIXTURES / "chapter-047-eval.json")
    # 4*.18 + 4*.18 + 4*.15 + 3*.10 + 4*.08 + 4*.15 + 3*.08 + 4*.08 = 3.82 (the seed's file says 3.78)
    assert weighted_overall(ev.scores) == 3.82
    assert ev.computed_overall() == 3.82 and ev.overall == 3.78
    assert sum(DIMENSION_WEIGHTS.values()) == pytest.approx(1.0)
    assert weighted_overall(dict.fromkeys(DIMENSION_WEIGHTS, 5)) == 5.0
    # half-up rounding on the decimal value: 3.4*.18+... chosen to land on x.xx5
    scores = dict.fromkeys(DIMENSION_WEIGHTS, 3.0)
    scores["pacing"] = 3.0625  # 3 + 0.0625*0.08 = 3.005
    assert weighted_overall(scores) == 3.01


def test_weights_in_file_are_not_trusted() -> None:
    data = _data("chapter-047-eval.json")
    for entry in data["scores"].values():
        entry["weight"] = 1.0 if entry is data["scores"]["foreshadowing"] else 0.0
    assert weighted_overall(Evaluation.parse_data(data).scores) == 3.82


def test_weighted_overall_missing_dimension() -> None:
    scores = dict.fromkeys(DIMENSION_WEIGHTS, 4.0)
    del scores["immersion"]
    with pytest.raises(ValueError, match="immersion"):
        weighted_overall(scores)


def test_evaluation_checks_and_flat_shape(tmp_path: Path) -> None:
    ev = Evaluation.load(FIXTURES / "chapter-048-eval-flat.json")
    cv = ev.contract_verification
    assert [c.id for c in cv.l1_checks] == ["W-001"]
    assert [c.id for c in cv.l2_checks] == ["C-LUCHEN-001"]
    assert [c.id for c in cv.l3_checks] == ["OBJ-048-1"]
    assert [c.id for c in cv.ls_checks] == ["LS-001"]
    assert cv.has_violations
    assert [c.id for c in ev.violations()] == ["OBJ-048-1"]
    assert ev.violations()[0].status == "violation"  # "fail" read as violation
    assert ev.high_confidence_violations() == ev.violations()
    assert ev.force_passed is False
    path = tmp_path / "eval.json"
    ev.save(path)
    assert "l3_checks" in json.loads(path.read_text(encoding="utf-8"))["contract_verification"]


def test_high_confidence_filter() -> None:
    data = _data("chapter-047-eval.json")
    data["contract_verification"]["ls_checks"] = [
        {"id": "LS-005", "status": "violation", "confidence": "low", "detail": "外线角色出现"},
        {"id": "LS-001", "status": "violation", "confidence": "high", "evidence": "时间矛盾"},
        {"id": "LS-002", "status": "N/A"},
    ]
    ev = Evaluation.parse_data(data)
    assert [c.id for c in ev.violations()] == ["LS-005", "LS-001"]
    assert [c.id for c in ev.high_confidence_violations()] == ["LS-001"]
    assert ev.contract_verification.ls_checks[2].status == "not_applicable"


def test_scores_keep_integers() -> None:
    ev = Evaluation.load(FIXTURES / "chapter-047-eval.json")
    assert ev.to_data()["scores"]["plot_logic"]["score"] == 4
    assert isinstance(ev.to_data()["scores"]["plot_logic"]["score"], int)


# pipeline log


def test_pipeline_log_seed_minimal_example_with_nulls() -> None:
    log = PipelineLog.load(FIXTURES / "chapter-047-log.json")
    assert log.total_tokens() == 0 and not log.tokens_reported()
    assert log.cost() is None
    assert log.duration_ms() == 110000 == log.total_duration_ms


def test_pipeline_log_sums_with_nulls() -> None:
    data = _data("chapter-047-log.json")
    data["stages"][0].update(
        input_tokens=1000, output_tokens=3000, cache_read_input_tokens=500, cost_usd=0.05
    )
    data["stages"][1].update(input_tokens=None, output_tokens=200, cost_usd=None)
    data["stages"][2].update(
        cache_creation_input_tokens=None, cost_usd=0.1, prompt_id="refine", prompt_version=3
    )
    log = PipelineLog.parse_data(data)
    assert log.total_tokens() == 1000 + 3000 + 500 + 200
    assert log.tokens_reported()
    assert log.cost() == pytest.approx(0.15)
    assert log.stages[3].cost_usd is None and log.stages[3].ttft_ms is None
    data["total_cost_usd"] = 0.42
    for stage in data["stages"]:
        stage["cost_usd"] = None
    assert PipelineLog.parse_data(data).cost() == 0.42


def test_null_fields_stay_null_on_rewrite(tmp_path: Path) -> None:
    path = tmp_path / "log.json"
    PipelineLog.load(FIXTURES / "chapter-047-log.json").save(path)
    stage = json.loads(path.read_text(encoding="utf-8"))["stages"][0]
    assert stage["input_tokens"] is None and stage["cost_usd"] is None


def test_fixtures_untouched_by_tests() -> None:
    # the parametrised tests work on copies; the seed copies must stay as the seeds wrote them
    assert copy.deepcopy(_data("chapter-047-eval.json"))["overall"] == 3.78
