"""The pure view models of the main screen's panes (studio.views): outline rows, state diff, scores, sparkline."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from bench.synth import generate_project
from studio.init_project import init_project
from studio.models.changelog import OpWarning
from studio.models.evaluation import DIMENSION_WEIGHTS, Evaluation
from studio.models.patch import StateOp
from studio.models.state import CurrentState
from studio.project import Project
from studio.status import EVALUATION_CACHE, WORDCOUNT_CACHE, cache_file
from studio.views.outline_rows import ChapterStatus, build_outline_rows, find_chapter
from studio.views.scores import (
    SPARK_CHARS,
    build_scores,
    chapter_scores,
    score_bar,
    scores_for_chapter,
    sparkline,
)
from studio.views.state_diff import (
    FieldChange,
    build_state_diff,
    field_label,
    format_value,
    state_diff_for_chapter,
)


@pytest.fixture
def sample(tmp_path: Path) -> Project:
    root = tmp_path / "sample"
    init_project(root, sample=True)
    return Project.open(root)


@pytest.fixture(scope="module")
def synth200(tmp_path_factory: pytest.TempPathFactory) -> Project:
    root = tmp_path_factory.mktemp("synth") / "novel"
    generate_project(root, 200, chars_per_chapter=800)
    return Project.open(root)


# ---------------------------------------------------------------------------------------------- outline rows


def test_outline_rows_sample(sample: Project) -> None:
    rows = build_outline_rows(sample)
    assert [v.number for v in rows] == [1]
    volume = rows[0]
    assert volume.title == "第一卷 子时灯"
    assert [c.number for c in volume.chapters] == list(range(1, 11))
    ch1, ch2, ch3 = volume.chapters[:3]
    assert ch1.title == "子时送单"
    assert ch1.status == ChapterStatus.COMMITTED and ch2.status == ChapterStatus.COMMITTED
    assert ch1.word_count and ch1.word_count > 2000
    assert ch1.overall == 4.15 and ch2.overall == 3.92
    assert ch1.storyline_id == "main-arc" and ch1.storyline_name == "守灯人之路"
    assert ch3.status == ChapterStatus.PLANNED and ch3.word_count is None and ch3.overall is None
    assert ch3.storyline_id == "fog-tide" and ch3.storyline_name == "雾潮暗涌"
    assert ch1.storyline_slot != ch3.storyline_slot  # storylines.json order: distinct colours
    assert volume.written == 2 and volume.word_count == ch1.word_count + (ch2.word_count or 0)
    # The word counts were cached for the next refresh.
    assert cache_file(sample.root, WORDCOUNT_CACHE).is_file() and cache_file(sample.root, EVALUATION_CACHE).is_file()


def test_outline_rows_statuses(sample: Project) -> None:
    paths = sample.paths
    # chapter 1 force-passed, chapter 2 needs a rebuild, chapter 3 in progress, chapter 4 staged
    data = json.loads(paths.evaluation(1).read_text(encoding="utf-8"))
    data["force_passed"] = True
    paths.evaluation(1).write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    paths.staged_chapter(4).parent.mkdir(parents=True, exist_ok=True)
    paths.staged_chapter(4).write_text("# 第4章 卯时之后\n\n正文。\n", encoding="utf-8")
    rows = build_outline_rows(sample, {2}, inflight=3)
    status = {c.number: c.status for c in rows[0].chapters}
    assert status[1] == ChapterStatus.FORCE_PASSED
    assert status[2] == ChapterStatus.NEEDS_REBUILD
    assert status[3] == ChapterStatus.IN_PROGRESS
    assert status[4] == ChapterStatus.STAGED
    assert status[5] == ChapterStatus.PLANNED


def test_outline_rows_chapter_outside_outline(sample: Project) -> None:
    sample.paths.chapter(12).write_text("# 第12章 雾散之后\n\n沈照醒来。\n", encoding="utf-8")
    rows = build_outline_rows(sample)
    assert [v.number for v in rows] == [1, 0]
    loose = rows[1].chapters
    assert [(c.number, c.title, c.status) for c in loose] == [(12, "雾散之后", ChapterStatus.COMMITTED)]
    assert loose[0].word_count == 5
    assert find_chapter(rows, 12) == loose[0]
    assert find_chapter(rows, 99) is None


def test_outline_rows_200_chapters(synth200: Project) -> None:
    start = time.perf_counter()
    rows = build_outline_rows(synth200)
    cold = time.perf_counter() - start
    start = time.perf_counter()
    again = build_outline_rows(synth200)
    warm = time.perf_counter() - start
    print(f"\noutline rows, 200 chapters: first build {cold * 1000:.1f} ms, cached {warm * 1000:.1f} ms")
    assert rows == again
    assert [v.number for v in rows] == [1, 2, 3, 4]
    chapters = [c for v in rows for c in v.chapters]
    assert [c.number for c in chapters] == list(range(1, 201))
    assert all(c.word_count and c.overall for c in chapters)
    assert {c.storyline_id for c in chapters} == {"main-arc", "sect-conspiracy", "su-wan-arc"}
    assert find_chapter(rows, 37) is not None and find_chapter(rows, 37).status == ChapterStatus.FORCE_PASSED  # type: ignore[union-attr]


# ---------------------------------------------------------------------------------------------- state diff


def test_state_diff_sample_chapter_2(sample: Project) -> None:
    diff = state_diff_for_chapter(sample, 2)
    assert diff is not None
    assert (diff.chapter, diff.base_state_version, diff.state_version, diff.staged) == (2, 1, 2, False)
    titles = [e.title() for e in diff.entities]
    assert titles == ["沈照 (shen-zhao)", "许青禾 (xu-qing-he)", "远舟旧书店 (yuan-zhou-bookshop)", "世界状态"]
    shen = diff.entities[0]
    assert [c.render() for c in shen.changes] == [
        "emotional_state: 惊魂未定 → 将信将疑",
        "relationships.xu-qing-he: 0 → 10 (+10)",
        "inventory: + 许青禾留下的电话号码",
    ]
    xu = diff.entities[1]
    assert "location: 城北 → 青石巷" in [c.render() for c in xu.changes]
    assert [(f.id, f.action) for f in diff.foreshadowing] == [("bell-in-fog", "advanced"), ("thirteenth-lamp", "planted")]
    assert diff.foreshadowing[0].detail.startswith("许青禾")
    assert diff.dropped == []
    text = diff.render()
    assert "time_marker: 十月初七·子时 → 十月初八·卯时" in text
    assert "thirteenth-lamp: 埋下" in text
    assert state_diff_for_chapter(sample, 3) is None


def test_state_diff_grouping_and_dropped_ops() -> None:
    before = CurrentState.model_validate(
        {
            "characters": {
                "lin-feng": {"display_name": "林枫", "location": "魔都", "relationships": {"chen-lao": 50}},
            }
        }
    )
    ops = [
        StateOp(op="set", path="characters.lin-feng.location", value="幽暗森林"),
        StateOp(op="add", path="characters.lin-feng.inventory", value="密信"),
        StateOp(op="inc", path="characters.lin-feng.relationships.chen-lao", value=10),
        StateOp(op="set", path="characters.su-wan.display_name", value="苏婉"),
        StateOp(op="set", path="items.jade-token.owner", value="lin-feng"),
        StateOp(op="remove", path="characters.lin-feng.inventory", value="密信"),
        StateOp(op="foreshadow", path="jade-token", value="planted", detail="玉佩裂纹"),
    ]
    warnings = [OpWarning(entry={"op": "set", "path": "characters.林枫.location"}, reason="entity id must be a slug")]
    diff = build_state_diff(before, ops, warnings, display_names={"chen-lao": "陈老"})
    lin, su, token = diff.entities
    assert [c.render() for c in lin.changes] == [
        "location: 魔都 → 幽暗森林",
        "inventory: + 密信",
        "relationships.chen-lao: 50 → 60 (+10)",
        "inventory: - 密信",
    ]
    assert lin.changes[3].after == []
    assert su.is_new and su.title() == "苏婉 (su-wan)"  # the name set by the ops themselves
    assert token.kind == "items" and token.title() == "jade-token"
    assert diff.dropped[0].reason == "entity id must be a slug"
    assert "characters.林枫.location" in diff.dropped[0].entry_text
    assert field_label("relationships.chen-lao", "zh", diff.display_names) == "关系·陈老"
    assert field_label("location", "en") == "location"
    assert format_value(None) == "（无）" and format_value(["a", "b"]) == "a、b"
    assert FieldChange(path="hp", op="inc", before=None, after=5, value=5).render() == "hp: （无） → 5 (+5)"


def test_state_diff_staged_delta(sample: Project) -> None:
    delta = sample.paths.staged_delta(3)
    delta.parent.mkdir(parents=True, exist_ok=True)
    delta.write_text(
        json.dumps(
            {
                "chapter": 3,
                "base_state_version": 2,
                "storyline_id": "fog-tide",
                "ops": [
                    {"op": "set", "path": "characters.gu-yuan-zhou.emotional_state", "value": "动摇"},
                    {"op": "inc", "path": "characters.gu-yuan-zhou.location", "value": 1},
                    "not an op",
                ],
            },
            ensure_ascii=False,
        ),
        encoding="utf-8",
    )
    diff = state_diff_for_chapter(sample, 3)
    assert diff is not None and diff.staged
    assert [c.render() for c in diff.entities[0].changes] == ["emotional_state: 平静 → 动摇"]
    assert len(diff.dropped) == 2  # the entry that is not an object, and the inc on a string


# ---------------------------------------------------------------------------------------------- scores


def test_scores_rows_sample(sample: Project) -> None:
    model = scores_for_chapter(sample, 2)
    assert model.chapter == 2 and not model.is_empty
    assert [d.key for d in model.dimensions] == list(DIMENSION_WEIGHTS)
    assert abs(sum(d.weight for d in model.dimensions) - 1.0) < 1e-9
    plot = model.dimensions[0]
    assert (plot.label(), plot.weight, plot.score, plot.bar) == ("情节逻辑", 0.18, 4.0, "████░")
    assert model.dimensions[4].bar == "███░░"
    assert model.overall == 3.92 and model.recommendation == "polish" and not model.force_passed
    assert model.violations == [] and model.risk_flags == []
    assert model.required_fixes[0].target == "许青禾解释雾客的对话段"
    assert len(model.sparkline) == 2 and (model.trend_first, model.trend_last) == (1, 2)
    empty = scores_for_chapter(sample, 3)
    assert empty.is_empty and empty.sparkline  # no scores, but the trend of the novel still shows


def test_scores_violations_sorted_and_forced(sample: Project) -> None:
    data = json.loads(sample.paths.evaluation(2).read_text(encoding="utf-8"))
    data["contract_verification"]["l3_checks"].append({"id": "OBJ-LOW", "status": "violation", "confidence": "low"})
    data["contract_verification"]["l1_checks"].append({"id": "W-009", "status": "fail", "detail": "雾未散"})
    data["force_passed"] = True
    data["risk_flags"] = ["节奏偏慢"]
    model = build_scores(Evaluation.model_validate(data), [(1, 4.0), (2, 3.0)])
    assert [(v.id, v.confidence) for v in model.violations] == [("W-009", "high"), ("OBJ-LOW", "low")]
    assert model.force_passed and model.risk_flags == ["节奏偏慢"]
    assert build_scores(None).is_empty and build_scores(None).sparkline == ""


def test_chapter_scores_cache(synth200: Project) -> None:
    first = chapter_scores(synth200)
    second = chapter_scores(synth200)
    assert first == second and len(first) == 200
    assert first[37].force_passed


def test_score_bar() -> None:
    assert score_bar(5) == "█████"
    assert score_bar(1) == "█░░░░"
    assert score_bar(3.5) == "███▌░"
    assert score_bar(0) == "░░░░░" and score_bar(9) == "█████"


def test_sparkline() -> None:
    assert sparkline([]) == ""
    assert sparkline([1, 5], lo=1, hi=5) == "▁█"
    assert sparkline([1, 2, 3, 4, 5], lo=1, hi=5) == "▁▃▅▆█"
    assert sparkline([4.0, 4.0, 4.0]) == SPARK_CHARS[3] * 3  # flat: mid height
    small = sparkline([3.9, 4.1])  # widened to a span of 1.0: a step, not the full height
    assert small[0] < small[1] and "█" not in small and "▁" not in small
    long = sparkline([float(i % 5) for i in range(500)], width=40)
    assert len(long) == 40
    assert all(ch in SPARK_CHARS for ch in long)
