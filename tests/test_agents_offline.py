"""ModelAgents end to end on the sample novel with the offline provider (and a few scripted providers)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pipeline.agents.protocol import RevisionInput
from pipeline.agents.runner import ModelAgents
from pipeline.context import judge_context, refiner_context, summarizer_context, writer_context
from pipeline.gate import GateAction, decide_gate
from pipeline.providers.base import (
    ModelRequest,
    ModelResult,
    OverloadedError,
    TextCallback,
    TruncatedReplyError,
    Usage,
)
from pipeline.providers.offline import (
    OfflineProvider,
    judge_reply,
    judge_target,
    refiner_reply,
    summarizer_reply,
)
from pipeline.refine_edits import RefineReply
from pipeline.replies import JudgeReply, SummarizerReply
from studio.init_project import init_project
from studio.models.evaluation import DIMENSION_WEIGHTS, weighted_overall
from studio.models.settings import Settings
from studio.project import Project
from studio.prompt_pins import latest_pins
from studio.state_engine import apply_patch, validate_ops
from studio.wordcount import word_count


@pytest.fixture
def project(tmp_path: Path) -> Project:
    root = tmp_path / "novel"
    init_project(root, sample=True)
    return Project.open(root)


def offline_agents(project: Project, **kw: Any) -> ModelAgents:
    return ModelAgents(project, Settings(), OfflineProvider(delay_s=0, chunk_chars=20), **kw)


@pytest.mark.parametrize("chapter", [3, 5, 9, 10])
async def test_write_streams_a_chapter_of_the_right_length(project: Project, chapter: int) -> None:
    deltas: list[str] = []
    out = await offline_agents(project).write(chapter, note=None, revision=None, on_text=deltas.append)
    assert len(deltas) > 1
    assert "===STATE_HINTS===" not in "".join(deltas) and "===STATE_HINTS===" not in out.text
    assert "".join(deltas).strip() == out.text.strip()
    assert out.text.startswith(f"# 第{chapter}章 ")
    settings = Settings()
    assert settings.writing.chapter_min_chars <= word_count(out.text) <= settings.writing.chapter_max_chars
    assert out.hints.startswith("- ")
    [call] = out.calls
    assert call.offline and call.model == "offline" and call.stage == "draft"
    assert call.prompt_id == "chapter-writer" and call.prompt_version == str(latest_pins()["chapter-writer"])
    assert call.usage is not None and call.usage.estimated and call.cost_usd is None
    assert call.estimated_prompt_tokens and call.estimated_prompt_tokens > 1000


async def test_write_is_deterministic(project: Project) -> None:
    a = await offline_agents(project).write(4, note=None, revision=None, on_text=None)
    b = await offline_agents(project).write(4, note=None, revision=None, on_text=None)
    assert a.text == b.text and a.hints == b.hints


async def test_revision_and_rewrite_use_their_prompts(project: Project) -> None:
    agents = offline_agents(project)
    draft = await agents.write(5, note=None, revision=None, on_text=None)
    revised = await agents.write(
        5, note=None, revision=RevisionInput("revision", draft.text, ["全章：节奏拖沓，改成动作推进"]), on_text=None
    )
    assert (revised.calls[0].stage, revised.calls[0].prompt_id) == ("revise", "chapter-reviser")
    fixed = await agents.write(
        5, note=None, revision=RevisionInput("revision", draft.text, ["第 3 段：改成动作"]), on_text=None
    )
    assert [(c.stage, c.prompt_id) for c in fixed.calls] == [("revise", "chapter-fixer")]  # local: edits in place
    assert fixed.text != draft.text and fixed.hints == ""
    assert len(fixed.text) - len(draft.text) == len("他停了一下，把手里的东西放稳。")
    rewritten = await agents.write(5, note="多写雨", revision=RevisionInput("rewrite", draft.text, []), on_text=None)
    assert (rewritten.calls[0].stage, rewritten.calls[0].prompt_id) == ("rewrite", "chapter-writer")
    assert revised.text != draft.text


async def test_summarize_gives_valid_ops(project: Project) -> None:
    agents = offline_agents(project)
    draft = await agents.write(6, note=None, revision=None, on_text=None)
    out = await agents.summarize(6, draft.text, draft.hints)
    assert out.patch is not None and out.warnings == [] and len(out.calls) == 1
    ops, warnings = validate_ops(out.patch.ops)
    assert warnings == [] and len(ops) == len(out.patch.ops)
    assert {"op": "foreshadow", "path": "bell-in-fog", "value": "resolved"}.items() <= out.patch.ops[-1].items()
    assert out.patch.base_state_version == project.state.state_version
    state, applied, apply_warnings = apply_patch(project.state, out.patch)
    assert apply_warnings == [] and state.characters["shen-zhao"].location == "青石巷"
    assert len(out.summary) <= 300 and len(out.storyline_memory) <= 500 and out.leak_risk == "low"


async def test_refine_edits_apply(project: Project) -> None:
    agents = offline_agents(project)
    draft = await agents.write(3, note=None, revision=None, on_text=None)
    assert "深吸一口气" in draft.text and "不禁" in draft.text
    out = await agents.refine(3, draft.text, polish=False)
    assert out.result.applied and not out.result.dropped
    assert "深吸一口气" not in out.result.text and "不禁" not in out.result.text
    assert out.result.changed_chars <= out.result.cap_chars
    polish = await agents.refine(3, out.result.text, polish=True)
    assert polish.calls[0].stage == "polish"


async def test_judge_overall_is_the_weighted_mean_and_improves(project: Project) -> None:
    agents = offline_agents(project)
    overalls = []
    for revision in (0, 1, 2):
        out = await agents.judge(5, "# 第5章 入司\n\n沈照推开守灯司的门，屋里一股旧纸味。", key_chapter=False, revision=revision)
        evaluation = out.evaluation
        assert evaluation.overall == weighted_overall(evaluation.scores)
        assert all(1 <= s.score <= 5 for s in evaluation.scores.as_dict().values())
        overalls.append(evaluation.overall)
    assert overalls[0] < overalls[1] < overalls[2]
    checks = {c.id for c in evaluation.contract_verification.all_checks()}
    assert {"W-002", "C-SHENZHAO-001", "OBJ-005-1", "LS-005"} <= checks


def test_offline_judge_reaches_every_gate_path() -> None:
    actions = set()
    for chapter in range(1, 57):
        scores = JudgeReply.model_validate(judge_reply({"chapter": chapter})).scores
        decision = decide_gate(
            weighted_overall(scores), high_confidence_violation=False, hard_violation=False, revision_count=0
        )
        actions.add(decision.action)
    assert {GateAction.PASS, GateAction.POLISH, GateAction.REVISE, GateAction.PAUSE_LOW, GateAction.REWRITE} <= actions
    # never stuck: two revisions lift every band except the rare rewrite/pause ones to >= 3.0
    for chapter in range(1, 57):
        if chapter % 28 not in (6, 20):
            assert judge_target(chapter, 2) >= 3.5


async def test_offline_replies_pass_the_same_validation(project: Project) -> None:
    settings = Settings()
    for chapter in range(1, 12):
        text = "# 第1章\n\n他深吸一口气，站了很久很久。他不禁笑了。他又深吸一口气。"
        SummarizerReply.model_validate(summarizer_reply(summarizer_context(project, settings, chapter, text, "").data))
        JudgeReply.model_validate(judge_reply(judge_context(project, settings, chapter, text).data))
        edits = RefineReply.model_validate(refiner_reply(refiner_context(project, settings, chapter, text).data, text))
        assert [e.occurrence for e in edits.edits if e.original == "深吸一口气"] == [1, 2]
        assert writer_context(project, settings, chapter).data["chapter"] == chapter


async def test_dual_judge_runs_both_on_key_chapters(project: Project) -> None:
    agents = offline_agents(project)
    out = await agents.judge(1, "# 第1章 子时送单\n\n沈照推开守灯司的门，屋里一股旧纸味。", key_chapter=True, revision=0)
    assert [c.stage for c in out.calls] == ["judge", "judge-secondary"]
    assert out.evaluation.overall == min(
        weighted_overall(JudgeReply.model_validate(judge_reply({"chapter": 1}, secondary=s)).scores) for s in (False, True)
    )


class Scripted:
    name = "scripted"
    offline = False

    def __init__(self, *replies: str | Exception, stop_reason: str = "end_turn") -> None:
        self.replies = list(replies)
        self.stop_reason = stop_reason
        self.requests: list[ModelRequest] = []

    async def run(self, request: ModelRequest, on_text: TextCallback | None = None) -> ModelResult:
        self.requests.append(request)
        item = self.replies.pop(0)
        if isinstance(item, Exception):
            raise item
        return ModelResult(item, self.stop_reason, Usage(input_tokens=1000, output_tokens=100), request.model, 5, 1)


def judge_json(score: int, violation: str) -> str:
    data = {
        "chapter": 1,
        "contract_verification": {
            "l3_checks": [{"id": violation, "status": "violation", "confidence": "high", "detail": "x"}],
            "l1_checks": [{"id": "W-001", "status": "pass", "confidence": "high", "detail": ""}],
        },
        "scores": {d: {"evidence": "沈照推开守灯司的门", "score": score} for d in DIMENSION_WEIGHTS},
        "risk_flags": [f"flag-{violation}"],
        "required_fixes": [{"target": "第 1 段", "instruction": violation}],
    }
    return json.dumps(data)


async def test_dual_judge_keeps_lower_overall_and_union_of_violations(project: Project) -> None:
    primary, secondary = Scripted(judge_json(4, "OBJ-001-1")), Scripted(judge_json(3, "OBJ-001-2"))
    agents = ModelAgents(project, Settings(), primary, secondary_provider=secondary)
    out = await agents.judge(1, "# 第1章\n\n沈照推开守灯司的门，屋里一股旧纸味。", key_chapter=True, revision=0)
    assert out.evaluation.overall == 3.0
    assert {c.id for c in out.evaluation.violations()} == {"OBJ-001-1", "OBJ-001-2"}
    assert out.evaluation.contract_verification.has_violations
    assert {f.instruction for f in out.evaluation.required_fixes} == {"OBJ-001-1", "OBJ-001-2"}
    assert primary.requests[0].model == Settings().models.quality_judge
    assert secondary.requests[0].model == Settings().models.judge_secondary
    assert all(c.cost_usd is not None and c.cost_usd > 0 for c in out.calls)


async def test_truncated_writer_reply_raises(project: Project) -> None:
    agents = ModelAgents(project, Settings(), Scripted("# 第3章 半截\n\n写到一半", stop_reason="max_tokens"))
    with pytest.raises(TruncatedReplyError):
        await agents.write(3, note=None, revision=None, on_text=None)


async def test_stage_retry_and_missing_delimiter(project: Project) -> None:
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    continuation = "好的，下面接着写：\n\n" + "灯" * 1600 + "\n===STATE_HINTS===\n- 顾远舟关了灯"
    provider = Scripted(OverloadedError("busy"), "正文没有标题，也没有提示。" + "雾" * 1000, continuation)
    agents = ModelAgents(project, Settings(), provider, stage_retry_wait_s=0.5, sleep=sleep)
    out = await agents.write(3, note=None, revision=None, on_text=None)
    assert waits == [0.5] and len(provider.requests) == 3
    assert out.text.startswith("# 第3章 旧书店的熟客\n\n正文没有标题")
    # 1,000-odd 字 is under the 2,500 minimum (but no garbage): one continuation, cleaned, appended
    assert [c.stage for c in out.calls] == ["draft", "lengthen"]
    assert out.text.rstrip().endswith("\n\n" + "灯" * 1600) and "下面接着写" not in out.text
    assert out.hints == "- 顾远舟关了灯"
    follow_up = provider.requests[2]
    assert follow_up.messages[1]["role"] == "assistant" and follow_up.prompt_id == "chapter-length"
    assert "不在要求的 2500-3500 字之间" in follow_up.messages[2]["content"][0]["text"]
    assert provider.requests[0].model == Settings().models.chapter_writer
    assert provider.requests[0].max_tokens == Settings().max_tokens.chapter_writer
