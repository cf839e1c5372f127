"""The pure impact report: changed facts of an edited chapter and the later chapters they touch; review marks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from studio.impact import Fact, changed_facts, format_effect, impacted_chapters
from studio.models.changelog import ChangelogEntry
from studio.models.patch import StateOp
from studio.models.review_marks import ReviewMarks, load_review_marks, record_review_marks, review_marks_path
from studio.paths import ProjectPaths

NAMES = {"shen-zhao": "沈照", "xu-qing-he": "许青禾", "lamp": "长明灯"}


def ops(*raw: dict[str, Any]) -> list[StateOp]:
    return [StateOp.model_validate(r) for r in raw]


def entry(chapter: int, *raw: dict[str, Any]) -> ChangelogEntry:
    return ChangelogEntry(state_version=chapter, base_state_version=chapter - 1, chapter=chapter, ops=ops(*raw))


OLD = ops(
    {"op": "set", "path": "characters.shen-zhao.location", "value": "灯铺"},
    {"op": "inc", "path": "characters.shen-zhao.relationships.xu-qing-he", "value": 5},
    {"op": "inc", "path": "characters.shen-zhao.relationships.xu-qing-he", "value": 5},
    {"op": "add", "path": "characters.shen-zhao.inventory", "value": "密信"},
    {"op": "set", "path": "world_state.time_marker", "value": "子时"},
    {"op": "foreshadow", "path": "bell", "value": "planted", "detail": "铃声"},
)
NEW = ops(
    {"op": "set", "path": "characters.shen-zhao.location", "value": "码头"},
    {"op": "inc", "path": "characters.shen-zhao.relationships.xu-qing-he", "value": 10},
    {"op": "add", "path": "characters.shen-zhao.inventory", "value": "钥匙"},
    {"op": "set", "path": "world_state.time_marker", "value": "子时"},
    {"op": "foreshadow", "path": "dock", "value": "planted", "detail": "码头"},
)


def test_changed_facts_compares_net_effects() -> None:
    facts = changed_facts(OLD, NEW)
    by_key = {f.key: f for f in facts}
    assert [f.key for f in facts] == [
        "characters.shen-zhao.location",
        "characters.shen-zhao.inventory",
        "bell",
        "dock",
    ]  # the relationship nets +10 both times and the time marker is the same: not facts
    assert by_key["characters.shen-zhao.location"] == Fact("characters.shen-zhao.location", "灯铺", "码头")
    assert by_key["characters.shen-zhao.inventory"].old == {"added": ["密信"], "removed": []}
    assert by_key["bell"] == Fact("bell", "planted", None, kind="foreshadow")
    assert by_key["dock"].new == "planted"
    assert changed_facts(OLD, OLD) == []


def test_fact_labels_use_display_names() -> None:
    fact = Fact("characters.shen-zhao.location", "灯铺", "码头")
    assert fact.describe(NAMES) == "沈照·位置：灯铺 → 码头"
    assert fact.describe(NAMES, "en") == "沈照·location: 灯铺 -> 码头"
    rel = Fact("characters.shen-zhao.relationships.xu-qing-he", 10, None)
    assert rel.slugs == ("shen-zhao", "xu-qing-he")
    assert rel.describe(NAMES) == "沈照·关系·许青禾：10 → （未写）"
    assert Fact("world_state.time_marker", "子时", "卯时").describe(NAMES) == "世界状态·时间：子时 → 卯时"
    assert format_effect({"added": ["钥匙"], "removed": ["密信"]}) == "+钥匙 -密信"
    assert format_effect(["advanced", "resolved"], "foreshadow") == "推进、回收"


def test_impacted_chapters_with_reasons() -> None:
    facts = changed_facts(OLD, NEW)
    later = [
        entry(4, {"op": "set", "path": "characters.shen-zhao.location", "value": "城隍庙"}),
        entry(5, {"op": "set", "path": "characters.shen-zhao.emotional_state", "value": "警惕"}),
        entry(6, {"op": "foreshadow", "path": "bell", "value": "resolved"}),
        entry(7, {"op": "set", "path": "characters.gu-yuan-zhou.location", "value": "书店"}),
        entry(8),
    ]
    summaries = {7: "顾远舟关了书店。", 8: "许青禾回到灯铺等人。", 9: "雨夜。"}
    out = impacted_chapters(facts, later, summaries, display_names=NAMES)
    assert sorted(out) == [4, 5, 6, 8]
    assert out[4][0] == "沈照·位置：灯铺 → 码头（本章状态补丁也写了这一项）"
    assert any("本章状态补丁涉及沈照（情绪）" in r for r in out[5])
    assert out[6] == ["伏笔 bell：埋下 → （未写）（本章回收了这条伏笔）"]
    assert out[8] == ["沈照·位置：灯铺 → 码头（本章摘要提到“灯铺”）"]  # the old place is mentioned
    en = impacted_chapters(facts, later[:1], {}, display_names=NAMES, lang="en")
    assert en[4][0] == "沈照·location: 灯铺 -> 码头 (this chapter's patch writes the same field)"


def test_foreshadow_fact_found_by_description_in_a_summary() -> None:
    facts = [Fact("bell", "planted", None, kind="foreshadow")]
    out = impacted_chapters(facts, [], {5: "他又听见雾中铃声。"}, descriptions={"bell": "雾中铃声"})
    assert out == {5: ["伏笔 bell：埋下 → （未写）（本章摘要提到“雾中铃声”）"]}


def test_review_marks_add_merge_clear_and_persist(tmp_path: Path) -> None:
    marks = ReviewMarks()
    marks.add(5, ["a"], 3, created_at="t1")
    marks.add(4, ["b"], 3)
    marks.add(5, ["a", "c"], 3, created_at="t2")
    marks.add(5, ["d"], 4)
    assert [(m.chapter, m.caused_by_chapter, m.reasons) for m in marks.marks] == [
        (4, 3, ["b"]), (5, 3, ["a", "c"]), (5, 4, ["d"])
    ]
    assert marks.chapters() == [4, 5] and len(marks.for_chapter(5)) == 2
    assert marks.clear(5) is True and marks.clear(5) is False and marks.chapters() == [4]

    paths = ProjectPaths(tmp_path)
    assert not review_marks_path(paths).exists()
    record_review_marks(paths, {}, 3)
    assert not review_marks_path(paths).exists()  # nothing to mark: no file
    record_review_marks(paths, {6: ["x"]}, 3)
    assert review_marks_path(paths) == tmp_path / ".novel-studio" / "review-marks.json"
    loaded = load_review_marks(paths)
    assert [(m.chapter, m.reasons, m.caused_by_chapter) for m in loaded.marks] == [(6, ["x"], 3)]
    assert loaded.marks[0].created_at
