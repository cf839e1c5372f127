"""Deterministic application of StyleRefiner edits."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from pipeline.refine_edits import (
    EditDecision,
    RefineEdit,
    RefineReply,
    apply_decisions,
    apply_edits,
    cap_chars_for,
    find_occurrences,
)


def E(original: str, refined: str, occurrence: int | None = None, reason: str = "") -> RefineEdit:  # noqa: N802
    return RefineEdit(original=original, refined=refined, occurrence=occurrence, reason=reason)


def test_model_validation() -> None:
    with pytest.raises(ValidationError):
        RefineEdit(original="", refined="x")
    with pytest.raises(ValidationError):
        RefineEdit(original="a", refined="b", occurrence=0)
    reply = RefineReply.model_validate(
        {"edits": [{"original": "a", "refined": "b", "reason": "黑名单", "extra": 1}], "note": "ignored"}
    )
    assert reply.edits == [E("a", "b", reason="黑名单")]


def test_unique_span_applied() -> None:
    result = apply_edits("他的嘴角微微上扬，看向远方。", [E("嘴角微微上扬", "咧了下嘴")], cap_ratio=1.0)
    assert result.text == "他的咧了下嘴，看向远方。"
    (decision,) = result.decisions
    assert decision.status == "applied" and decision.drop_reason is None
    assert decision.span == (2, 8)
    assert result.changed_chars == 6


def test_repeated_span_without_occurrence_is_ambiguous() -> None:
    text = "夜色如墨。他走了。夜色如墨。"
    result = apply_edits(text, [E("夜色如墨", "天黑透了")], cap_ratio=1.0)
    assert result.text == text
    assert result.decisions[0].status == "dropped"
    assert result.decisions[0].drop_reason == "ambiguous"
    assert result.decisions[0].span is None


def test_occurrence_picks_that_occurrence() -> None:
    text = "夜色如墨。他走了。夜色如墨。"
    result = apply_edits(text, [E("夜色如墨", "天黑透了", occurrence=2)], cap_ratio=1.0)
    assert result.text == "夜色如墨。他走了。天黑透了。"
    assert result.decisions[0].span == (9, 13)
    first = apply_edits(text, [E("夜色如墨", "天黑透了", occurrence=1)], cap_ratio=1.0)
    assert first.text == "天黑透了。他走了。夜色如墨。"


def test_occurrence_out_of_range_and_not_found() -> None:
    text = "夜色如墨。他走了。夜色如墨。"
    result = apply_edits(
        text,
        [E("夜色如墨", "x", occurrence=3), E("不存在", "y"), E("不存在", "z", occurrence=1)],
        cap_ratio=1.0,
    )
    assert [d.drop_reason for d in result.decisions] == ["occurrence_out_of_range", "not_found", "not_found"]
    assert result.text == text and result.changed_chars == 0


def test_overlapping_occurrences_count() -> None:
    assert find_occurrences("啊啊啊", "啊啊") == [0, 1]
    assert find_occurrences("abc", "") == []
    result = apply_edits("啊啊啊", [E("啊啊", "哦", occurrence=2)], cap_ratio=1.0)
    assert result.text == "啊哦"


def test_overlap_later_dropped_and_touching_spans_kept() -> None:
    text = "甲乙丙丁戊己"
    result = apply_edits(
        text,
        [E("乙丙", "B"), E("丙丁", "C"), E("丁戊", "D"), E("甲", "A")],
        cap_ratio=1.0,
    )
    assert [(d.status, d.drop_reason) for d in result.decisions] == [
        ("applied", None),
        ("dropped", "overlap"),
        ("applied", None),  # touches 乙丙 at index 3: no overlap
        ("applied", None),
    ]
    assert result.decisions[1].span == (2, 4)
    assert result.text == "ABD己"


def test_no_op() -> None:
    result = apply_edits("甲乙丙", [E("乙", "乙")], cap_ratio=1.0)
    assert result.decisions[0].drop_reason == "no_op"
    assert result.text == "甲乙丙"


def test_cap_blacklist_first_then_order_exact_arithmetic() -> None:
    # 40 characters -> cap = floor(0.15 * 40) = 6.
    text = "一二三四五六七八九十" + "甲乙丙丁戊己庚辛壬癸" + "不禁莫名的心头一震。" + "子丑寅卯辰巳午未申酉"
    assert len(text) == 40
    assert cap_chars_for(text, 0.15) == 6
    edits = [
        E("一二三", "123"),  # 3, plain
        E("甲乙丙丁", "ABCD"),  # 4, plain
        E("不禁", "忍不住"),  # 2, removes blacklist "不禁"
        E("莫名的", "说不清的"),  # 3, removes blacklist "莫名的"
        E("子", "Z"),  # 1, plain
    ]
    result = apply_edits(text, edits, blacklist=["不禁", "莫名的"], cap_ratio=0.15)
    # Blacklist first: 2 + 3 = 5 (left 1); then in order: 3 too big, 4 too big, 1 fits.
    assert [(d.status, d.drop_reason) for d in result.decisions] == [
        ("dropped", "over_cap"),
        ("dropped", "over_cap"),
        ("applied", None),
        ("applied", None),
        ("applied", None),
    ]
    assert result.decisions[2].blacklist_removed == ("不禁",)
    assert result.decisions[3].blacklist_removed == ("莫名的",)
    assert result.decisions[0].blacklist_removed == ()
    assert result.changed_chars == 6 and result.cap_chars == 6
    assert (
        result.text == "一二三四五六七八九十甲乙丙丁戊己庚辛壬癸忍不住说不清的心头一震。Z丑寅卯辰巳午未申酉"
    )


def test_blacklist_word_kept_in_refined_is_not_priority() -> None:
    text = "他不禁笑了。" + "甲" * 14  # 20 chars -> cap 3
    result = apply_edits(
        text,
        [E("甲甲甲", "乙", occurrence=1), E("不禁笑了", "不禁笑出声")],
        blacklist=["不禁"],
        cap_ratio=0.15,
    )
    assert result.decisions[1].blacklist_removed == ()
    # In refiner order: the first (3) fills the budget; the second (4) exceeds it anyway.
    assert [d.drop_reason for d in result.decisions] == [None, "over_cap"]


def test_cap_ratio_decimal_and_default() -> None:
    assert cap_chars_for("x" * 100, 0.29) == 29  # float 0.29 * 100 is 28.999...
    assert cap_chars_for("x" * 3000, 0.15) == 450
    assert cap_chars_for("", 0.15) == 0
    with pytest.raises(ValueError):
        cap_chars_for("x", -0.1)
    # Empty chapter: nothing fits.
    assert apply_edits("", [E("a", "b")]).decisions[0].drop_reason == "not_found"


def test_apply_from_end_keeps_offsets() -> None:
    text = "第一句很长很长。第二句。第三句也很长很长。"
    edits = [E("第三句也很长很长", "三"), E("第一句很长很长", "一"), E("第二句", "第二句话说得更长一些")]
    result = apply_edits(text, edits, cap_ratio=1.0)
    assert result.text == "一。第二句话说得更长一些。三。"
    spans = {d.index: d.span for d in result.decisions}
    assert spans == {0: (12, 20), 1: (0, 7), 2: (8, 11)}


def test_cjk_and_mixed_text() -> None:
    text = "　　“有意思。”林枫挑眉，🙂笑了笑。\n\n　　陈老哼了一声：“善。”"
    result = apply_edits(text, [E("🙂笑了笑", "没笑"), E("哼了一声", "哼")], cap_ratio=1.0)
    assert result.text == "　　“有意思。”林枫挑眉，没笑。\n\n　　陈老哼：“善。”"


def test_apply_decisions_subset_and_override_cap() -> None:
    text = "甲乙丙丁戊己庚辛壬癸"  # cap at 0.2 = 2
    result = apply_edits(text, [E("甲乙", "A"), E("丙丁", "C"), E("戊", "E")], cap_ratio=0.2)
    assert [d.drop_reason for d in result.decisions] == [None, "over_cap", "over_cap"]
    assert apply_decisions(text, result.decisions, {0}) == result.text
    assert apply_decisions(text, result.decisions, set()) == text
    # The author may accept an edit the cap dropped.
    assert apply_decisions(text, result.decisions, {0, 1, 2}) == "ACE己庚辛壬癸"
    with pytest.raises(ValueError, match="no edit decision"):
        apply_decisions(text, result.decisions, {7})
    with pytest.raises(ValueError, match="is not its original"):
        apply_decisions("乙" + text, result.decisions, {0})
    ambiguous = apply_edits("甲甲", [E("甲", "乙")], cap_ratio=1.0)
    with pytest.raises(ValueError, match="cannot be applied"):
        apply_decisions("甲甲", ambiguous.decisions, {0})
    clash = [
        EditDecision(index=0, original="甲乙", refined="x", status="applied", start=0, end=2),
        EditDecision(index=1, original="乙丙", refined="y", status="applied", start=1, end=3),
    ]
    with pytest.raises(ValueError, match="overlap"):
        apply_decisions(text, clash, {0, 1})


def test_deterministic_and_serialisable() -> None:
    text = "夜色如墨。他不禁笑了。夜色如墨。"
    edits = [E("夜色如墨", "天黑了", occurrence=2), E("不禁", "忍不住"), E("夜色", "x")]
    first = apply_edits(text, edits, blacklist=["不禁"], cap_ratio=0.5)
    second = apply_edits(text, edits, blacklist=["不禁"], cap_ratio=0.5)
    assert first == second
    assert type(first).model_validate_json(first.model_dump_json()) == first


# ---------------------------------------------------------------- property tests

_ALPHABET = st.sampled_from(list("天地玄黄宇宙洪荒，。！“”ab \n"))


@st.composite
def _text_and_edits(draw: st.DrawFn) -> tuple[str, list[RefineEdit], list[str], float]:
    text = draw(st.text(alphabet=_ALPHABET, min_size=0, max_size=80))
    edits: list[RefineEdit] = []
    for _ in range(draw(st.integers(min_value=0, max_value=8))):
        if text and draw(st.booleans()):
            start = draw(st.integers(min_value=0, max_value=len(text) - 1))
            end = draw(st.integers(min_value=start + 1, max_value=min(len(text), start + 8)))
            original = text[start:end]
        else:
            original = draw(st.text(alphabet=_ALPHABET, min_size=1, max_size=4))
        refined = draw(st.text(alphabet=_ALPHABET, min_size=0, max_size=6))
        occurrence = draw(st.one_of(st.none(), st.integers(min_value=1, max_value=4)))
        edits.append(E(original, refined, occurrence=occurrence))
    blacklist = draw(st.lists(st.text(alphabet=_ALPHABET, min_size=1, max_size=2), max_size=3))
    ratio = draw(st.sampled_from([0.0, 0.1, 0.15, 0.3, 1.0]))
    return text, edits, blacklist, ratio


@settings(max_examples=300, deadline=None)
@given(_text_and_edits())
def test_property_result_matches_sequential_application(
    case: tuple[str, list[RefineEdit], list[str], float],
) -> None:
    text, edits, blacklist, ratio = case
    result = apply_edits(text, edits, blacklist=blacklist, cap_ratio=ratio)
    assert [d.index for d in result.decisions] == list(range(len(edits)))

    applied = result.applied
    # Applied spans hold their originals and do not overlap each other.
    spans = sorted((d.start, d.end, d) for d in applied if d.start is not None and d.end is not None)
    assert len(spans) == len(applied)
    for start, end, decision in spans:
        assert text[start:end] == decision.original
        assert decision.original != decision.refined
    for (_, first_end, _), (second_start, _, _) in zip(spans, spans[1:], strict=False):
        assert first_end <= second_start

    # Applying the applied decisions one by one, left to right, with a running offset gives the same text.
    expected = text
    shift = 0
    for start, end, decision in spans:
        expected = expected[: start + shift] + decision.refined + expected[end + shift :]
        shift += len(decision.refined) - (end - start)
    assert result.text == expected

    # The cap is never exceeded, and changed_chars is the summed originals of the applied edits.
    assert result.changed_chars == sum(len(d.original) for d in applied)
    assert result.changed_chars <= result.cap_chars == cap_chars_for(text, ratio)

    # Re-applying every applied index reproduces the result.
    assert apply_decisions(text, result.decisions, {d.index for d in applied}) == result.text

    # A dropped over_cap edit really did not fit in what was left once the kept ones were counted.
    left = result.cap_chars - result.changed_chars
    for decision in result.dropped:
        if decision.drop_reason == "over_cap":
            assert len(decision.original) > left


def test_a_blacklisted_shape_rewritten_is_a_removed_hit() -> None:
    # the checks' matcher: 一股…涌上心头 is a shape (any few characters between), not a literal substring
    text = "一股莫名的寒意涌上心头。" + "甲" * 28  # 40 chars -> cap 6
    edits = [E("甲甲甲甲", "乙", occurrence=1), E("一股莫名的寒意涌上心头", "他后背一凉")]
    result = apply_edits(text, edits, blacklist=["一股…涌上心头"], cap_ratio=0.15)
    assert result.decisions[1].blacklist_removed == ("一股…涌上心头",)
    assert result.decisions[0].blacklist_removed == ()
    # blacklist edits first: the shape's rewrite (11) is over the cap of 6 too, so the plain one is applied
    assert [d.drop_reason for d in result.decisions] == [None, "over_cap"]


def test_an_edit_bringing_in_a_listed_phrase_is_rejected() -> None:
    text = "他笑了。门外起了雾。" + "甲" * 30
    edits = [
        E("他笑了", "他不禁笑了"),  # adds a listed word
        E("门外起了雾", "一股寒意涌上心头"),  # adds a listed shape
        E("甲甲甲", "乙", occurrence=1),
    ]
    result = apply_edits(text, edits, blacklist=["不禁", "一股…涌上心头"], cap_ratio=0.5)
    assert [d.drop_reason for d in result.decisions] == ["adds_blacklist", "adds_blacklist", None]
    assert "不禁" not in result.text and "涌上心头" not in result.text
    assert not result.decisions[0].applicable  # never offered to the author either
