"""chapter-writer v2: the blacklist block is tier-aware (pipeline.blacklist_prompt), rendered from the project's
own `ai-blacklist.json`; v1 keeps its own wording for the projects pinned to it, around the same block."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.blacklist_prompt import blacklist_rules, chapter_allowance
from pipeline.context import writer_context
from pipeline.prompts_registry import installed_registry
from studio.models.blacklist import AiBlacklist
from studio.models.settings import Settings
from studio.paths import ProjectPaths
from studio.project import Project
from studio.prompt_pins import latest_pins, read_pins

WRITER = "chapter-writer"


def _with_blacklist(root: Path, data: dict[str, object]) -> Project:
    ProjectPaths(root).ai_blacklist.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return Project.open(root)


def _writer_text(project: Project, version: int, settings: Settings | None = None) -> str:
    registry = installed_registry().with_pins({WRITER: version})
    bundle = writer_context(project, settings or Settings(), 3, registry=registry)
    assert bundle.prompt_version == version
    return bundle.text


def _block(text: str) -> str:
    return text.split("<blacklist_rules>", 1)[1].split("</blacklist_rules>", 1)[0].strip()


def test_a_new_project_is_pinned_to_the_v2_writer(sample: Path) -> None:
    assert installed_registry().latest(WRITER).version >= 2
    assert read_pins(ProjectPaths(sample)) == latest_pins()
    assert Project.open(sample) and writer_context(Project.open(sample), Settings(), 3).prompt_version >= 2


def test_banned_entries_are_never_allowed(sample: Path) -> None:
    project = _with_blacklist(sample, {"version": 2, "words": ["嘴角上扬", "不禁"]})
    text = _writer_text(project, 2)
    assert _block(text) == "禁用（正文中一次都不要出现）：嘴角上扬、不禁"
    assert "一个都不要出现" not in text  # the v1 wording that was wrong for limited entries


def test_limited_entries_say_their_rate_and_what_it_allows_in_a_chapter(sample: Path) -> None:
    project = _with_blacklist(
        sample,
        {
            "version": 2,
            "limited_rate": 3,
            "words": [{"word": "忍不住", "tier": "limited", "rate": 1.5}, {"word": "莫名", "tier": "limited"}],
        },
    )
    settings = Settings.model_validate({"writing": {"chapter_min_chars": 2400, "chapter_max_chars": 3200}})
    block = _block(_writer_text(project, 2, settings))
    assert block.splitlines() == [
        "限用（每个每千字最多 1.5 次，按本章 2400 字算，每个全章最多 3 次）：忍不住",
        "限用（每个每千字最多 3 次，按本章 2400 字算，每个全章最多 7 次）：莫名",
    ]
    assert "禁用" not in block


def test_a_rate_below_one_use_per_chapter_says_better_not_at_all() -> None:
    blacklist = AiBlacklist.parse_data({"words": [{"word": "蓦然", "tier": "limited", "rate": 0.2}]}, "t")
    assert blacklist_rules(blacklist, 2500) == "限用（每个每千字最多 0.2 次，本章最好不用）：蓦然"
    assert chapter_allowance(0.2, 2500) == 0 and chapter_allowance(1.2, 2500) == 3 and chapter_allowance(3, 2500) == 7


def test_narration_only_and_position_only_entries_say_where_they_count(sample: Path) -> None:
    project = _with_blacklist(
        sample,
        {
            "version": 2,
            "words": [
                {"word": "然而", "category": "连接词"},
                {"word": "总之", "category": "收尾"},
                {"word": "只见", "category": "段首"},
                {"word": "仿佛", "category": "比喻"},
            ],
            "categories": {
                "连接词": {"narration_only": True},
                "收尾": {"narration_only": True, "tier": "limited", "rate": 1},
                "段首": {"position_only": "paragraph_start"},
                "比喻": {"position_only": "sentence_start", "tier": "limited", "rate": 2},
            },
        },
    )
    settings = Settings.model_validate({"writing": {"chapter_min_chars": 3000, "chapter_max_chars": 4000}})
    assert _block(_writer_text(project, 2, settings)).splitlines() == [
        "叙述中禁用（叙述文字里一次都不要出现；人物对话里可以自然地说）：然而",
        "段首禁用（不要放在段首，别处可以用）：只见",
        "叙述中限用（每个每千字最多 1 次，按本章 3000 字算，每个全章最多 3 次；对话里不计）：总之",
        "句首限用（每个每千字最多 2 次，按本章 3000 字算，每个全章最多 6 次）：仿佛",
    ]


def test_zero_tolerance_sensitive_and_semantic_categories(sample: Path) -> None:
    project = _with_blacklist(
        sample,
        {
            "version": 2,
            "words": [
                {"word": "血腥", "category": "平台敏感"},
                {"word": "禁词", "category": "红线"},
                {"word": "少用词", "category": "红线", "tier": "limited", "rate": 2},
                "不禁",
            ],
            "whitelist": ["不禁"],
            "categories": {
                "红线": {"zero_tolerance": True},
                "套路比喻": {"semantic_match": True, "patterns": ["像X一样"]},
            },
        },
    )
    assert _block(_writer_text(project, 2)).splitlines() == [
        "零容忍（出现一次本章即判不合格，一次都不能有）：禁词、少用词",
        "平台敏感词（审核会拦，一次都不要出现，需要时换成含蓄说法）：血腥",
        "避免的句式（包括换了词的同类说法）：像X一样",
    ]  # the whitelisted word is nowhere


def test_the_template_explains_every_tier_and_an_empty_list_renders(sample: Path) -> None:
    project = _with_blacklist(sample, {"version": 2, "words": []})
    text = _writer_text(project, 2)
    assert _block(text) == ""
    for rule in ("零容忍、禁用、平台敏感词：正文中一次都不要出现", "叙述中禁用", "限用：可以用，但每个词不超过括号里的次数"):
        assert rule in text


@pytest.mark.parametrize("version", [1])
def test_v1_keeps_its_wording_for_projects_pinned_to_it(sample: Path, version: int) -> None:
    project = _with_blacklist(sample, {"version": 2, "words": [{"word": "忍不住", "tier": "limited", "rate": 1.5}]})
    text = _writer_text(project, version)
    block = "限用（每个每千字最多 1.5 次，按本章 2500 字算，每个全章最多 3 次）：忍不住"  # the one rendering
    assert "一个都不要出现" in text and f"<ai_blacklist>\n{block}\n</ai_blacklist>" in text
    assert "<blacklist_rules>" not in text


def test_the_blacklist_is_in_the_stable_section(sample: Path) -> None:
    bundle = writer_context(Project.open(sample), Settings(), 3)
    stable = dict((s.tier, s.text) for s in bundle.sections)["stable"]
    assert "<blacklist_rules>" in stable and "嘴角…上扬" in stable
