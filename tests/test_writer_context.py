"""What the writer sees (issue 9 item 1) and the cache discipline of every agent's prompt (item 6), rendered on
the sample novel (chapters 1-2 written, outline and contracts of 10; chapters 3, 7, 9 on fog-tide)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pipeline.agents.protocol import RevisionInput
from pipeline.agents.requests import AgentRequests
from pipeline.agents.runner import prefix_hash
from pipeline.context import default_registry, writer_context
from pipeline.context_pieces import (
    ANCHOR_MAX_TOKENS,
    ENDING_MAX_CHARS,
    ENDING_MIN_CHARS,
    body_text,
    chapter_ending,
    contract_checklist,
    numbered_paragraphs,
    style_anchors,
)
from pipeline.providers.base import ModelRequest
from pipeline.tokens import estimate_tokens
from studio.init_project import init_project
from studio.models.contract import ChapterContract
from studio.models.settings import Settings
from studio.project import Project

ANCHOR_1 = "雾是从巷子尽头漫过来的。先是冷，再是声音：铁皮招牌哐当一响，像有人拿指节敲了一下。"
ANCHOR_2 = "“行吧。”沈照把电动车往墙边一靠，“二十八块，送到门口，签收算我的。”"


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("w9") / "novel"
    init_project(root, sample=True)
    return root


@pytest.fixture
def root(template: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "novel"
    shutil.copytree(template, copy)
    return copy


def _block(text: str, tag: str) -> str:
    start = text.index(f"<{tag}>") + len(tag) + 2
    return text[start : text.index(f"</{tag}>")].strip()


def _chapter_three(root: Path) -> str:
    text = "# 第3章 旧书店的熟客\n\n" + "\n\n".join(
        f"顾远舟把第{i}本旧书推回架上，台灯的光晃了一下。他没有回头，只说：“不急，不急。”" for i in range(1, 40)
    ) + "\n\n门外的铃声停了。\n"
    (root / "chapters" / "chapter-003.md").write_text(text, encoding="utf-8")
    return text


# ------------------------------------------------------------------------------------------ pieces


def test_ending_is_verbatim_and_starts_at_a_paragraph() -> None:
    paragraphs = [f"第{i}段，沈照数了数配送费，一共二十八块。" for i in range(1, 80)]
    chapter = "# 第1章 标题\n\n" + "\n\n".join(paragraphs) + "\n"
    ending = chapter_ending(chapter)
    assert ENDING_MIN_CHARS <= len(ending) <= ENDING_MAX_CHARS
    assert ending.endswith(paragraphs[-1])
    assert ending.split("\n")[0] in paragraphs  # whole paragraphs, never cut inside one
    assert ending in body_text(chapter)


def test_ending_of_one_long_paragraph_starts_after_a_sentence_end() -> None:
    chapter = "# 第1章\n\n" + "".join(f"他走了第{i}步，雾又厚了一层。" for i in range(1, 200))
    ending = chapter_ending(chapter)
    assert ENDING_MIN_CHARS <= len(ending) <= ENDING_MAX_CHARS
    assert ending.startswith("他走了第") and chapter.endswith(ending)


def test_short_chapter_is_given_whole() -> None:
    assert chapter_ending("# 第1章\n\n短短一段。\n\n又一段。\n") == "短短一段。\n又一段。"


def test_anchors_within_budget_and_from_either_field() -> None:
    assert style_anchors({"anchor_passages": [ANCHOR_1, ANCHOR_2, "第三段不要"]}) == [ANCHOR_1, ANCHOR_2]
    assert style_anchors({"style_exemplars": [{"text": ANCHOR_1}]}) == [ANCHOR_1]
    huge = "雾从巷口漫进来，灯火照出三丈远。" * 400
    cut = style_anchors({"anchor_passages": [huge, ANCHOR_2]})
    assert sum(estimate_tokens(p) for p in cut) <= ANCHOR_MAX_TOKENS
    assert cut and cut[0].endswith("。") and huge.startswith(cut[0])
    assert style_anchors({}) == []


def test_contract_checklist_is_chinese_with_ids() -> None:
    contract = ChapterContract.parse_data(
        {
            "chapter": 48,
            "preconditions": {"character_states": {"lu-chen": {"location": "魔都外城"}}},
            "objectives": [{"id": "OBJ-048-1", "type": "plot", "description": "陆尘发现密信"}],
            "postconditions": {"foreshadowing_updates": {"ancient-prophecy": "advanced"}},
            "acceptance_criteria": ["OBJ-048-1 在正文中明确体现"],
        }
    )
    text = contract_checklist(contract, {"lu-chen": "陆尘"})
    assert "- 陆尘：位置：魔都外城" in text
    assert "- [ ] OBJ-048-1（必须，情节）：陆尘发现密信" in text
    assert "- 伏笔 ancient-prophecy → 推进" in text
    assert "{" not in text
    assert contract_checklist(None, {}) == ""


def test_numbered_paragraphs_follow_the_checks_numbering() -> None:
    assert numbered_paragraphs("# 第1章 雾\n\n第一段。\n\n　　第二段。\n") == "# 第1章 雾\n\n【1】第一段。\n\n　　【2】第二段。"


# ------------------------------------------------------------------------------------------ the writer


def test_previous_ending_on_this_line_verbatim(root: Path) -> None:
    project = Project.open(root)
    chapter_two = (root / "chapters" / "chapter-002.md").read_text(encoding="utf-8")
    bundle = writer_context(project, Settings(), 4)  # main-arc; chapter 3 (fog-tide) not written yet
    ending = _block(bundle.section("chapter"), "previous_ending")
    assert ending.startswith("（第2章结尾，原文）\n")
    verbatim = ending.split("\n", 1)[1]
    assert ENDING_MIN_CHARS <= len(verbatim) <= ENDING_MAX_CHARS
    assert verbatim in body_text(chapter_two) and verbatim.endswith("他回头看，书店的台灯，灭了。")
    assert _block(bundle.section("chapter"), "transition_tail") == ""


def test_chapter_before_on_another_line_gives_a_labelled_tail(root: Path) -> None:
    _chapter_three(root)
    bundle = writer_context(Project.open(root), Settings(), 4)
    chapter = bundle.section("chapter")
    assert _block(chapter, "previous_ending").startswith("（第2章结尾，原文）")  # still the main-arc chapter
    tail = _block(chapter, "transition_tail")
    assert tail.startswith("（第3章属于故事线 fog-tide（雾潮暗涌）")
    assert tail.endswith("门外的铃声停了。") and len(tail.split("\n", 1)[1]) <= 240


def test_first_chapter_of_a_line_has_no_ending_but_the_tail(root: Path) -> None:
    chapter = writer_context(Project.open(root), Settings(), 3).section("chapter")
    assert _block(chapter, "previous_ending") == ""
    assert _block(chapter, "transition_tail").endswith("他回头看，书店的台灯，灭了。")


def test_pov_and_time_are_stated(root: Path) -> None:
    pov = _block(writer_context(Project.open(root), Settings(), 3).section("chapter"), "pov_and_time")
    assert "视角（POV）：顾远舟（gu-yuan-zhou）" in pov
    assert "十月初八·卯时" in pov and "地点：青石巷·远舟旧书店" in pov


def test_other_storylines_are_outside_the_active_one_and_marked_unknown(root: Path) -> None:
    for chapter in (3, 5, 7, 9):
        text = writer_context(Project.open(root), Settings(), chapter).section("chapter")
        active = _block(text, "active_storyline")
        own = "fog-tide" if chapter in (3, 7, 9) else "main-arc"
        other = "main-arc" if own == "fog-tide" else "fog-tide"
        assert f"{own} 记忆" in active and f"{other} 记忆" not in active
        assert f'id="{other}"' not in active
    header = writer_context(Project.open(root), Settings(), 3).section("chapter")
    assert "其他故事线（本章 POV 不知道这里的任何内容" in header


def test_state_of_every_active_character_is_kept(root: Path) -> None:
    state = json.loads(writer_context(Project.open(root), Settings(), 3).variables["current_state"])
    assert set(state["characters"]) == {"shen-zhao", "xu-qing-he", "gu-yuan-zhou"}


def test_anchor_passages_reach_the_stable_tier(root: Path) -> None:
    path = root / "style-profile.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["anchor_passages"] = [ANCHOR_1, ANCHOR_2]
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    bundle = writer_context(Project.open(root), Settings(), 4)
    anchors = _block(bundle.section("stable"), "style_anchors")
    assert ANCHOR_1 in anchors and ANCHOR_2 in anchors
    assert ANCHOR_1 not in bundle.variables["style_profile"]  # not twice


# ------------------------------------------------------------------------------------------ cache discipline


def _cached_prefix(request: ModelRequest) -> list[str]:
    """The text of every block up to and including the last cache breakpoint."""
    blocks = [(b.text, b.cache) for b in request.system]
    for message in request.messages:
        for block in message["content"]:
            blocks.append((block["text"], "cache_control" in block))
    last = max((i for i, (_, cached) in enumerate(blocks) if cached), default=-1)
    return [text for text, _ in blocks[: last + 1]]


def _requests(root: Path, chapter: int) -> dict[str, ModelRequest]:
    project = Project.open(root)
    requests = AgentRequests(project, Settings(), default_registry())
    text = f"# 第{chapter}章 雾\n\n沈照推开门，雾很浓。\n\n“行吧。”他说。\n"
    revision = RevisionInput("revision", text, ["第 1 段：加动作"], ["节奏拖沓"], [])
    return {
        "writer": requests.writer(chapter, note="多写雨", revision=None).request,
        "reviser": requests.writer(chapter, note=None, revision=revision).request,
        "summarizer": requests.summarizer(chapter, text, "- 无")[0],
        "refiner": requests.refiner(chapter, text, polish=False),
        "judge": requests.judge(chapter, text, cross_references=None, revision=0),
    }


def test_cached_prefix_is_byte_identical_from_chapter_three_to_four(root: Path) -> None:
    three, four = _requests(root, 3), _requests(root, 4)
    for agent in three:
        prefix = _cached_prefix(three[agent])
        assert prefix, f"{agent}: no cache breakpoint"
        assert prefix == _cached_prefix(four[agent]), f"{agent}: the cached prefix differs between chapters"
        assert all("本章重点" not in block for block in prefix), agent


def test_prefix_hash_is_the_same_from_chapter_to_chapter(root: Path) -> None:
    three, four = _requests(root, 3), _requests(root, 4)
    for agent in three:
        assert prefix_hash(three[agent]) == prefix_hash(four[agent]) is not None, agent
    assert prefix_hash(three["writer"]) != prefix_hash(three["judge"])


def test_chapter_marks_live_after_the_last_breakpoint(root: Path) -> None:
    request = _requests(root, 3)["writer"]
    tail = request.messages[-1]["content"][-1]
    assert "cache_control" not in tail
    assert "W-001" in _block(tail["text"], "focus_rules")
    assert "<style_drift>" in tail["text"]


def test_cache_read_share_of_a_chapter_log() -> None:
    from studio.models.pipeline_log import PipelineLog, StageLog

    log = PipelineLog(
        chapter=3,
        stages=[
            StageLog(name="draft", input_tokens=1000, cache_creation_input_tokens=3000, cache_read_input_tokens=0),
            StageLog(name="judge", input_tokens=2000, cache_creation_input_tokens=0, cache_read_input_tokens=4000),
            StageLog(name="refine"),  # nothing reported: left out
        ],
    )
    assert log.cache_read_share() == 0.4
    assert PipelineLog(chapter=3, stages=[StageLog(name="draft")]).cache_read_share() is None
