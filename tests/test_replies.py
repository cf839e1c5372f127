"""Reply models of the JSON agents and JSON extraction."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from pipeline.refine_edits import RefineReply
from pipeline.replies import (
    JUDGE_SCHEMA,
    SUMMARIZER_SCHEMA,
    JsonExtractError,
    JudgeReply,
    RefinerReply,
    SummarizerReply,
    extract_json,
    schema_for,
)
from studio.models.evaluation import DIMENSION_WEIGHTS, weighted_overall


def summary_reply(**over: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "chapter": 3,
        "storyline_id": "fog-tide",
        "summary": "黑衣客上门索要灯契。",
        "ops": [{"op": "set", "path": "characters.gu-yuan-zhou.location", "value": "书店"}],
        "storyline_memory": "- 顾远舟动摇了。",
        "cross_references": [],
        "leak_risk": "low",
    }
    data.update(over)
    return data


def judge_reply(scores: dict[str, float] | None = None, **over: Any) -> dict[str, Any]:
    values = scores or dict.fromkeys(DIMENSION_WEIGHTS, 4)
    data: dict[str, Any] = {
        "chapter": 3,
        "contract_verification": {
            "l1_checks": [{"id": "W-001", "status": "pass", "confidence": "high", "detail": ""}],
            "l2_checks": [],
            "l3_checks": [{"id": "OBJ-003-1", "status": "violation", "confidence": "high", "detail": "缺"}],
            "ls_checks": [],
            "has_violations": True,
        },
        "scores": {k: {"score": v, "reason": "r", "evidence": "e"} for k, v in values.items()},
        "overall": 1.0,
        "recommendation": "Revise",
        "risk_flags": [],
        "required_fixes": ["第 2 段：补上灯契", {"target": "第 5 段", "instruction": "改"}],
        "issues": [],
        "strengths": [],
    }
    data.update(over)
    return data


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1}',
        '```json\n{"a": 1}\n```',
        '好的，以下是结果：\n```json\n{"a": 1}\n```\n希望有帮助。',
        '结果如下 {"a": 1} 以上。',
        '\ufeff  {"a": 1}  ',
    ],
)
def test_extract_json_tolerates_fences_and_prose(text: str) -> None:
    assert extract_json(text) == {"a": 1}


@pytest.mark.parametrize("text", ["", "没有 JSON", '{"a": 1,', "```json\n{oops}\n```"])
def test_extract_json_errors(text: str) -> None:
    with pytest.raises(JsonExtractError):
        extract_json(text)


def test_summarizer_reply_valid() -> None:
    reply = SummarizerReply.model_validate(summary_reply())
    assert reply.ops_error is None and reply.ops[0]["op"] == "set"


def test_summary_over_300_is_an_error() -> None:
    with pytest.raises(ValidationError) as exc:
        SummarizerReply.model_validate(summary_reply(summary="字" * 301))
    assert exc.value.errors()[0]["loc"] == ("summary",)
    SummarizerReply.model_validate(summary_reply(summary="字" * 300))


def test_memory_over_500_and_bad_fields_are_errors() -> None:
    for bad in ({"storyline_memory": "字" * 501}, {"storyline_id": "主线"}, {"leak_risk": "none"}):
        with pytest.raises(ValidationError):
            SummarizerReply.model_validate(summary_reply(**bad))


@pytest.mark.parametrize("ops", ["not json", {"op": "set"}, 3])
def test_malformed_ops_are_noted_not_failed(ops: Any) -> None:
    reply = SummarizerReply.model_validate(summary_reply(ops=ops))
    assert reply.ops == [] and reply.ops_error


def test_missing_ops_is_malformed_but_stringified_list_is_read() -> None:
    data = summary_reply()
    del data["ops"]
    assert SummarizerReply.model_validate(data).ops_error
    reply = SummarizerReply.model_validate(summary_reply(ops=json.dumps([{"op": "inc"}])))
    assert reply.ops == [{"op": "inc"}] and reply.ops_error is None  # entries are the engine's business


def test_cross_reference_objects_become_lines() -> None:
    ref = {"entity": "shen-zhao", "kind": "character", "mention": "传闻", "quote": "听说灯认了人"}
    reply = SummarizerReply.model_validate(summary_reply(cross_references=[ref, "plain"]))
    assert reply.cross_references == ["shen-zhao（character，传闻）：「听说灯认了人」", "plain"]


def test_model_cannot_set_ops_error() -> None:
    assert SummarizerReply.model_validate(summary_reply(ops_error="x")).ops_error is None


def test_judge_reply_recomputes_overall() -> None:
    scores: dict[str, float] = dict(zip(DIMENSION_WEIGHTS, [5, 4, 3, 4, 2, 4, 3, 5], strict=True))
    evaluation = JudgeReply.model_validate(judge_reply(scores)).to_evaluation(3)
    assert evaluation.overall == weighted_overall(scores) != 1.0
    assert evaluation.recommendation == "revise"
    assert [f.instruction for f in evaluation.required_fixes] == ["第 2 段：补上灯契", "改"]
    assert [c.id for c in evaluation.high_confidence_violations()] == ["OBJ-003-1"]


def test_judge_reply_needs_all_eight_dimensions_in_range() -> None:
    data = judge_reply()
    del data["scores"]["pacing"]
    with pytest.raises(ValidationError):
        JudgeReply.model_validate(data)
    with pytest.raises(ValidationError):
        JudgeReply.model_validate(judge_reply(dict.fromkeys(DIMENSION_WEIGHTS, 6)))


def test_refiner_reply_is_refine_reply_and_schemas() -> None:
    assert RefinerReply is RefineReply
    assert schema_for(SummarizerReply) is SUMMARIZER_SCHEMA
    assert schema_for(JudgeReply) is JUDGE_SCHEMA
    assert schema_for(RefineReply) is not None
    assert set(JUDGE_SCHEMA["properties"]["scores"]["required"]) == set(DIMENSION_WEIGHTS)
    json.dumps([SUMMARIZER_SCHEMA, JUDGE_SCHEMA])
