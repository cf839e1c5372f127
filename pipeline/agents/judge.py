"""QualityJudge: two-track verdict as an `Evaluation`; key chapters get a second judge, the lower one wins.

Every reply's evidence is checked against the judged text (`pipeline.agents.judge_calibration`): dimensions whose
quotes are not in the chapter are asked for once more (a repair turn listing them); what is still unfound is
capped and marked, and measured prose metrics out of bounds cap the style score.
"""

from __future__ import annotations

from dataclasses import replace

from pipeline.agents.judge_calibration import calibrate, evidence_errors, unfound_dimensions
from pipeline.agents.protocol import JudgeOutput
from pipeline.prompts_registry import PromptRegistry
from pipeline.providers.base import ModelRequest, Provider, UserBlock, user_message
from pipeline.replies import JudgeReply
from pipeline.structured import REPAIR_STAGE, Invoke, StructuredReplyError, repair_request, run_structured
from studio.checks.quotes import QuoteIndex
from studio.models.evaluation import ContractCheck, Evaluation, weighted_overall

EVIDENCE_PROMPT = "judge-evidence"

_LAYERS = ("l1_checks", "l2_checks", "l3_checks", "ls_checks")


def evidence_request(
    request: ModelRequest, reply_text: str, errors: list[str], registry: PromptRegistry
) -> ModelRequest:
    """The judge's conversation continued by its reply and the `judge-evidence` ask listing the unfound quotes
    (the repair loop's shape, with its own words: the reply was valid, its quotes were not)."""
    asked = repair_request(request, reply_text, errors, registry)
    template = registry.get(EVIDENCE_PROMPT)
    text = template.render_text({"errors": "\n".join(f"- {e}" for e in errors)})
    messages = [*asked.messages[:-1], user_message([UserBlock(text)])]
    return replace(asked, messages=messages, prompt_id=template.id, prompt_version=str(template.version))


async def run_judge(
    provider: Provider,
    request: ModelRequest,
    *,
    chapter: int,
    text: str,
    registry: PromptRegistry,
    invoke: Invoke,
    stage: str,
    style_reason: str | None = None,
) -> JudgeOutput:
    """Judge `text` (the chapter as the request shows it): validate, check the evidence (one more ask for what is
    not found), calibrate. `style_reason`: why the measured metrics cap the style score, if they do."""
    first = await run_structured(provider, request, JudgeReply, registry=registry, stage=stage, invoke=invoke)
    calls = list(first.calls)
    reply = first.value
    index = QuoteIndex(text)
    missing = unfound_dimensions(reply, index)
    if missing:
        retry = evidence_request(first.request, first.text, evidence_errors(reply, missing), registry)
        try:
            second = await run_structured(
                provider, retry, JudgeReply, registry=registry, max_repairs=0, stage=REPAIR_STAGE, invoke=invoke
            )
        except StructuredReplyError as exc:
            calls += exc.calls  # the first reply stands, its unfound evidence capped
        else:
            calls += second.calls
            again = unfound_dimensions(second.value, index)
            # the second reply replaces the first; a dimension it still cannot back is capped
            reply, missing = second.value, again
    evaluation = calibrate(reply.to_evaluation(chapter), unverified=missing, style_reason=style_reason)
    return JudgeOutput(evaluation=evaluation, calls=calls, blacklist_suggestions=list(reply.blacklist_suggestions))


def combine_evaluations(first: Evaluation, second: Evaluation) -> Evaluation:
    """Dual judge: the evaluation with the lower overall, plus the other's violations and fixes it lacks."""
    low, high = (first, second) if weighted_overall(first.scores) <= weighted_overall(second.scores) else (second, first)
    verification = low.contract_verification.model_copy(deep=True)
    for layer in _LAYERS:
        checks: list[ContractCheck] = list(getattr(verification, layer))
        for check in getattr(high.contract_verification, layer):
            if check.status != "violation":
                continue
            same = [i for i, c in enumerate(checks) if c.id == check.id]
            if not same:
                checks.append(check)
            elif checks[same[0]].status != "violation":
                checks[same[0]] = check
        setattr(verification, layer, checks)
    gates = list(verification.platform_hard_gates)
    for gate in high.contract_verification.platform_hard_gates:
        if gate.status == "fail":  # a gate either judge failed stays failed
            gates = [g for g in gates if g.gate_id != gate.gate_id] + [gate]
    verification.platform_hard_gates = gates
    verification.has_violations = any(c.status == "violation" for c in verification.all_checks())
    fixes = list(low.required_fixes) + [f for f in high.required_fixes if f not in low.required_fixes]
    flags = list(dict.fromkeys([*low.risk_flags, *high.risk_flags]))
    return low.model_copy(
        update={
            "contract_verification": verification,
            "required_fixes": fixes,
            "risk_flags": flags,
            "overall": weighted_overall(low.scores),
        }
    )
