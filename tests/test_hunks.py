"""Refine-review hunks on real Chinese text: character diffs, positions, review transitions."""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from pipeline.refine_edits import RefineEdit, apply_edits
from studio.tui.hunks import (
    ReviewState,
    build_hunks,
    char_diff,
    locate,
    marked_original,
    marked_refined,
    marked_text,
    unapplicable,
)
from tests.snapshot_apps.dialogs_app import DRAFT, sample_decisions


def test_char_diff_is_character_level_for_chinese() -> None:
    segments = char_diff("带着一股说不出的寒意", "带着寒意")
    assert [(s.kind, s.original, s.refined) for s in segments] == [
        ("equal", "带着", "带着"),
        ("delete", "一股说不出的", ""),
        ("equal", "寒意", "寒意"),
    ]
    segments = char_diff("他轻轻地笑了笑，转身离开了", "他笑了笑，转身走了")
    assert marked_text(segments) == "他[-轻轻地-]笑了笑，转身[-离开-]{+走+}了"
    assert marked_original(segments) == "他[-轻轻地-]笑了笑，转身[-离开-]了"
    assert marked_refined(segments) == "他笑了笑，转身{+走+}了"
    assert [s.kind for s in segments] == ["equal", "delete", "equal", "replace", "equal"]


def test_char_diff_folds_a_lone_shared_character() -> None:
    # Raw SequenceMatcher keeps 嘴 as an equality between an insert and a delete; the fold reads better.
    raw = char_diff("嘴角微微上扬", "咧了下嘴", cleanup=False)
    assert [s.kind for s in raw] == ["insert", "equal", "delete"]
    folded = char_diff("嘴角微微上扬", "咧了下嘴")
    assert [(s.kind, s.original, s.refined) for s in folded] == [("replace", "嘴角微微上扬", "咧了下嘴")]
    assert char_diff("夜色", "夜色")[0].kind == "equal"
    assert [s.kind for s in char_diff("", "新")] == ["insert"]
    assert [s.kind for s in char_diff("旧", "")] == ["delete"]


def test_char_diff_segments_rebuild_both_sides() -> None:
    pairs = [
        ("心中五味杂陈", "说不清是什么滋味"),
        ("她深吸一口气，心中五味杂陈，却还是点了点头。", "她吸了口气，还是点了头。"),
        ("“你来了。”他说。", "“来了？”他问。"),
    ]
    for a, b in pairs:
        for cleanup in (True, False):
            segs = char_diff(a, b, cleanup=cleanup)
            assert "".join(s.original for s in segs) == a
            assert "".join(s.refined for s in segs) == b


def test_char_diff_without_autojunk_on_long_text() -> None:
    # Over 200 characters where 的 and ， are frequent: autojunk treats them as junk and loses them.
    names = "甲乙丙丁戊己庚辛壬癸子丑寅卯辰巳午未申酉"
    base = "".join(f"{n}的影子落在他的脚边，像{n}的旧梦，" for n in names)
    moved = base.replace("的脚边", "脚边的")
    assert len(base) > 200

    def changed(kinds: Sequence[tuple[str, int, int, int, int]]) -> int:
        return sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in kinds if tag != "equal")

    junked = changed(difflib.SequenceMatcher(None, base, moved).get_opcodes())
    segments = char_diff(base, moved, cleanup=False)
    ours = sum(max(len(s.original), len(s.refined)) for s in segments if s.kind != "equal")
    assert ours == 2 * len(names) < junked
    assert [s.kind for s in segments].count("delete") == len(names)  # one 的 moved per sentence


def test_locate_lines_columns_percent() -> None:
    text = "第一章\n\n夜色如墨。\n他走了。"
    pos = locate(text, text.index("他"))
    assert (pos.line, pos.column, pos.offset) == (4, 1, 11)
    assert pos.percent == round(100 * 11 / len(text), 1)
    assert locate(text, 0).line == 1 and locate(text, 0).column == 1
    assert locate(text, text.index("如")).column == 3
    assert locate("", 0).percent == 0.0


def test_build_hunks_on_the_sample() -> None:
    decisions = sample_decisions()
    hunks = build_hunks(decisions, DRAFT)
    assert [h.index for h in hunks] == [0, 1, 2, 3]  # reading order, refiner indices kept
    assert [d.index for d in unapplicable(decisions)] == [4]  # never found
    first = hunks[0]
    assert DRAFT[first.start : first.end] == "嘴角微微上扬"
    assert first.position.line == 3
    assert first.position.column == DRAFT.split("\n")[2].index("嘴角") + 1
    assert first.before.endswith("他的") and first.after.startswith("，看向")
    assert "\n" not in first.before + first.after  # context stays within the line
    second = hunks[1]
    assert second.blacklist_removed == ("五味杂陈",)
    assert second.reason == "黑名单词：五味杂陈"
    assert 0 < first.position.percent < second.position.percent < hunks[3].position.percent < 100


def test_build_hunks_keeps_over_cap_as_not_applied() -> None:
    decisions = sample_decisions(cap_ratio=0.1)
    statuses = {d.index: (d.status, d.drop_reason) for d in decisions}
    hunks = build_hunks(decisions, DRAFT)
    over = [h for h in hunks if h.drop_reason == "over_cap"]
    assert over and all(not h.refiner_applied for h in over)
    assert {h.index for h in hunks} == {
        i for i, (s, r) in statuses.items() if s == "applied" or r == "over_cap"
    }


def test_review_state_transitions() -> None:
    decisions = sample_decisions()
    state = ReviewState.from_decisions(decisions, DRAFT)
    assert len(state) == 4 and state.current == 0 and state.count("undecided") == 4
    state.accept()  # hunk 0 accepted, on to 1
    assert state.verdicts[0] == "accepted" and state.current == 1
    state.reject()
    assert state.verdicts[1] == "rejected" and state.current == 2
    state.prev()
    assert state.current == 1
    state.accept()  # change of mind on hunk 1
    assert state.verdicts[1] == "accepted" and state.current == 2
    state.next()
    state.next()  # clamps at the last hunk
    assert state.current == 3
    state.reject()
    assert state.current == 3 and state.verdicts[3] == "rejected"
    state.accept_all_remaining()  # only the undecided hunk 2
    assert state.verdicts == ["accepted", "accepted", "accepted", "rejected"]
    state.reject_all_remaining()  # nothing undecided left: no change
    assert state.verdicts == ["accepted", "accepted", "accepted", "rejected"] and state.done
    assert state.accepted_indices() == [0, 1, 2]
    text = state.result_text(DRAFT)
    assert "咧了下嘴" in text and "说不清是什么滋味" in text and "带着寒意" in text
    assert "他轻轻地笑了笑" in text


def test_review_undecided_keeps_refiner_decision_and_record() -> None:
    decisions = sample_decisions(cap_ratio=0.1)
    state = ReviewState.from_decisions(decisions, DRAFT)
    applied = sorted(d.index for d in decisions if d.status == "applied")
    assert state.accepted_indices() == applied
    state.reject()
    record = state.record()
    assert len(record) == len(state)
    assert record[0]["decision"] == "rejected" and record[0]["by"] == "author"
    assert all(entry["by"] == "refiner" for entry in record[1:])
    outcome = state.outcome(DRAFT)
    assert outcome.accepted == tuple(i for i in applied if i != state.hunks[0].index)
    assert outcome.text == state.result_text(DRAFT)


def test_review_state_empty() -> None:
    state = ReviewState([])
    state.accept()
    state.next()
    state.accept_all_remaining()
    assert state.hunk is None and state.accepted_indices() == []
    assert state.result_text("原文不变") == "原文不变"


def test_review_without_decisions_rebuilds_them() -> None:
    text = "甲乙丙丁"
    result = apply_edits(text, [RefineEdit(original="乙丙", refined="二三")], cap_ratio=1.0)
    state = ReviewState(build_hunks(result.decisions, text))
    state.accept()
    assert state.result_text(text) == "甲二三丁"
