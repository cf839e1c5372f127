"""Plan one volume with PlotArchitect (seed 000 §5.3; seed 004 plan -> validate; issue 7 item 3).

Rules:
- The outline call (`prompts/plot-architect.v1.md`) builds the outline, the storyline schedule, the threads
  and the new characters the volume needs in one JSON reply; it is checked by code without contracts
  (`studio.planning.chaining.check_plan(require_contracts=False)`).
- The L3 contracts come afterwards in batches of `CONTRACT_BATCH` chapters (`prompts/plot-contracts.v1.md`),
  in chapter order. Each batch is told the state before its first chapter (the current state plus every
  earlier planned postcondition, `studio.planning.chaining.state_before`) and is checked by code with the
  contracts before it: wrong chapter numbers, unknown ids, a precondition that contradicts the chain.
- A reply that does not parse, or that has an error, goes back to the model with the error lines (the
  `repair` prompt, the conversation continued), at most `MAX_REPAIRS` times per call (the outline call and
  each batch alike); then `PlanRejected` carries the last errors and nothing is staged. Warnings (pacing) are
  kept for the approval.
- `derive_contracts` also re-derives the contracts of some chapters of a finished plan (after the author
  edited the outline): the other contracts stay, but their preconditions after the first re-derived chapter
  are emptied and chained again by code, since the state they were chained from may have changed.
- Every call goes through the given provider (the one `pipeline.providers.factory.build_provider` builds
  books it in the spend ledger), with the stage retries of the writing loop.
- Estimates are upper bounds made before a call: input tokens estimated from the request, output at the
  call's token budget, at the configured prices (zero offline). A batch not built yet (its outline does not
  exist before the outline call) is estimated from the outline request plus `OUTLINE_TOKENS_PER_CHAPTER`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from pydantic import BaseModel, ConfigDict, Field

from pipeline.agents.protocol import CallRecord
from pipeline.agents.requests import AgentRequests
from pipeline.agents.runner import request_text
from pipeline.planning.invoke import RetryHook, priced_call
from pipeline.planning.prompt_context import PlanTarget, plot_architect_context, plot_contracts_context
from pipeline.prompts_registry import PromptRegistry, project_registry
from pipeline.providers.base import ModelRequest, Provider, Usage
from pipeline.providers.cost import cost_usd, price_for, settings_prices
from pipeline.structured import parse_reply, repair_request
from pipeline.tokens import estimate_tokens
from studio.errors import FormatError, StudioError
from studio.ids import is_slug
from studio.models.base import FileModel
from studio.models.contract import ChapterContract
from studio.models.settings import Settings
from studio.models.volume_plan import VolumePlan, VolumePlanReply
from studio.planning.chaining import check_plan, state_before
from studio.planning.checks import PlanContext
from studio.planning.findings import PlanReport
from studio.planning.project_context import plan_context
from studio.project import Project

__all__ = [
    "CONTRACT_BATCH",
    "MAX_REPAIRS",
    "PLAN_AGENT",
    "ContractsReply",
    "NewCharacter",
    "PlanEstimate",
    "PlanOutcome",
    "PlanRejected",
    "batches",
    "contracts_batch_request",
    "derive_contracts",
    "estimate_contracts_cost",
    "estimate_plan_cost",
    "estimate_volume_plan",
    "final_check",
    "plan_outline",
    "plan_request",
    "plan_volume",
]

PLAN_AGENT = "plot_architect"
PLAN_STAGE = "plan"
REPAIR_STAGE = "plan-repair"
CONTRACT_STAGE = "plan-contracts"
CONTRACT_REPAIR_STAGE = "plan-contracts-repair"
MAX_REPAIRS = 2
CONTRACT_BATCH = 10
CONTRACT_MAX_TOKENS = 12000  # ten contracts fit easily; the budget of a batch call (capped by the settings)
OUTLINE_TOKENS_PER_CHAPTER = 250  # the outline text a batch request carries, per chapter (for the estimate)

CallHook = Callable[[str, list[int]], None]  # before a first call (not a repair): its stage and its chapters


class PlanRejected(StudioError):
    """The plan still had errors after the repair rounds; nothing was staged."""

    def __init__(self, message: str, *, errors: list[str], calls: list[CallRecord]) -> None:
        super().__init__(message)
        self.errors = errors
        self.calls = calls


class NewCharacter(BaseModel):
    """A character the plan needs that the project does not have yet (`new_characters` of the reply)."""

    model_config = ConfigDict(extra="allow")

    id: str = Field(min_length=1)
    display_name: str = Field(min_length=1)
    role: str = ""
    reason: str = ""


class ContractsReply(FileModel):
    """The reply of one contract batch."""

    chapter_contracts: list[ChapterContract] = Field(min_length=1)


@dataclass
class PlanOutcome:
    plan: VolumePlan  # contracts with chained preconditions
    report: PlanReport  # no error; the warnings for the approval
    calls: list[CallRecord] = field(default_factory=list)
    new_characters: list[NewCharacter] = field(default_factory=list)

    @property
    def cost_usd(self) -> float:
        return round(sum(c.cost_usd or 0.0 for c in self.calls), 6)


@dataclass(frozen=True)
class PlanEstimate:
    """Upper bound of a volume plan before any call: the outline call and `batches` contract calls."""

    model: str
    outline_usd: float
    batches: int
    batch_usd: float

    @property
    def total_usd(self) -> float:
        return round(self.outline_usd + self.batches * self.batch_usd, 4)


def batches(chapters: Sequence[int], size: int = CONTRACT_BATCH) -> list[list[int]]:
    """`chapters` (sorted) cut into runs of at most `size`; a break in the numbers starts a new batch."""
    out: list[list[int]] = []
    for n in sorted(set(chapters)):
        if out and len(out[-1]) < size and out[-1][-1] == n - 1:
            out[-1].append(n)
        else:
            out.append([n])
    return out


def plan_request(
    project: Project,
    settings: Settings,
    target: PlanTarget,
    *,
    note: str = "",
    fixed_outline: str = "",
    registry: PromptRegistry | None = None,
) -> ModelRequest:
    """The outline request for `target` (what `novel-studio prompt plot` shows for the next volume)."""
    requests = AgentRequests(project, settings, registry or project_registry(project.root))
    bundle = plot_architect_context(
        project, target=target, note=note, fixed_outline=fixed_outline, registry=requests.registry
    )
    return replace(requests.build(bundle, PLAN_AGENT), stage=PLAN_STAGE)


def contracts_request(
    project: Project,
    settings: Settings,
    plan: VolumePlan,
    chapters: list[int],
    before: dict[str, dict[str, object]],
    *,
    registry: PromptRegistry | None = None,
) -> ModelRequest:
    """The request of one contract batch."""
    requests = AgentRequests(project, settings, registry or project_registry(project.root))
    bundle = plot_contracts_context(project, plan, chapters, before, registry=requests.registry)
    request = requests.build(bundle, PLAN_AGENT, chapter=chapters[0])
    return replace(request, stage=CONTRACT_STAGE, max_tokens=min(request.max_tokens, CONTRACT_MAX_TOKENS))


def contracts_batch_request(
    project: Project,
    settings: Settings,
    plan: VolumePlan,
    chapter: int | None = None,
    *,
    registry: PromptRegistry | None = None,
) -> tuple[list[int], ModelRequest]:
    """(the batch's chapters, its request): the contract batch of `plan` that holds `chapter` (default: the
    first chapter without a contract, else the first), chained from the plan's contracts before it, as the plan
    session would ask it (what `novel-studio prompt contracts` shows). ValueError for a chapter outside the plan."""
    numbers = plan.outline.numbers() or list(plan.chapters())
    if chapter is None:
        chapter = next((n for n in numbers if plan.contract(n) is None), numbers[0])
    batch = next((b for b in batches(numbers) if chapter in b), None)
    if batch is None:
        raise ValueError(f"chapter {chapter} is not in the plan of volume {plan.volume}")
    ctx = _context(project, plan, [])
    before = state_before([c for c in plan.contracts if c.chapter < batch[0]], ctx, batch[0])
    return batch, contracts_request(project, settings, plan, batch, before, registry=registry)


def _usd(input_tokens: int, output_tokens: int, model: str, settings: Settings) -> float:
    usage = Usage(input_tokens=input_tokens, output_tokens=output_tokens)
    return cost_usd(usage, price_for(model, settings_prices(settings))) or 0.0


def estimate_plan_cost(request: ModelRequest, settings: Settings, *, offline: bool) -> float:
    """Upper bound of one planning call in USD (input estimated, output at its token budget)."""
    if offline:
        return 0.0
    return round(_usd(estimate_tokens(request_text(request)), request.max_tokens, request.model, settings), 4)


def estimate_volume_plan(request: ModelRequest, settings: Settings, chapters: int, *, offline: bool) -> PlanEstimate:
    """Upper bound of planning `chapters` chapters: the outline `request` plus its contract batches."""
    n_batches = math.ceil(max(1, chapters) / CONTRACT_BATCH)
    if offline:
        return PlanEstimate(request.model, 0.0, n_batches, 0.0)
    batch_in = estimate_tokens(request_text(request)) + min(chapters, CONTRACT_BATCH * 4) * OUTLINE_TOKENS_PER_CHAPTER
    batch_out = min(request.max_tokens, CONTRACT_MAX_TOKENS)
    return PlanEstimate(
        request.model,
        estimate_plan_cost(request, settings, offline=False),
        n_batches,
        round(_usd(batch_in, batch_out, request.model, settings), 4),
    )


def estimate_contracts_cost(
    project: Project, settings: Settings, plan: VolumePlan, chapters: Sequence[int], *, offline: bool
) -> float:
    """Upper bound of re-deriving the contracts of `chapters` of `plan` (the batch requests built as they
    would be sent)."""
    if offline or not chapters:
        return 0.0
    ctx = _context(project, plan, ())
    total = 0.0
    for batch in batches(chapters):
        request = contracts_request(project, settings, plan, batch, state_before(plan.contracts, ctx, batch[0]))
        total += estimate_plan_cost(request, settings, offline=False)
    return round(total, 4)


# ------------------------------------------------------------------------------------------- calls


def _context(project: Project, plan: VolumePlan, new_characters: Sequence[NewCharacter]) -> PlanContext:
    new_lines = [e.storyline_id for e in plan.schedule.active_storylines if e.storyline_id]
    return plan_context(
        project,
        new_storylines=new_lines,
        new_characters={c.id: c.display_name for c in new_characters},
        replanned_from=plan.first_chapter,
    )


def _new_characters(reply: VolumePlanReply, project: Project) -> tuple[list[NewCharacter], list[str]]:
    raw = reply.model_extra.get("new_characters") if reply.model_extra else None
    if raw is None:
        return [], []
    if not isinstance(raw, list):
        return [], ["$.new_characters: 应为一个列表"]
    out: list[NewCharacter] = []
    errors: list[str] = []
    for i, item in enumerate(raw):
        try:
            character = NewCharacter.model_validate(item)
        except ValueError as exc:
            errors.append(f"$.new_characters[{i}]: {exc}")
            continue
        if not is_slug(character.id):
            errors.append(f"$.new_characters[{i}].id: {character.id!r} 不是 slug id（小写英文/拼音 + 连字符）")
        elif character.id in project.characters:
            continue  # already there: not new
        else:
            out.append(character)
    return out, errors


def _outline_errors(
    text: str, target: PlanTarget, project: Project
) -> tuple[PlanOutcome | None, list[str]]:
    reply, errors = parse_reply(text, VolumePlanReply)
    if reply is None:
        return None, errors
    new_characters, errors = _new_characters(reply, project)
    if errors:
        return None, errors
    try:
        plan = reply.to_plan(target.volume, target.first, target.last)
    except FormatError as exc:
        return None, [str(p) for p in exc.problems] or [str(exc)]
    plan = plan.model_copy(update={"contracts": []})  # contracts come in batches
    checked, report = check_plan(plan, _context(project, plan, new_characters), require_contracts=False)
    if not report.ok:
        return None, report.error_lines("zh")
    return PlanOutcome(checked, report, new_characters=new_characters), []


def _rejected(what: str, errors: list[str], calls: list[CallRecord]) -> PlanRejected:
    return PlanRejected(
        f"{what}经过 {MAX_REPAIRS} 轮修正仍有错误，未暂存任何内容：\n" + "\n".join(f"- {e}" for e in errors),
        errors=errors,
        calls=calls,
    )


async def plan_outline(
    project: Project,
    settings: Settings,
    provider: Provider,
    target: PlanTarget,
    *,
    note: str = "",
    fixed_outline: str = "",
    registry: PromptRegistry | None = None,
    on_retry: RetryHook | None = None,
    on_call: CallHook | None = None,
) -> PlanOutcome:
    """The outline call with its repair rounds: a plan without contracts (raises PlanRejected)."""
    registry = registry or project_registry(project.root)
    if on_call is not None:
        on_call(PLAN_STAGE, list(range(target.first, target.last + 1)))
    current = plan_request(project, settings, target, note=note, fixed_outline=fixed_outline, registry=registry)
    calls: list[CallRecord] = []
    errors: list[str] = []
    for attempt in range(MAX_REPAIRS + 1):
        result, record = await priced_call(provider, settings, current, PLAN_STAGE if attempt == 0 else REPAIR_STAGE,
                                     on_retry)
        calls.append(record)
        outcome, errors = _outline_errors(result.text, target, project)
        if outcome is not None:
            outcome.calls = calls
            return outcome
        if attempt < MAX_REPAIRS:
            current = repair_request(current, result.text, errors, registry)
    raise _rejected(f"第 {target.volume} 卷的大纲", errors, calls)


def _batch_errors(
    text: str, plan: VolumePlan, batch: list[int], kept: list[ChapterContract], ctx: PlanContext
) -> tuple[list[ChapterContract] | None, list[str]]:
    reply, errors = parse_reply(text, ContractsReply)
    if reply is None:
        return None, errors
    got = [c.chapter for c in reply.chapter_contracts]
    if sorted(got) != batch:
        return None, [
            f"$.chapter_contracts: 本批应为第 {batch[0]}-{batch[-1]} 章各一条契约（章号连续、不重复），"
            f"实际是第 {'、'.join(map(str, got)) or '（无）'} 章"
        ]
    candidate = plan.model_copy(update={"contracts": [*kept, *reply.chapter_contracts]})
    _, report = check_plan(candidate, ctx, require_contracts=False)
    wrong = [f for f in report.errors if f.chapter is None or f.chapter in batch]
    if wrong:
        return None, [f.line("zh") for f in wrong]
    return list(reply.chapter_contracts), []


async def derive_contracts(
    project: Project,
    settings: Settings,
    provider: Provider,
    plan: VolumePlan,
    chapters: Sequence[int],
    *,
    new_characters: Sequence[NewCharacter] = (),
    registry: PromptRegistry | None = None,
    on_retry: RetryHook | None = None,
    on_call: CallHook | None = None,
) -> tuple[VolumePlan, list[CallRecord]]:
    """The contracts of `chapters` derived in batches (see the module rules); the plan with them (its other
    contracts kept, preconditions after the first derived chapter chained again) and the calls made.
    Raises PlanRejected when a batch still has errors after its repairs."""
    registry = registry or project_registry(project.root)
    ctx = _context(project, plan, new_characters)
    todo = sorted(set(chapters))
    calls: list[CallRecord] = []
    if not todo:
        return plan, calls
    first = todo[0]
    contracts = [
        c if c.chapter < first else c.model_copy(
            update={"preconditions": c.preconditions.model_copy(update={"character_states": {}})}, deep=True
        )
        for c in plan.contracts
        if c.chapter not in todo
    ]
    for batch in batches(todo):
        kept = sorted(contracts, key=lambda c: c.chapter)
        base = plan.model_copy(update={"contracts": kept})
        current = contracts_request(project, settings, base, batch, state_before(kept, ctx, batch[0]),
                                    registry=registry)
        errors: list[str] = []
        derived: list[ChapterContract] | None = None
        if on_call is not None:
            on_call(CONTRACT_STAGE, batch)
        for attempt in range(MAX_REPAIRS + 1):
            stage = CONTRACT_STAGE if attempt == 0 else CONTRACT_REPAIR_STAGE
            result, record = await priced_call(provider, settings, current, stage, on_retry)
            calls.append(record)
            derived, errors = _batch_errors(result.text, base, batch, kept, ctx)
            if derived is not None:
                break
            if attempt < MAX_REPAIRS:
                current = repair_request(current, result.text, errors, registry)
        if derived is None:
            raise _rejected(f"第 {plan.volume} 卷第 {batch[0]}-{batch[-1]} 章的章节契约", errors, calls)
        contracts += derived
    return plan.model_copy(update={"contracts": sorted(contracts, key=lambda c: c.chapter)}), calls


def final_check(
    project: Project, plan: VolumePlan, new_characters: Sequence[NewCharacter] = ()
) -> tuple[VolumePlan, PlanReport]:
    """Every check of a whole plan (contracts required), its contracts chained."""
    return check_plan(plan, _context(project, plan, new_characters))


async def plan_volume(
    project: Project,
    settings: Settings,
    provider: Provider,
    target: PlanTarget,
    *,
    note: str = "",
    fixed_outline: str = "",
    registry: PromptRegistry | None = None,
    on_retry: RetryHook | None = None,
    on_call: CallHook | None = None,
) -> PlanOutcome:
    """Plan `target`: the outline call, then its contracts in batches, then every check on the whole plan
    (see the module rules); raises PlanRejected or a ProviderError."""
    outline = await plan_outline(project, settings, provider, target, note=note, fixed_outline=fixed_outline,
                                 registry=registry, on_retry=on_retry, on_call=on_call)
    calls = list(outline.calls)
    try:
        plan, more = await derive_contracts(
            project, settings, provider, outline.plan, list(outline.plan.chapters()),
            new_characters=outline.new_characters, registry=registry, on_retry=on_retry, on_call=on_call,
        )
    except PlanRejected as exc:
        exc.calls = [*calls, *exc.calls]
        raise
    calls += more
    checked, report = final_check(project, plan, outline.new_characters)
    if not report.ok:  # each batch passed with the ones before it; the whole can still fail (a missing contract)
        raise _rejected(f"第 {target.volume} 卷的计划", report.error_lines("zh"), calls)
    return PlanOutcome(checked, report, calls, outline.new_characters)
