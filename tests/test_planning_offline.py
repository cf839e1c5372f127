"""The offline provider's planning replies: well-formed, deterministic, and a plan that passes the checks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pipeline.planning.offline_replies import character_reply, contracts_reply, plot_reply, world_reply
from pipeline.planning.prompt_context import contracts_data
from pipeline.providers.offline import OfflineProvider
from studio.cli.prompt_cmd import build_preview
from studio.config import load_settings
from studio.init_project import init_project
from studio.models.character import CharacterFile
from studio.models.contract import ChapterContract
from studio.models.foreshadowing import ForeshadowingLedger
from studio.models.style_profile import StyleProfile
from studio.models.volume_plan import VolumePlan, VolumePlanReply, hook, payoff
from studio.models.world_rules import WorldRules
from studio.planning.chaining import chain_preconditions
from studio.planning.checks import PlanContext, validate_plan
from studio.project import Project


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Project:
    return Project.open(init_project(tmp_path_factory.mktemp("offline") / "novel", sample=True))


def _reply(project: Project, agent: str) -> tuple[dict[str, Any], dict[str, Any]]:
    request = build_preview(project, load_settings(project.root), agent).request
    return json.loads(OfflineProvider().reply_text(request)), request.context


def _ctx(project: Project) -> PlanContext:
    return PlanContext.build(
        storylines=project.storylines.ids(),
        characters={slug: c.display_name for slug, c in project.characters.items()},
        world_rules=[r.id for r in project.world_rules.rules],
        ledger=ForeshadowingLedger.load_or_default(project.paths.global_foreshadowing),
    )


def _with_contracts(plan: VolumePlan, rules: list[str]) -> VolumePlan:
    """The plan with the offline contracts of every chapter, in batches of ten as the planner asks for them."""
    numbers = list(plan.chapters())
    contracts: list[ChapterContract] = []
    for i in range(0, len(numbers), 10):
        reply = contracts_reply(contracts_data(plan, numbers[i : i + 10], rules))
        contracts += [ChapterContract.parse_data(c) for c in reply["chapter_contracts"]]
    return plan.model_copy(update={"contracts": contracts})


def test_offline_plot_passes_the_checks_on_the_sample(sample: Project) -> None:
    data, ctx = _reply(sample, "plot")
    assert "chapter_contracts" not in data and data["new_characters"] == []  # contracts come in batches
    plan = VolumePlanReply.parse_data(data).to_plan(ctx["volume"], ctx["chapter_start"], ctx["chapter_end"])
    plan = _with_contracts(plan, [r.id for r in sample.world_rules.rules])
    assert (plan.volume, plan.first_chapter, plan.last_chapter) == (2, 11, 40)
    report = validate_plan(plan, _ctx(sample))
    assert report.ok, report.error_lines("en")
    assert report.warnings == [], [w.line("en") for w in report.warnings]
    contracts, findings = chain_preconditions(plan, _ctx(sample))
    assert findings == []
    assert contracts[1].preconditions.character_states  # chained from chapter 11's postconditions
    first = plan.outline.chapters[0]
    assert payoff(first) and hook(first) and "沈照" in (first.conflict or "")
    assert {line.storyline for line in plan.outline.chapters} == {"main-arc", "fog-tide"}


@pytest.mark.parametrize("lines", [1, 2, 3, 4])
@pytest.mark.parametrize("length", [1, 3, 12, 31])
def test_offline_plot_is_valid_for_any_line_count_and_length(lines: int, length: int) -> None:
    ids = ["main-arc", "fog-tide", "sea-plan", "old-debt"][:lines]
    names = {"lin-zhao": "林照", "su-wan-qing": "苏晚晴"}
    ctx: dict[str, object] = {
        "volume": 3,
        "chapter_start": 41,
        "chapter_end": 40 + length,
        "storyline_ids": ids,
        "storyline_povs": {"main-arc": "lin-zhao"},
        "character_ids": ["lin-zhao", "su-wan-qing"],
        "character_names": names,
        "rule_ids": ["W-001"],
    }
    plan = _with_contracts(VolumePlanReply.parse_data(plot_reply(ctx)).to_plan(3, 41, 40 + length), ["W-001"])
    context = PlanContext.build(storylines=ids, characters=names, world_rules=["W-001"])
    report = validate_plan(plan, context)
    assert report.ok and report.warnings == [], [f.line("en") for f in [*report.errors, *report.warnings]]
    assert plot_reply(ctx) == plot_reply(ctx)  # deterministic


def test_offline_world_builder(tmp_path: Path, sample: Project) -> None:
    fresh = Project.open(init_project(tmp_path / "fresh"))
    data, _ = _reply(fresh, "world")
    rules = WorldRules.parse_data({"rules": data["rules"]})
    assert [r.id for r in rules.rules] == ["W-001", "W-002", "W-003"]
    assert [s["id"] for s in data["storylines"]] == ["main-arc"]
    assert data["files"][0]["path"].startswith("world/")
    more, _ = _reply(sample, "world")  # incremental: numbering continues after the sample's W-003
    assert [r["id"] for r in more["rules"]] == ["W-004"] and more["storylines"] == []


def test_offline_character_weaver(tmp_path: Path) -> None:
    root = init_project(tmp_path / "fresh")
    brief = root / "brief.md"
    brief.write_text(brief.read_text(encoding="utf-8") + "\n## 主角\n陆青山，二十岁，镖师。\n", encoding="utf-8")
    data, _ = _reply(Project.open(root), "character")
    files = [CharacterFile.parse_data(c) for c in data["characters"]]
    assert files[0].display_name == "陆青山" and data["characters"][0]["id"] == "lu-qing-shan"
    assert 2 <= len(files) <= 3
    ids = [contract.id for f in files for contract in f.contracts]
    assert len(ids) == len(set(ids))
    assert all(r["from"] == "lu-qing-shan" for r in data["relationships"])
    again = character_reply({"character_ids": ["lu-qing-shan"], "brief": {"主角": "陆青山"}})
    assert "lu-qing-shan" not in [c["id"] for c in again["characters"]]  # an existing character is not re-made


def test_offline_style_analyzer_uses_measured_numbers(sample: Project) -> None:
    data, ctx = _reply(sample, "style")
    profile = StyleProfile.parse_data(data)
    assert profile.source_type == "original"
    assert profile.avg_sentence_length == round(ctx["metrics"]["avg_sentence_length"])
    assert profile.dialogue_ratio == round(ctx["metrics"]["dialogue_ratio"], 2)


def test_world_reply_is_deterministic() -> None:
    ctx = {"mode": "初始化", "rule_ids": [], "brief": {"世界观一句话": "灵气按血脉世袭"}}
    assert world_reply(ctx) == world_reply(ctx)
    assert "灵气按血脉世袭" in world_reply(ctx)["files"][0]["content"]
