"""The blacklist file format (issue 9 item 5): versions, tiers and rates, shapes and patterns, category flags (the
reference plugin's `narration_only`, `position_only`, `zero_tolerance`, `semantic_match`), the whitelist, and
where it is enforced: the checks, the refiner, the prompts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from pipeline.blacklist_prompt import blacklist_rules
from pipeline.refine_edits import RefineEdit, apply_edits
from studio.checks.matcher import blacklist_matcher
from studio.checks.metrics import prose_metrics
from studio.checks.names import NameRegistry
from studio.checks.prose import BlacklistCheck
from studio.checks.registry import ChapterText, CheckContext
from studio.errors import FormatError
from studio.models.blacklist import AiBlacklist, default_blacklist
from studio.models.findings import Finding
from studio.models.names import NamesFile

PLUGIN = Path(__file__).parent / "fixtures" / "plugin-project"


def _findings(blacklist: AiBlacklist, text: str) -> list[Finding]:
    ctx = CheckContext(
        chapters=[ChapterText(1, text)],
        registry=NameRegistry.from_sources({}, NamesFile()),
        blacklist=blacklist_matcher(blacklist),
    )
    return list(BlacklistCheck().run(ctx))


def _plugin() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((PLUGIN / "ai-blacklist.json").read_text(encoding="utf-8"))
    return data


# ---------------------------------------------------------------- the format


def test_the_first_plain_list_is_read_and_written_back_with_a_version() -> None:
    bl = AiBlacklist.parse_data(["不禁", "仿佛"])
    assert bl.effective_words() == ["不禁", "仿佛"] and bl.banned_words() == ["不禁", "仿佛"]
    assert bl.to_data() == {"version": 2, "words": ["不禁", "仿佛"], "whitelist": []}


def test_the_plugin_form_round_trips_and_keeps_its_category_shapes() -> None:
    data = _plugin()
    bl = AiBlacklist.parse_data(data)
    assert bl.to_data()["categories"] == data["categories"]
    assert bl.to_data()["version"] == "1.4.0" and bl.to_data()["update_log"] == data["update_log"]
    assert bl.to_data()["whitelist"] == data["whitelist"]
    by_word = {e.word: e for e in bl.enforced()}
    assert "顿时" not in by_word  # the author's whitelist
    assert by_word["然而"].narration_only and by_word["然而"].category == "narration_connector"
    assert by_word["——"].zero_tolerance and by_word["——"].severity == "high"
    assert by_word["不禁"].category == "emotion_cliche" and by_word["不禁"].tier == "banned"


def test_the_plugin_template_with_semantic_categories_keeps_them_out_of_the_matcher() -> None:
    data = _plugin()
    data["categories"]["simile_pattern"] = {
        "semantic_match": True,
        "density_limit": {"per_paragraph": 1, "per_kchars": 3},
        "patterns": ["像X一样/似的", "仿佛X"],
    }
    data["categories"]["ai_sentence_pattern"] = {
        "semantic_match": True,
        "patterns": [{"pattern_name": "negation_affirmation", "description": "否定-肯定伪深度", "examples": ["不是A，而是B"]}],
    }
    data["words"].append("仿佛X")
    data["categories"]["simile_pattern"]["words"] = ["仿佛X"]
    bl = AiBlacklist.parse_data(data)
    assert "仿佛X" not in bl.effective_words()
    assert bl.semantic_shapes() == ["像X一样/似的", "仿佛X", "否定-肯定伪深度（例：不是A，而是B）"]
    assert "避免的句式（包括换了词的同类说法）：像X一样/似的" in blacklist_rules(bl, 2500)
    assert bl.to_data()["categories"]["ai_sentence_pattern"] == data["categories"]["ai_sentence_pattern"]


@pytest.mark.parametrize(
    ("entry", "says"),
    [
        ({"word": "坏", "pattern": "(眼[中里"}, "not a valid regular expression"),
        ({"word": "慢", "pattern": "(啊+)+"}, "nested repetition"),
        ({"word": "空", "pattern": "a*"}, "empty string"),
        ({"word": "长", "pattern": "x" * 201}, "longer than"),
    ],
)
def test_a_bad_pattern_is_an_error_naming_the_entry(entry: dict[str, str], says: str) -> None:
    with pytest.raises(FormatError) as err:
        AiBlacklist.parse_data({"words": ["不禁", entry]}, "ai-blacklist.json")
    problem = err.value.problems[0]
    assert problem.json_path == "$.words[1]" and entry["word"] in problem.reason and says in problem.reason


def test_shapes_with_ellipsis_or_star_match_inside_one_sentence() -> None:
    bl = AiBlacklist.parse_data({"words": ["一股…涌上心头", "他*了一声"]})
    matcher = blacklist_matcher(bl)
    assert matcher.count("一股说不出的酸楚涌上心头。他冷哼了一声。") == {"一股…涌上心头": 1, "他*了一声": 1}
    assert matcher.count("一股风。涌上心头") == {}  # not across a sentence end


def test_an_entry_pattern_is_matched_and_shown_by_its_word() -> None:
    bl = AiBlacklist.parse_data({"words": [{"word": "眼中闪过一丝", "pattern": "[眼眸][中里底]闪过一(?:丝|抹)"}]})
    assert blacklist_matcher(bl).count("她眸底闪过一抹寒意，眼里闪过一丝笑。") == {"眼中闪过一丝": 2}


def test_add_refuses_duplicates_and_bad_shapes() -> None:
    bl = AiBlacklist.parse_data({"words": ["不禁"]})
    assert bl.add("心中一暖", added_by="author") and not bl.add("不禁")
    assert bl.add("忍不住", tier="limited", rate=1.5)
    assert bl.to_data()["words"][-1] == {"word": "忍不住", "tier": "limited", "rate": 1.5}
    with pytest.raises(ValueError):
        bl.add("***")  # only gap marks: nothing to match


# ---------------------------------------------------------------- the checks


def test_a_banned_entry_is_a_finding_per_entry_with_its_count() -> None:
    bl = AiBlacklist.parse_data({"words": ["深吸一口气"]})
    found = _findings(bl, "他深吸一口气。她也深吸一口气。\n")
    assert [(f.kind, f.text, f.count, f.severity) for f in found] == [("blacklist", "深吸一口气", 2, "low")]


def test_a_limited_phrase_under_its_rate_is_quiet_and_over_it_a_finding_with_the_rate() -> None:
    bl = AiBlacklist.parse_data({"words": [{"word": "忍不住", "tier": "limited", "rate": 2}]})
    filler = "风从山口吹来，石阶上落满了松针。" * 40  # 640 characters
    under = filler + "他忍不住笑了。\n"  # 1 use in 647 characters: 1.55 per 千字, under 2
    assert _findings(bl, under) == []
    over = filler + "他忍不住笑了，又忍不住咳嗽，终于忍不住开口。\n"  # 3 uses: 4.4 per 千字
    found = _findings(bl, over)
    assert [(f.kind, f.count) for f in found] == [("blacklist_density", 3)]
    assert "超过限额 2 次" in found[0].message


def test_the_file_limited_rate_is_the_default_rate() -> None:
    bl = AiBlacklist.parse_data({"limited_rate": 1, "words": [{"word": "仿佛", "tier": "limited"}]})
    assert bl.enforced()[0].rate == 1.0
    text = "他仿佛看见了光。" + "山路很长，" * 100 + "\n"  # 1 use in ~510 characters: ~2 per 千字
    assert [f.kind for f in _findings(bl, text)] == ["blacklist_density"]
    assert bl.to_data()["limited_rate"] == 1


def test_narration_only_words_count_in_narration_not_in_dialogue() -> None:
    bl = AiBlacklist.parse_data(_plugin())
    assert _findings(bl, "“然而我不信。”他说。\n") == []
    found = _findings(bl, "然而他没有回头。\n")
    assert [(f.text, f.count) for f in found] == [("然而", 1)]


def test_zero_tolerance_hits_are_high() -> None:
    bl = AiBlacklist.parse_data(_plugin())
    found = _findings(bl, "他走了——没有回头。\n")
    assert [(f.text, f.severity) for f in found] == [("——", "high")]


def test_paragraph_start_words_count_only_there() -> None:
    bl = AiBlacklist.parse_data(
        {"words": ["就在这时"], "categories": {"开场": {"position_only": "paragraph_start", "words": ["就在这时"]}}}
    )
    assert _findings(bl, "他说就在这时门开了。\n") == []
    assert [f.text for f in _findings(bl, "“就在这时，门开了。”\n")] == ["就在这时"]
    assert [f.text for f in _findings(bl, "山门前。\n\n　　就在这时，门开了。\n")] == ["就在这时"]


def test_a_platform_sensitive_category_is_medium() -> None:
    bl = AiBlacklist.parse_data({"words": [{"word": "吸毒", "category": "平台敏感"}]})
    assert [f.severity for f in _findings(bl, "他吸毒。\n")] == ["medium"]


def test_the_whitelist_is_never_enforced() -> None:
    bl = AiBlacklist.parse_data({"words": ["不禁", "仿佛"], "whitelist": [{"phrase": "仿佛", "reason": "口头禅"}]})
    assert [f.text for f in _findings(bl, "他仿佛不禁笑了。\n")] == ["不禁"]


def test_metrics_use_the_flags_too() -> None:
    bl = AiBlacklist.parse_data(_plugin())
    metrics = prose_metrics("“然而我不信。”他说。然而他没有回头。\n", blacklist_matcher(bl))
    assert metrics.blacklist.hits == {"然而": 1}


# ---------------------------------------------------------------- the refiner


def test_a_refiner_edit_adding_a_listed_phrase_or_shape_is_rejected() -> None:
    bl = AiBlacklist.parse_data({"words": ["深吸一口气", "一股…涌上心头", {"word": "仿佛", "tier": "limited"}]})
    text = "他站在门口。她转身离开。风很冷。\n"
    edits = [
        RefineEdit(original="他站在门口", refined="他深吸一口气，站在门口"),
        RefineEdit(original="她转身离开", refined="一股酸楚涌上心头，她转身离开"),
        RefineEdit(original="风很冷", refined="风仿佛刀子"),
    ]
    result = apply_edits(text, edits, blacklist=blacklist_matcher(bl), cap_ratio=1.0)
    assert [d.drop_reason for d in result.decisions] == ["adds_blacklist"] * 3
    assert result.text == text


def test_banned_removals_fill_the_budget_before_limited_ones() -> None:
    bl = AiBlacklist.parse_data({"words": [{"word": "仿佛", "tier": "limited"}, "深吸一口气"]})
    text = "他仿佛醒了。" + "山" * 80 + "他深吸一口气。\n"
    edits = [
        RefineEdit(original="他仿佛醒了", refined="他醒了"),  # a limited removal listed first
        RefineEdit(original="他深吸一口气", refined="他吸气"),  # a banned removal
    ]
    result = apply_edits(text, edits, blacklist=blacklist_matcher(bl), cap_ratio=0.07)  # room for one
    assert [d.status for d in result.decisions] == ["dropped", "applied"]
    assert result.decisions[0].drop_reason == "over_cap" and result.decisions[1].blacklist_removed == ("深吸一口气",)


# ---------------------------------------------------------------- the default list and the prompts


def test_the_default_list_is_the_template_and_every_entry_is_usable() -> None:
    bl = default_blacklist()
    template = Path(__file__).parents[1] / "templates" / "project" / "ai-blacklist.json"
    assert bl.to_data() == AiBlacklist.parse_data(json.loads(template.read_text(encoding="utf-8"))).to_data()
    enforced = bl.enforced()
    assert len(enforced) == len({e.word for e in enforced})
    categories = {e.category for e in enforced}
    assert {"平台敏感", "结构套路", "连接词", "段首套话"} <= categories
    assert {"忍不住", "不禁", "仿佛"} <= {e.word for e in enforced if e.tier == "limited"}  # ordinary words: limited
    matcher = blacklist_matcher(bl)
    assert not matcher.problems
    # a longer listed phrase and its part count once; the partial forms of 嘴角勾起 are caught
    assert matcher.count("时间仿佛静止了。") == {"时间仿佛静止了": 1}
    assert matcher.count("他嘴角微微勾起。") == {"嘴角…勾起": 1}
    assert matcher.count("一股暖意涌上心头。") == {"一股…涌上心头": 1}


def test_the_prompt_text_lists_banned_first_then_the_rest() -> None:
    text = blacklist_rules(default_blacklist(), 2500)
    lines = text.splitlines()
    assert lines[0].startswith("禁用（正文中一次都不要出现）：") and "深吸一口气" in lines[0]
    assert any(line.startswith("平台敏感词") for line in lines)
    assert any(line.startswith("叙述中禁用") and "然而" in line for line in lines)
    assert any(line.startswith("段首禁用") and "就在这时" in line for line in lines)
    assert any(line.startswith("限用（每个每千字最多 2 次，按本章 2500 字算，每个全章最多 5 次）") and "忍不住" in line
               for line in lines)
    assert len(text) < 1400  # a few hundred tokens of the stable prefix


def test_the_writer_prompt_of_the_sample_carries_the_banned_list(tmp_path: Path) -> None:
    from pipeline.context import writer_context
    from studio.init_project import init_project
    from studio.models.settings import Settings
    from studio.project import Project

    project = Project.open(init_project(tmp_path / "novel", sample=True))
    bundle = writer_context(project, Settings(), 3)
    rules = blacklist_rules(project.ai_blacklist, Settings().writing.chapter_min_chars)  # writer v2
    assert bundle.variables["blacklist_rules"] == rules
    assert rules.splitlines()[0] in bundle.section("stable")


def test_a_category_only_word_is_still_a_notice(tmp_path: Path) -> None:
    from studio.project import Project

    root = tmp_path / "plugin"
    shutil.copytree(PLUGIN, root)
    data = _plugin()
    data["categories"]["time_cliche"].append("刹那间")
    (root / "ai-blacklist.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    notices = Project.open(root).notices(lang="en")
    assert [n.json_path for n in notices if "刹那间" in n.reason] == ["$.categories.time_cliche[1]"]


def test_the_sample_novel_has_its_own_list_on_top_of_the_default(tmp_path: Path) -> None:
    from studio.init_project import init_project
    from studio.project import Project

    project = Project.open(init_project(tmp_path / "sample", sample=True))
    own = project.ai_blacklist
    default = default_blacklist()
    assert set(default.listed_words()) < set(own.listed_words())
    assert {"灯火摇曳", "浓雾…吞没"} <= set(own.effective_words())
    assert "就在这时" not in own.effective_words()  # the author keeps it (whitelist with a reason)
    for chapter in (1, 2):
        text = project.paths.chapter(chapter).read_text(encoding="utf-8")
        # chapter 2's single 忍不住 is a limited use under its rate: no finding (it used to be banned outright)
        assert _findings(own, text) == [], chapter
    assert [f.text for f in _findings(default, project.paths.chapter(1).read_text(encoding="utf-8"))] == ["就在这时"]


def test_a_zero_tolerance_hit_caps_the_judges_style_score() -> None:
    from pipeline.agents.judge_calibration import style_cap_reason

    bl = AiBlacklist.parse_data(_plugin())
    sample = Path(__file__).parents[1] / "templates" / "sample" / "chapters" / "chapter-002.md"
    plain = sample.read_text(encoding="utf-8").replace("——", "，")
    assert style_cap_reason(prose_metrics(plain, blacklist_matcher(bl))) is None
    reason = style_cap_reason(prose_metrics(plain + "\n他走了——没有回头。\n", blacklist_matcher(bl)))
    assert reason == "零容忍用语「——」出现 1 次"
