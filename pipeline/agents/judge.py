"""QualityJudge: two-track verdict as an `Evaluation`; key chapters get a second judge, the lower one wins."""

from __future__ import annotations

from pipeline.agents.protocol import JudgeOutput
from pipeline.prompts_registry import PromptRegistry
from pipeline.providers.base import ModelRequest, Provider
from pipeline.replies import JudgeReply
from pipeline.structured import Invoke, call_structured
from studio.models.evaluation import ContractCheck, Evaluation, weighted_overall

_LAYERS = ("l1_checks", "l2_checks", "l3_checks", "ls_checks")


async def run_judge(
    provider: Provider,
    request: ModelRequest,
    *,
    chapter: int,
    registry: PromptRegistry,
    invoke: Invoke,
    stage: str,
) -> JudgeOutput:
    reply, calls = await call_structured(provider, request, JudgeReply, registry=registry, stage=stage, invoke=invoke)
    return JudgeOutput(evaluation=reply.to_evaluation(chapter), calls=calls)


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
