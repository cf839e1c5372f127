"""Context assembly on the sample novel and on synthetic projects (seed 002 8.3-8.5)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from pipeline.agents.protocol import RevisionInput
from pipeline.agents.runner import is_key_chapter
from pipeline.context import (
    ContextBundle,
    chapter_info,
    judge_context,
    refiner_context,
    request_from_bundle,
    reviser_context,
    summarizer_context,
    writer_context,
)
from studio.init_project import init_project
from studio.models.settings import Settings
from studio.project import Project

BENCH = Path(__file__).resolve().parent.parent / "bench"
WRITER_BUDGET_TOKENS = 25_000


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Project:
    root = tmp_path_factory.mktemp("sample") / "novel"
    init_project(root, sample=True)
    return Project.open(root)


@pytest.fixture(scope="module")
def settings() -> Settings:
    return Settings()


def _load_synth() -> ModuleType:
    spec = importlib.util.spec_from_file_location("novel_studio_bench_synth_ctx", BENCH / "synth.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _block(text: str, tag: str) -> str:
    return text[text.index(f"<{tag}>") : text.index(f"</{tag}>")]


def test_writer_active_storyline_memory_comes_first(sample: Project, settings: Settings) -> None:
    bundle = writer_context(sample, settings, 3)
    chapter_tier = bundle.section("chapter")
    assert bundle.variables["storyline_id"] == "fog-tide"
    assert bundle.variables["storyline_context"].startswith('<storyline id="fog-tide"')
    own = chapter_tier.index("fog-tide 记忆")
    # the transition target (main-arc) is an adjacent line: its memory follows the active one, in its own block
    assert own < chapter_tier.index("main-arc 记忆")
    assert own < chapter_tier.index("<chapter_outline>")
    assert "main-arc 记忆" not in _block(chapter_tier, "active_storyline")
    assert "main-arc 记忆" in _block(chapter_tier, "other_storylines")


def test_concurrent_state_is_one_line_per_frozen_storyline(sample: Project, settings: Settings) -> None:
    bundle = writer_context(sample, settings, 5)
    assert bundle.variables["storyline_id"] == "main-arc"
    concurrent = bundle.variables["concurrent_state"]
    assert concurrent.startswith("- fog-tide：黑衣客向顾远舟索要")
    assert "fog-tide 记忆" not in bundle.variables["storyline_context"]  # frozen line: no memory
    assert "main-arc 记忆" in bundle.variables["storyline_context"]


def test_convergence_chapter_injects_involved_lines(sample: Project, settings: Settings) -> None:
    bundle = writer_context(sample, settings, 9)
    assert "fog-tide 记忆" in bundle.variables["storyline_context"]  # the active line
    assert "main-arc 记忆" not in bundle.variables["storyline_context"]
    assert "main-arc 记忆" in bundle.variables["other_storylines"]
    assert bundle.variables["other_storylines"].startswith("（本章是交汇章")
    assert chapter_info(sample, 9).is_convergence
    judge = judge_context(sample, settings, 9, "# 第9章\n\n正文。")
    assert judge.variables["is_convergence_chapter"] == "是"


def test_hard_rules_are_prohibitions(sample: Project, settings: Settings) -> None:
    bundle = writer_context(sample, settings, 3)
    rules = bundle.variables["world_rules"].splitlines()
    w1 = next(line for line in rules if "W-001" in line)
    w3 = next(line for line in rules if "W-003" in line)
    assert "禁止" in w1
    assert "禁止" not in w3 and "例外" in w3
    # W-001 is the contract's required rule: named in the chapter tier, never marked in the cached stable tier
    assert "本章重点" not in bundle.section("stable")
    assert bundle.variables["focus_rules"].startswith("- W-001［硬性］")
    assert "W-001" in _block(bundle.section("chapter"), "focus_rules")


def test_character_contracts_of_the_chapter_only(sample: Project, settings: Settings) -> None:
    contracts = writer_context(sample, settings, 5).variables["character_contracts"]
    assert "C-SHENZHAO-001" in contracts
    assert "C-GUYUANZHOU-001" not in contracts
    assert "语癖" in contracts
    ch3 = writer_context(sample, settings, 3).variables["character_contracts"]
    assert ch3.index('id="gu-yuan-zhou"') < ch3.index('id="shen-zhao"')  # POV first


def test_no_contract_falls_back_to_recent_characters(sample: Project, settings: Settings) -> None:
    info = chapter_info(sample, 11)  # beyond the outline and the contracts
    assert info.contract is None
    assert set(info.character_ids) == {"shen-zhao", "xu-qing-he", "gu-yuan-zhou"}


def test_foreshadowing_tasks_from_outline_and_contract(sample: Project, settings: Settings) -> None:
    data = writer_context(sample, settings, 1).data
    assert {"id": "bell-in-fog", "action": "planted"} in data["foreshadowing"]
    assert {"id": "grandfather-ledger", "action": "planted"} in data["foreshadowing"]
    six = writer_context(sample, settings, 6)
    assert {"id": "bell-in-fog", "action": "resolved"} in six.data["foreshadowing"]
    assert "回收 bell-in-fog" in six.variables["foreshadowing_tasks"]


def test_offline_data_shape(sample: Project, settings: Settings) -> None:
    data = writer_context(sample, settings, 3, note="多写雨").data
    assert data["pov"] == {"id": "gu-yuan-zhou", "display_name": "顾远舟"}
    assert data["location"] == "青石巷·远舟旧书店"
    assert data["min_chars"] == 2500 and data["max_chars"] == 3500
    assert data["note"] == "多写雨"
    assert "不禁" in data["blacklist"]
    assert {"id": "gu-yuan-zhou", "display_name": "顾远舟"} in data["characters"]
    json.dumps(data, ensure_ascii=False)  # JSON-safe for the pipeline log


def _all(project: Project, settings: Settings) -> list[ContextBundle]:
    text = "# 第3章 旧书店的熟客\n\n顾远舟不禁停下脚步。"
    revision = RevisionInput(kind="revision", previous_text=text, required_fixes=["第 1 段：加动作"])
    return [
        writer_context(project, settings, 3, note="多写雨"),
        reviser_context(project, settings, 3, revision),
        summarizer_context(project, settings, 3, text, "- 无"),
        refiner_context(project, settings, 3, text),
        judge_context(project, settings, 3, text, cross_references=["沈照（character，传闻）"]),
    ]


def test_assembly_is_byte_stable_and_json_sorted(sample: Project, settings: Settings) -> None:
    first = _all(sample, settings)
    second = _all(Project.open(sample.root), settings)
    for a, b in zip(first, second, strict=True):
        assert a.text.encode() == b.text.encode()
        assert a.variables == b.variables
    writer = first[0]
    for name in ("style_profile", "current_state"):
        value = writer.variables[name]
        assert value == json.dumps(json.loads(value), sort_keys=True, ensure_ascii=False, separators=(", ", ": "))
    assert writer.variables["chapter_contract"].startswith("开写时已成立")  # a Chinese checklist, not JSON


def test_other_agents_variables(sample: Project, settings: Settings) -> None:
    writer, reviser, summarizer, refiner, judge = _all(sample, settings)
    assert "第 1 段：加动作" in reviser.variables["required_fixes"]
    assert json.loads(summarizer.variables["entity_id_map"])["characters"]["shen-zhao"] == "沈照"
    assert summarizer.variables["storyline_memory"].startswith("# fog-tide 记忆")
    assert refiner.variables["max_edit_chars"] == str(len(refiner.variables["chapter_draft"]) * 15 // 100)
    assert json.loads(judge.variables["style_metrics"])["blacklist_hits"] == {"不禁": 1}
    assert "沈照（character，传闻）" in judge.variables["cross_references"]
    assert judge.variables["prev_summary"].startswith("第2章：")
    assert writer.variables["recent_summaries"].startswith("第1章：")


def test_request_tiers_and_cache_flags(sample: Project, settings: Settings) -> None:
    bundle = writer_context(sample, settings, 3)
    request = request_from_bundle(bundle, agent="chapter_writer", model="m", max_tokens=100)
    assert [b.cache for b in request.system] == [True]
    blocks = request.messages[0]["content"]
    assert [("cache_control" in b) for b in blocks] == [True, False]
    assert blocks[0]["text"] == bundle.section("volume")
    assert request.prompt_id == "chapter-writer" and request.prompt_version == str(bundle.prompt_version)
    assert request.context["chapter"] == 3


def test_key_chapters(sample: Project) -> None:
    assert [n for n in range(1, 11) if is_key_chapter(sample, n)] == [1, 9, 10]


def test_sample_writer_prompt_within_budget(sample: Project, settings: Settings) -> None:
    for n in range(3, 11):
        assert writer_context(sample, settings, n).estimated_tokens < WRITER_BUDGET_TOKENS


def test_writer_prompt_stays_flat_as_the_novel_grows(tmp_path: Path, settings: Settings) -> None:
    synth = _load_synth()
    sizes = {}
    for chapters in (10, 60):
        root = tmp_path / f"synth-{chapters}"
        synth.generate_project(root, chapters, chars_per_chapter=600, seed=1)
        project = Project.open(root)
        sizes[chapters] = writer_context(project, settings, chapters + 1).estimated_tokens
    assert max(sizes.values()) < WRITER_BUDGET_TOKENS
    assert abs(sizes[60] - sizes[10]) <= 0.15 * sizes[10], sizes
