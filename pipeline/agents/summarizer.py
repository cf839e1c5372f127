"""Summarizer: summary, state ops, storyline memory and cross-line references of one chapter (JSON).

Ops rule (seed 003 10.6): an ops field that is missing or not a JSON list is asked for again once; if the
retry is still malformed (or unusable) the chapter's ops are skipped (`patch=None`) with a warning. Single
invalid entries are not retried: the state engine drops them with a warning at merge time.
"""

from __future__ import annotations

from pipeline.agents.protocol import SummarizerOutput
from pipeline.prompts_registry import PromptRegistry
from pipeline.providers.base import ModelRequest, Provider
from pipeline.replies import SummarizerReply
from pipeline.structured import REPAIR_STAGE, Invoke, StructuredReplyError, repair_request, run_structured
from studio.models.patch import StatePatch


async def run_summarizer(
    provider: Provider,
    request: ModelRequest,
    *,
    registry: PromptRegistry,
    invoke: Invoke,
    chapter: int,
    storyline_id: str,
    base_state_version: int,
    stage: str = "summarize",
) -> SummarizerOutput:
    first = await run_structured(provider, request, SummarizerReply, registry=registry, stage=stage, invoke=invoke)
    reply = first.value
    calls = list(first.calls)
    warnings: list[str] = []
    ops: list[object] | None = list(reply.ops)
    if reply.ops_error is not None:
        retry = repair_request(first.request, first.text, [f"$.ops: {reply.ops_error}"], registry)
        try:
            second = await run_structured(
                provider, retry, SummarizerReply, registry=registry, max_repairs=0, stage=REPAIR_STAGE, invoke=invoke
            )
        except StructuredReplyError as exc:
            calls += exc.calls
            ops = None
        else:
            calls += second.calls
            if second.value.ops_error is None:
                reply = second.value
                ops = list(reply.ops)
            else:
                ops = None
        if ops is None:
            warnings.append(
                f"chapter {chapter}: the Summarizer's ops were malformed twice ({reply.ops_error}); "
                "this chapter's state ops are skipped"
            )
    if reply.storyline_id != storyline_id:
        warnings.append(
            f"chapter {chapter}: the Summarizer named storyline {reply.storyline_id!r}, "
            f"the outline says {storyline_id!r}; the outline's is kept"
        )
    patch = (
        None
        if ops is None
        else StatePatch(chapter=chapter, base_state_version=base_state_version, storyline_id=storyline_id, ops=ops)
    )
    return SummarizerOutput(
        summary=reply.summary,
        patch=patch,
        storyline_id=storyline_id,
        storyline_memory=reply.storyline_memory,
        cross_references=list(reply.cross_references),
        leak_risk=reply.leak_risk,
        warnings=warnings,
        calls=calls,
        structure=reply.structure(),
    )
