"""The shared quick-start request model and the brief written from answers (issue 7 item 2)."""

from __future__ import annotations

import pytest

from studio.author_brief import BRIEF_FIELDS, brief_from_answers, clean_brief
from studio.errors import FormatError
from studio.models.quick_start import TONE_PRESETS, QuickStartRequest


def test_brief_from_answers_holds_exactly_the_answers() -> None:
    text = brief_from_answers("雾港", {"genre": "都市悬疑", "protagonist": "林雾，守灯人"})
    brief = clean_brief(text)
    assert dict(brief.sections) == {"书名": "雾港", "题材": "都市悬疑", "主角": "林雾，守灯人"}
    assert not brief.is_empty
    assert all(f"## {heading}" in text for _, heading in BRIEF_FIELDS)


def test_title_only_answers_are_an_empty_brief() -> None:
    assert clean_brief(brief_from_answers("雾港", {})).is_empty


def test_unknown_brief_field_is_refused() -> None:
    with pytest.raises(ValueError, match="plot"):
        brief_from_answers("雾港", {"plot": "x"})


@pytest.mark.parametrize(
    "data",
    [
        {"style_source": "samples"},
        {"style_source": "samples", "sample_paths": ["a", "b", "c", "d"]},
        {"style_source": "reference", "reference_author": " "},
        {"style_source": "preset", "preset": "不存在"},
        {"volume_length": 2},
    ],
)
def test_request_refuses_a_choice_without_its_input(data: dict[str, object]) -> None:
    with pytest.raises(FormatError):
        QuickStartRequest.parse_data(data)


def test_request_defaults_and_presets() -> None:
    assert QuickStartRequest().style_source == "write_then_extract"
    assert QuickStartRequest.parse_data({"style_source": "preset", "preset": TONE_PRESETS[0]}).preset == TONE_PRESETS[0]


def test_plan_answers_round_trip_and_refuse_garbage() -> None:
    from pipeline.decisions import PlanAnswer, parse_plan_answer

    for answer in (PlanAnswer("y"), PlanAnswer("n"), PlanAnswer("e"), PlanAnswer("k", count=40),
                   PlanAnswer("r", note="第二卷节奏放慢：多写日常")):
        assert parse_plan_answer(answer.encode()) == answer
    for bad in ("", "x", "k:0", "k:abc", "r:", "y:1"):
        with pytest.raises(ValueError):
            parse_plan_answer(bad)


@pytest.mark.parametrize(
    ("data", "zh", "en"),
    [
        ({"style_source": "samples"}, "需要 1-3 个样本文件，现在是 0 个", "needs 1-3 sample_paths"),
        ({"style_source": "reference", "reference_author": " "}, "需要填写参考作者", "needs reference_author"),
        ({"style_source": "preset", "preset": "x"}, "基调应为以下之一：轻松幽默、", "needs one of 轻松幽默"),
    ],
)
def test_a_choice_without_its_input_is_said_in_both_languages(data: dict[str, object], zh: str, en: str) -> None:
    with pytest.raises(FormatError) as caught:
        QuickStartRequest.parse_data(data, ".novel-studio/quick-start.json")
    assert zh in caught.value.text("zh") and "style_source" not in caught.value.text("zh")
    assert en in caught.value.text("en")
