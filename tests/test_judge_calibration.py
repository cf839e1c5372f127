"""The judge's scores checked before the gate (issue 9 item 3): evidence looked up in the chapter (one more ask,
then a cap at 3 and `evidence_verified: false`), prose metrics capping the style score, the reply's order."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pipeline.agents.judge_calibration import (
    UNVERIFIED_CAP,
    calibrate,
    evidence_found,
    style_cap_reason,
)
from pipeline.agents.runner import ModelAgents
from pipeline.context import judge_context
from pipeline.providers.base import ModelRequest, ModelResult, TextCallback, Usage
from pipeline.replies import JUDGE_SCHEMA, JudgeReply
from studio.checks.matcher import Entry, Matcher
from studio.checks.metrics import prose_metrics
from studio.checks.quotes import QuoteIndex
from studio.init_project import init_project
from studio.models.evaluation import DIMENSION_WEIGHTS, Evaluation, weighted_overall
from studio.models.settings import Settings
from studio.project import Project

CHAPTER = (
    "# 第5章 入司\n\n"
    "沈照推开守灯司的门，屋里一股旧纸味。\n\n"
    "许青禾把登记册往他面前一推：“按规矩，先签字。”\n\n"
    "“签字要钱吗？”沈照问，“要钱的话，我得先算算这个月的配送费。”\n\n"
    "窗外的雾又厚了一层，长明灯的火苗往他这边歪了歪。\n"
)
REAL = [
    "沈照推开守灯司的门",
    "【2】许青禾把登记册往他面前一推",
    "第3段：“签字要钱吗？”沈照问",
    "窗外的雾又厚了一层……长明灯的火苗往他这边歪了歪",
]
INVENTED = "沈照拔出长剑，一剑斩断了雾中的铜铃。"


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("judge") / "novel"
    init_project(root, sample=True)
    return root


@pytest.fixture
def project(template: Path, tmp_path: Path) -> Project:
    shutil.copytree(template, tmp_path / "novel")
    return Project.open(tmp_path / "novel")


class Scripted:
    name = "scripted"
    offline = False

    def __init__(self, *replies: str) -> None:
        self.replies = list(replies)
        self.requests: list[ModelRequest] = []

    async def run(self, request: ModelRequest, on_text: TextCallback | None = None) -> ModelResult:
        self.requests.append(request)
        return ModelResult(self.replies.pop(0), "end_turn", Usage(input_tokens=100, output_tokens=10), request.model, 1, 1)


def reply(evidence: dict[str, str], score: int = 5) -> str:
    scores = {d: {"evidence": evidence.get(d, REAL[i % len(REAL)]), "reason": "理由", "score": score}
              for i, d in enumerate(DIMENSION_WEIGHTS)}
    return json.dumps({"chapter": 5, "scores": scores}, ensure_ascii=False)


def test_quotes_are_found_with_marks_and_abridging_but_not_invented() -> None:
    index = QuoteIndex(CHAPTER)
    assert all(evidence_found(q, index) for q in REAL)
    assert evidence_found("「沈照推开守灯司的门」；「长明灯的火苗往他这边歪了歪」", index)
    assert not evidence_found(INVENTED, index)
    assert not evidence_found("「沈照推开守灯司的门」；「" + INVENTED + "」", index)  # every quote must be there
    assert not evidence_found("沈照", index) and not evidence_found("", index)  # too short to be evidence


async def test_invented_quotes_are_asked_once_more_then_capped(project: Project) -> None:
    invented = dict.fromkeys(DIMENSION_WEIGHTS, INVENTED)  # eight invented quotes, all scored 5
    provider = Scripted(reply(invented), reply(invented))
    out = await ModelAgents(project, Settings(), provider).judge(5, CHAPTER, key_chapter=False, revision=0)
    assert [c.stage for c in out.calls] == ["judge", "repair"]
    follow_up = provider.requests[1].messages[-1]["content"][0]["text"]
    assert "$.scores.plot_logic.evidence" in follow_up and INVENTED[:20] in follow_up
    assert follow_up.startswith("程序逐条核对了你的评分依据") and provider.requests[1].prompt_id == "judge-evidence"
    assert provider.requests[1].messages[1]["role"] == "assistant"
    scores = out.evaluation.scores.as_dict()
    assert all(s.score == UNVERIFIED_CAP and s.evidence_verified is False for s in scores.values())
    assert out.evaluation.overall == 3.0 == weighted_overall(out.evaluation.scores)
    saved = out.evaluation.to_data()["scores"]["plot_logic"]
    assert saved["evidence_verified"] is False and "找不到" in saved["cap_reason"]


async def test_a_corrected_reply_is_not_capped(project: Project) -> None:
    provider = Scripted(reply({"pacing": INVENTED}), reply({}))
    out = await ModelAgents(project, Settings(), provider).judge(5, CHAPTER, key_chapter=False, revision=0)
    assert len(provider.requests) == 2
    assert all(s.score == 5 and s.evidence_verified for s in out.evaluation.scores.as_dict().values())


async def test_only_the_unfound_dimension_is_capped(project: Project) -> None:
    provider = Scripted(reply({"pacing": INVENTED}), reply({"pacing": INVENTED}))
    out = await ModelAgents(project, Settings(), provider).judge(5, CHAPTER, key_chapter=False, revision=0)
    scores = out.evaluation.scores
    assert scores.pacing.score == 3 and scores.pacing.evidence_verified is False
    assert scores.plot_logic.score == 5 and scores.plot_logic.evidence_verified is True


async def test_found_evidence_needs_no_second_call(project: Project) -> None:
    provider = Scripted(reply({}))
    out = await ModelAgents(project, Settings(), provider).judge(5, CHAPTER, key_chapter=False, revision=0)
    assert len(provider.requests) == 1 and out.evaluation.overall == 5.0


def test_prose_metrics_out_of_bounds_cap_the_style_score() -> None:
    dense = "# 第1章\n\n" + "他不禁笑了。" * 20
    metrics = prose_metrics(dense, Matcher([Entry.parse("不禁")]))
    reason = style_cap_reason(metrics)
    assert reason is not None and "黑名单用语" in reason
    assert style_cap_reason(prose_metrics(CHAPTER, Matcher([Entry.parse("不禁")]))) is None
    evaluation = JudgeReply.model_validate_json(reply({})).to_evaluation(1)
    capped = calibrate(evaluation, unverified=[], style_reason=reason)
    assert capped.scores.style_naturalness.score == 3 and capped.scores.plot_logic.score == 5
    assert (capped.scores.style_naturalness.cap_reason or "").startswith("程序统计：黑名单用语")
    assert capped.overall == weighted_overall(capped.scores) < 5


def test_the_judge_cannot_mark_its_own_evidence() -> None:
    data = json.loads(reply({}))
    data["scores"]["plot_logic"]["evidence_verified"] = True
    data["scores"]["plot_logic"]["cap_reason"] = "无"
    parsed = JudgeReply.model_validate(data).scores.plot_logic
    assert parsed.evidence_verified is None and parsed.cap_reason is None


def test_schema_asks_evidence_then_reason_then_score() -> None:
    dimension = JUDGE_SCHEMA["properties"]["scores"]["properties"]["plot_logic"]
    assert list(dimension["properties"]) == ["evidence", "reason", "score"]


def test_old_evaluation_files_round_trip_unchanged() -> None:
    data = json.loads(reply({}))
    assert Evaluation.parse_data(data).to_data()["scores"] == {
        d: {**v, "weight": DIMENSION_WEIGHTS[d]} for d, v in data["scores"].items()
    }


def test_judge_sees_numbered_paragraphs(project: Project) -> None:
    bundle = judge_context(project, Settings(), 5, CHAPTER)
    content = bundle.variables["chapter_content"]
    assert "【1】沈照推开守灯司的门" in content and "【4】窗外的雾" in content
    assert bundle.data["quotes"][0] == "沈照推开守灯司的门，屋里一股旧纸味。"
