"""The author's brief reaches every agent, in the cached (stable) tier (seed 000 8.3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.agents.protocol import RevisionInput
from pipeline.context import (
    EMPTY_BRIEF,
    ContextBundle,
    judge_context,
    refiner_context,
    request_from_bundle,
    reviser_context,
    summarizer_context,
    writer_context,
)
from pipeline.prompts_registry import PromptRegistry
from studio.author_brief import clean_brief, load_brief, template_hint_lines
from studio.init_project import init_project
from studio.models.settings import Settings
from studio.project import Project

SAMPLE_BRIEF_LINE = "基调是\"冷雾里的热汤\""
CHAPTER_TEXT = "# 第3章 雾里\n\n沈照把灯举高了一点。\n"


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Project:
    root = tmp_path_factory.mktemp("sample") / "novel"
    init_project(root, sample=True)
    return Project.open(root)


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Project:
    root = tmp_path_factory.mktemp("fresh") / "我的小说"
    init_project(root)
    return Project.open(root)


def _all_bundles(project: Project, chapter: int) -> list[ContextBundle]:
    settings = Settings()
    revision = RevisionInput(kind="revision", previous_text=CHAPTER_TEXT, required_fixes=["第 1 段：加动作"])
    return [
        writer_context(project, settings, chapter),
        writer_context(
            project, settings, chapter, rewrite=RevisionInput(kind="rewrite", previous_text="", required_fixes=[])
        ),
        reviser_context(project, settings, chapter, revision),
        summarizer_context(project, settings, chapter, CHAPTER_TEXT, ""),
        refiner_context(project, settings, chapter, CHAPTER_TEXT),
        judge_context(project, settings, chapter, CHAPTER_TEXT),
    ]


# ---------------------------------------------------------------------------------------------- cleaning


def test_template_brief_alone_is_empty(fresh: Project) -> None:
    brief = load_brief(fresh.paths.brief)
    assert brief.is_empty
    # init filled in a title; a title alone is nothing to write from
    assert [heading for heading, _ in brief.sections] == ["书名"]
    assert not any(hint in brief.text for hint in ("读者为什么追这本书", "例："))


def test_hint_lines_come_from_the_template() -> None:
    hints = template_hint_lines()
    assert len(hints) >= 10
    assert any("读者为什么追这本书" in h for h in hints)


def test_clean_brief_keeps_what_the_author_wrote() -> None:
    text = (
        "# 创作纲领：《灯》\n\n"
        "> 这是整部小说的“宪法”，所有智能体每次写作前都会读它。请保持精简（建议不超过 1000 字），\n"
        "## 书名\n\n灯\n\n"
        "## 题材\n\n> 例：东方玄幻 / 都市异能 / 历史架空 / 科幻末世 / 古言 / 悬疑……可写主类型 + 子类型。\n\n"
        "## 核心卖点\n\n> 读者为什么追这本书？一到三条，越具体越好。例：“废柴逆袭 + 系统流，每卷一次身份反转”。\n"
        "废柴逆袭。\n> 师父说：“灯不灭，人不散。”\n\n"
        "## 禁忌与雷区\n\n不写虐猫。\n"
    )
    brief = clean_brief(text)
    assert not brief.is_empty
    assert [h for h, _ in brief.sections] == ["书名", "核心卖点", "禁忌与雷区"]
    assert "## 题材" not in brief.text  # a section with only its hint is left out, heading included
    assert "例：" not in brief.text and "宪法" not in brief.text
    assert "> 师父说：“灯不灭，人不散。”" in brief.text  # the author's own quote line is kept verbatim
    assert brief.text.startswith("# 创作纲领：《灯》")


def test_title_only_brief_is_empty() -> None:
    assert clean_brief("# 创作纲领：灯\n\n## 书名\n\n灯\n\n## 题材\n\n").is_empty
    assert clean_brief("").is_empty
    assert not clean_brief("只有一句话：废柴逆袭。").is_empty


def test_long_brief_is_capped_visibly() -> None:
    brief = clean_brief("## 主角\n" + "沈照" * 3000, max_chars=500)
    assert brief.truncated and len(brief.text) < 600 and brief.text.endswith("以下从略）")


def test_unreadable_brief_is_empty(tmp_path: Path) -> None:
    path = tmp_path / "brief.md"
    path.write_bytes(b"\xff\xfe\x00bad")
    assert load_brief(path).is_empty
    assert load_brief(tmp_path / "missing.md").is_empty


# ---------------------------------------------------------------------------------------------- prompts


FOLLOW_UP_TURNS = frozenset({"repair", "chapter-length", "judge-evidence"})


def test_every_agent_prompt_declares_the_brief_in_its_stable_tier() -> None:
    registry = PromptRegistry.load()
    for template in registry:
        if template.id in FOLLOW_UP_TURNS:  # appended to a request that already carries the brief
            continue
        assert "project_brief" in template.variables, template.id
        tiers = [tier for tier, text in template.sections if "{project_brief}" in text]
        assert tiers == ["stable"], (template.id, tiers)


def test_sample_brief_reaches_every_writing_agent_in_the_system_block(sample: Project) -> None:
    for bundle in _all_bundles(sample, 3):
        assert SAMPLE_BRIEF_LINE in bundle.section("stable"), bundle.agent
        assert SAMPLE_BRIEF_LINE not in bundle.section("volume") + bundle.section("chapter"), bundle.agent
        request = request_from_bundle(bundle, agent=bundle.agent, model="m", max_tokens=10)
        assert len(request.system) == 1 and request.system[0].cache
        assert SAMPLE_BRIEF_LINE in request.system[0].text


def _through_brief(bundle: ContextBundle) -> str:
    stable = bundle.section("stable")
    return stable[: stable.index("</project_brief>")]


def test_stable_prefix_through_the_brief_is_byte_identical_between_chapters(sample: Project) -> None:
    # (the rest of the stable tier still carries per-chapter marks: issue 9's cache discipline)
    for third, fourth in zip(_all_bundles(sample, 3), _all_bundles(sample, 4), strict=True):
        assert SAMPLE_BRIEF_LINE in _through_brief(third)
        assert _through_brief(third) == _through_brief(fourth), third.agent
    refiner3, refiner4 = _all_bundles(sample, 3)[4], _all_bundles(sample, 4)[4]
    assert refiner3.section("stable") == refiner4.section("stable")


def test_brief_edit_changes_the_stable_tier(tmp_path: Path) -> None:
    root = init_project(tmp_path / "novel", sample=True)
    project = Project.open(root)
    before = writer_context(project, Settings(), 3).section("stable")
    brief = root / "brief.md"
    brief.write_text(brief.read_text(encoding="utf-8") + "\n## 禁忌与雷区\n不写主角黑化。\n", encoding="utf-8")
    after = writer_context(project, Settings(), 3).section("stable")
    assert "不写主角黑化。" in after and "不写主角黑化。" not in before


def test_empty_brief_renders_a_note_not_the_template(fresh: Project) -> None:
    for bundle in _all_bundles(fresh, 1):
        stable = bundle.section("stable")
        assert EMPTY_BRIEF in stable, bundle.agent
        assert "读者为什么追这本书" not in stable
