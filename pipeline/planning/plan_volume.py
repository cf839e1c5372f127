"""Plan one volume with PlotArchitect (seed 000 §5.3; seed 004 plan -> validate; issue 7 item 3).

Rules:
- One call builds the outline, the storyline schedule, the threads and every chapter's L3 contract
  (`prompts/plot-architect.v1.md` asks for all of them in one JSON reply).
- The reply is parsed into `VolumePlanReply`, turned into a `VolumePlan` and checked by code
  (`studio.planning.chaining.check_plan`, which also chains the contracts' preconditions). A reply that does
  not parse, or a plan with an error, goes back to the model with the error lines (the `repair` prompt, the
  conversation continued), at most `MAX_REPAIRS` times; then `PlanRejected` carries the last errors and
  nothing is staged. Warnings (pacing) are kept for the approval.
- Every call goes through the given provider (the one `pipeline.providers.factory.build_provider` builds
  books it in the spend ledger), with the stage retries of the writing loop.
- `estimate_plan_cost` is the cost of the call before it is made: the request's estimated input tokens and
  the model's output budget at the configured prices (an upper bound; zero offline).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace

from pipeline.agents.protocol import CallRecord
from pipeline.agents.requests import AgentRequests
from pipeline.agents.runner import default_registry, request_text
from pipeline.planning.prompt_context import PlanTarget, plot_architect_context
from pipeline.prompts_registry import PromptRegistry
from pipeline.providers.base import ModelRequest, ModelResult, Provider, ProviderError, Usage
from pipeline.providers.cost import cost_usd, price_for, settings_prices
from pipeline.providers.retry import run_with_stage_retry
from pipeline.structured import parse_reply, repair_request
from pipeline.tokens import estimate_tokens
from studio.errors import FormatError, StudioError
from studio.models.settings import Settings
from studio.models.volume_plan import VolumePlan, VolumePlanReply
from studio.planning.chaining import check_plan
from studio.planning.findings import PlanReport
from studio.planning.project_context import plan_context
from studio.project import Project

__all__ = ["MAX_REPAIRS", "PLAN_AGENT", "PlanOutcome", "PlanRejected", "estimate_plan_cost", "plan_request", "plan_volume"]

PLAN_AGENT = "plot_architect"
PLAN_STAGE = "plan"
REPAIR_STAGE = "plan-repair"
MAX_REPAIRS = 2

RetryHook = Callable[[str, int, ProviderError], None]


class PlanRejected(StudioError):
    """The plan still had errors after the repair rounds; nothing was staged."""

    def __init__(self, message: str, *, errors: list[str], calls: list[CallRecord]) -> None:
        super().__init__(message)
        self.errors = errors
        self.calls = calls


@dataclass
class PlanOutcome:
    plan: VolumePlan  # contracts with chained preconditions
    report: PlanReport  # no error; the warnings for the approval
    calls: list[CallRecord] = field(default_factory=list)

    @property
    def cost_usd(self) -> float:
        return round(sum(c.cost_usd or 0.0 for c in self.calls), 6)


def plan_request(
    project: Project, settings: Settings, target: PlanTarget, *, note: str = "", registry: PromptRegistry | None = None
) -> ModelRequest:
    """The PlotArchitect request for `target` (what `novel-studio prompt plot` shows for the next volume)."""
    requests = AgentRequests(project, settings, registry or default_registry())
    bundle = plot_architect_context(project, target=target, note=note, registry=requests.registry)
    return replace(requests.build(bundle, PLAN_AGENT), stage=PLAN_STAGE)


def estimate_plan_cost(request: ModelRequest, settings: Settings, *, offline: bool) -> float:
    """Upper bound of one planning call in USD (input estimated, output at its token budget)."""
    if offline:
        return 0.0
    usage = Usage(input_tokens=estimate_tokens(request_text(request)), output_tokens=request.max_tokens)
    return round(cost_usd(usage, price_for(request.model, settings_prices(settings))) or 0.0, 4)


def _errors(text: str, target: PlanTarget, project: Project) -> tuple[PlanOutcome | None, list[str]]:
    reply, errors = parse_reply(text, VolumePlanReply)
    if reply is None:
        return None, errors
    try:
        plan = reply.to_plan(target.volume, target.first, target.last)
    except FormatError as exc:
        return None, [str(p) for p in exc.problems] or [str(exc)]
    new_lines = [e.storyline_id for e in plan.schedule.active_storylines if e.storyline_id]
    chained, report = check_plan(plan, plan_context(project, new_storylines=new_lines))
    if not report.ok:
        return None, report.error_lines("zh")
    return PlanOutcome(chained, report), []


async def plan_volume(
    project: Project,
    settings: Settings,
    provider: Provider,
    target: PlanTarget,
    *,
    note: str = "",
    registry: PromptRegistry | None = None,
    on_retry: RetryHook | None = None,
) -> PlanOutcome:
    """Plan `target` (see the module rules); raises PlanRejected or a ProviderError."""
    request = plan_request(project, settings, target, note=note, registry=registry)
    registry = registry or default_registry()
    prices = settings_prices(settings)
    calls: list[CallRecord] = []
    current = request
    errors: list[str] = []
    for attempt in range(MAX_REPAIRS + 1):
        stage = PLAN_STAGE if attempt == 0 else REPAIR_STAGE
        sent = replace(current, stage=stage)
        started = time.monotonic()

        def retried(n: int, error: ProviderError, stage: str = stage) -> None:
            if on_retry is not None:
                on_retry(stage, n, error)

        def call(sent: ModelRequest = sent) -> Awaitable[ModelResult]:
            return provider.run(sent)

        result = await run_with_stage_retry(
            call,
            retries=settings.provider.stage_retries,
            wait_s=settings.provider.stage_retry_wait_s,
            on_retry=retried,
        )
        calls.append(
            CallRecord(
                stage=stage,
                model=result.model,
                duration_ms=result.duration_ms or int((time.monotonic() - started) * 1000),
                usage=result.usage,
                cost_usd=cost_usd(result.usage, price_for(result.model, prices)) if result.usage else None,
                prompt_id=current.prompt_id,
                prompt_version=current.prompt_version,
                estimated_prompt_tokens=estimate_tokens(request_text(current)),
                offline=bool(getattr(provider, "offline", False)),
            )
        )
        outcome, errors = _errors(result.text, target, project)
        if outcome is not None:
            outcome.calls = calls
            return outcome
        if attempt < MAX_REPAIRS:
            current = repair_request(current, result.text, errors, registry)
    raise PlanRejected(
        f"第 {target.volume} 卷的计划经过 {MAX_REPAIRS} 轮修正仍有错误，未暂存任何内容：\n"
        + "\n".join(f"- {e}" for e in errors),
        errors=errors,
        calls=calls,
    )
