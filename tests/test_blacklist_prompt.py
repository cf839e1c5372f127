"""One rendering of the AI blacklist for every prompt (`pipeline.blacklist_prompt.blacklist_rules`): the writer
(v1 and v2), the refiner, the judge (v1 and v2) and the fixer hold the same block for the same list, tiers and
their rules shown, in the stable (cached) section."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.blacklist_prompt import blacklist_rules
from pipeline.context import (
    RevisionInput,
    fixer_context,
    judge_context,
    refiner_context,
    writer_context,
)
from pipeline.prompts_registry import installed_registry
from studio.models.settings import Settings
from studio.paths import ProjectPaths
from studio.project import Project

BLACKLIST = {
    "version": 2,
    "limited_rate": 3,
    "words": [
        "嘴角上扬",
        {"word": "血腥", "category": "平台敏感"},
        {"word": "然而", "category": "连接词"},
        {"word": "就在这时", "category": "段首"},
        {"word": "忍不住", "tier": "limited", "rate": 1.5},
        {"word": "禁词", "category": "红线"},
    ],
    "categories": {
        "连接词": {"narration_only": True},
        "段首": {"position_only": "paragraph_start"},
        "红线": {"zero_tolerance": True},
        "套路比喻": {"semantic_match": True, "patterns": ["像X一样"]},
    },
}
TIERS = [
    "零容忍（出现一次本章即判不合格，一次都不能有）：禁词",
    "禁用（正文中一次都不要出现）：嘴角上扬",
    "平台敏感词（审核会拦，一次都不要出现，需要时换成含蓄说法）：血腥",
    "叙述中禁用（叙述文字里一次都不要出现；人物对话里可以自然地说）：然而",
    "段首禁用（不要放在段首，别处可以用）：就在这时",
    "限用（每个每千字最多 1.5 次，按本章 3000 字算，每个全章最多 4 次）：忍不住",
    "避免的句式（包括换了词的同类说法）：像X一样",
]
TEXT = "# 第3章 雾\n\n林照走进雾里。\n\n他回头看了一眼。\n"


def _project(root: Path) -> Project:
    ProjectPaths(root).ai_blacklist.write_text(json.dumps(BLACKLIST, ensure_ascii=False), encoding="utf-8")
    return Project.open(root)


def _settings() -> Settings:
    return Settings.model_validate({"writing": {"chapter_min_chars": 3000, "chapter_max_chars": 4000}})


def _block(text: str, tag: str) -> str:
    return text.split(f"<{tag}>", 1)[1].split(f"</{tag}>", 1)[0].strip()


def test_the_rendering_shows_every_tier_with_its_rule(sample: Path) -> None:
    assert blacklist_rules(_project(sample).ai_blacklist, 3000).splitlines() == TIERS


@pytest.mark.parametrize(
    ("agent", "prompt_id", "version", "tag"),
    [
        ("writer", "chapter-writer", 1, "ai_blacklist"),
        ("writer", "chapter-writer", 2, "blacklist_rules"),
        ("refiner", "style-refiner", 1, "ai_blacklist"),
        ("judge", "quality-judge", 1, "ai_blacklist"),
        ("judge", "quality-judge", 2, "ai_blacklist"),
        ("fixer", "chapter-fixer", 1, "ai_blacklist"),
    ],
)
def test_every_agent_holds_the_same_rendering_in_its_stable_section(
    sample: Path, agent: str, prompt_id: str, version: int, tag: str
) -> None:
    project, settings = _project(sample), _settings()
    registry = installed_registry().with_pins({prompt_id: version})
    if agent == "writer":
        bundle = writer_context(project, settings, 3, registry=registry)
    elif agent == "refiner":
        bundle = refiner_context(project, settings, 3, TEXT, registry=registry)
    elif agent == "judge":
        bundle = judge_context(project, settings, 3, TEXT, registry=registry)
    else:
        revision = RevisionInput("revision", TEXT, ["第 1 段：加动作"], [], [])
        bundle = fixer_context(project, settings, 3, revision, registry=registry)
    assert bundle.prompt_version == version
    stable = dict((s.tier, s.text) for s in bundle.sections)["stable"]
    assert _block(stable, tag).splitlines() == TIERS
