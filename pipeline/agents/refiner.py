"""StyleRefiner: ask for edits, apply them deterministically (blacklist first, change cap)."""

from __future__ import annotations

from collections.abc import Sequence

from pipeline.agents.protocol import RefinerOutput
from pipeline.prompts_registry import PromptRegistry
from pipeline.providers.base import ModelRequest, Provider
from pipeline.refine_edits import RefineReply, apply_edits
from pipeline.structured import Invoke, call_structured
from studio.checks.matcher import Matcher

REFINE_CAP_RATIO = 0.15  # seed 000 5.7: at most 15% of the chapter changes
POLISH_CAP_RATIO = 0.15  # the second (polish) pass has its own budget, measured on the refined text


async def run_refiner(
    provider: Provider,
    request: ModelRequest,
    text: str,
    *,
    registry: PromptRegistry,
    invoke: Invoke,
    blacklist: Sequence[str] | Matcher,
    cap_ratio: float,
    stage: str,
) -> RefinerOutput:
    reply, calls = await call_structured(
        provider, request, RefineReply, registry=registry, stage=stage, invoke=invoke
    )
    result = apply_edits(text, reply.edits, blacklist=blacklist, cap_ratio=cap_ratio)
    return RefinerOutput(edits=list(reply.edits), result=result, calls=calls)
