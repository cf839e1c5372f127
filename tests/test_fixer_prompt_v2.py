"""chapter-fixer v2 (issue 11): the local revision's blacklist rule follows the tiers, as the writer v2 does; the
v1 wording ("一个都不要出现", wrong for limited entries) stays only for the projects pinned to v1."""

from __future__ import annotations

import json
from pathlib import Path

from pipeline.agents.protocol import RevisionInput
from pipeline.context import fixer_context
from pipeline.prompts_registry import installed_registry
from studio.models.settings import Settings
from studio.paths import ProjectPaths
from studio.project import Project
from studio.prompt_pins import read_pins

FIXER = "chapter-fixer"
BLACKLIST = {
    "version": 2,
    "words": ["嘴角上扬", {"word": "忍不住", "tier": "limited", "rate": 1.5}],
}
REVISION = RevisionInput("revision", "# 第3章 雾\n\n沈照忍不住笑了。\n", ["第 1 段：把笑改成动作"])


def _fixer_text(root: Path, version: int | None) -> str:
    ProjectPaths(root).ai_blacklist.write_text(json.dumps(BLACKLIST, ensure_ascii=False), encoding="utf-8")
    registry = installed_registry() if version is None else installed_registry().with_pins({FIXER: version})
    bundle = fixer_context(Project.open(root), Settings(), 3, REVISION, registry=registry)
    if version is not None:
        assert bundle.prompt_version == version
    return bundle.text


def test_the_fixer_reads_the_tiers_and_may_keep_a_limited_word(sample: Path) -> None:
    assert read_pins(ProjectPaths(sample)) is not None
    assert read_pins(ProjectPaths(sample)).get(FIXER) == installed_registry().latest(FIXER).version  # type: ignore[union-attr]
    text = _fixer_text(sample, None)
    assert "一个都不要出现" not in text
    block = text.split("<blacklist_rules>", 1)[1].split("</blacklist_rules>", 1)[0]
    assert "禁用（正文中一次都不要出现）：嘴角上扬" in block
    assert "限用（每个每千字最多 1.5 次" in block and "忍不住" in block
    assert "原文里本来就有的限用词不必为此改掉" in text
    assert "出现次数都不能多于它所替换的原文片段" in text  # what refine_edits.apply_edits enforces


def test_a_project_pinned_to_v1_keeps_its_wording(sample: Path) -> None:
    text = _fixer_text(sample, 1)
    assert "一个都不要出现" in text and "<ai_blacklist>" in text
