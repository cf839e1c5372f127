"""The checks by code a volume plan passes before anyone sees it (issue 7 item 3; seed 000 §6.6.2, §6.6.3).

Errors (the plan goes back to PlotArchitect for repair, and never reaches `volumes/` while any is left):
- an unknown id: a storyline, character (POV, contract keys; slug or display name), world rule or
  foreshadowing thread that neither the project nor the plan itself defines;
- chapter numbers: a gap, a duplicate, or a chapter outside the volume's range, in the outline and in the
  contracts (with `require_contracts`, every outline chapter needs a contract);
- a chapter whose storyline is not an active line of the volume's schedule (and, with several active lines,
  a chapter that names none); a contract whose storyline differs from its outline entry;
- a convergence event whose chapter range is not inside the volume, or that involves an inactive line;
- more than `MAX_ACTIVE_STORYLINES` (4) active lines, one listed twice, or a schedule for another volume;
- a new thread without scope or target range, planted outside the volume, due before it is planted, or
  reusing an id the ledger already has;
- a precondition that contradicts the chained state (`studio.planning.chaining`).

Warnings (shown at approval, never blocking) — the pacing rules of the schedule's `interleaving_pattern`:
- `primary_max_consecutive` N: a primary line may run at most N chapters in a row (only checked when the
  volume has more than one active line);
- `secondary_min_appearance` "every_K_chapters": every secondary line appears in each stretch of K chapters
  (a convergence chapter counts for every line it involves); a secondary line that never appears is warned too.

Everything here is pure: the project's facts come in as a `PlanContext`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from studio.models.contract import ChapterContract
from studio.models.foreshadowing import ForeshadowingLedger
from studio.models.schedule import MAX_ACTIVE_STORYLINES
from studio.models.state import CurrentState
from studio.models.volume_plan import VolumePlan
from studio.planning.findings import Finding, PlanReport

__all__ = ["PlanContext", "pacing_warnings", "validate_plan"]

_THREAD_TOKEN = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)+")
_EVERY = re.compile(r"(\d+)")


@dataclass(frozen=True)
class PlanContext:
    """What the project already defines, for the plan's references to resolve against."""

    storylines: frozenset[str] = frozenset()
    characters: Mapping[str, str] = field(default_factory=dict)  # slug -> display name
    world_rules: frozenset[str] = frozenset()
    threads: frozenset[str] = frozenset()  # foreshadowing ids of the ledger
    state: CurrentState = field(default_factory=CurrentState)

    @classmethod
    def build(
        cls,
        *,
        storylines: Iterable[str] = (),
        characters: Mapping[str, str] | None = None,
        world_rules: Iterable[str] = (),
        ledger: ForeshadowingLedger | None = None,
        state: CurrentState | None = None,
    ) -> PlanContext:
        names = dict(characters or {})
        state = state or CurrentState()
        for slug, c in state.characters.items():
            names.setdefault(slug, c.display_name or slug)
        return cls(
            storylines=frozenset(storylines),
            characters=names,
            world_rules=frozenset(world_rules),
            threads=frozenset(i.id for i in (ledger.foreshadowing if ledger else [])),
            state=state,
        )

    def resolve_character(self, token: str | None) -> str | None:
        """The slug of a character named by slug or display name, else None."""
        if not token:
            return None
        token = token.strip()
        if token in self.characters:
            return token
        return next((slug for slug, name in self.characters.items() if name == token), None)


def _err(code: str, where: str, at: int | None = None, /, **params: object) -> Finding:
    return Finding(code, "error", where, dict(params), at)


def _warn(code: str, where: str, at: int | None = None, /, **params: object) -> Finding:
    return Finding(code, "warning", where, dict(params), at)


def _number_findings(numbers: list[int], first: int, last: int, what: str) -> list[Finding]:
    out: list[Finding] = []
    counts = Counter(numbers)
    for n, count in sorted(counts.items()):
        if count > 1:
            out.append(_err("duplicate_chapter", f"{what} ch{n}", n, chapter=n, count=count))
        if not first <= n <= last:
            out.append(_err("chapter_outside", f"{what} ch{n}", n, chapter=n, first=first, last=last))
    return out


def _gap(numbers: Iterable[int], first: int, last: int, what: str) -> list[Finding]:
    missing = sorted(set(range(first, last + 1)) - set(numbers))
    if not missing:
        return []
    return [_err("chapter_gap", what, missing[0], missing="、".join(map(str, missing)), count=len(missing))]


def _schedule_findings(plan: VolumePlan, ctx: PlanContext, storylines: frozenset[str]) -> list[Finding]:
    out: list[Finding] = []
    schedule = plan.schedule
    if schedule.volume != plan.volume:
        out.append(_err("schedule_volume", "schedule.volume", got=schedule.volume, volume=plan.volume))
    active = [s.storyline_id for s in schedule.active_storylines]
    if len(active) > MAX_ACTIVE_STORYLINES:
        out.append(_err("too_many_lines", "schedule.active_storylines", count=len(active), max=MAX_ACTIVE_STORYLINES))
    for sid, count in Counter(active).items():
        if count > 1:
            out.append(_err("duplicate_line", "schedule.active_storylines", id=sid))
    refs = [(f"schedule.active_storylines[{i}]", s) for i, s in enumerate(active)]
    refs += [(f"schedule.dormant_storylines[{i}]", s) for i, s in enumerate(schedule.dormant_storylines)]
    refs += [(f"schedule.newly_activated[{i}]", s) for i, s in enumerate(schedule.newly_activated)]
    for i, event in enumerate(schedule.convergence_events):
        where = f"schedule.convergence_events[{i}]"
        first, last = event.chapter_range
        if first < plan.first_chapter or last > plan.last_chapter:
            out.append(
                _err(
                    "convergence_outside",
                    where,
                    first,
                    first=first,
                    last=last,
                    volume_first=plan.first_chapter,
                    volume_last=plan.last_chapter,
                )
            )
        for sid in event.involved_storylines:
            if sid not in storylines:
                refs.append((where, sid))
            elif sid not in active:
                out.append(_err("convergence_inactive", where, first, id=sid))
    out += [_err("unknown_storyline", where, id=sid) for where, sid in refs if sid not in storylines]
    return out


def _outline_findings(plan: VolumePlan, ctx: PlanContext, storylines: frozenset[str], threads: frozenset[str]) -> list[Finding]:
    out: list[Finding] = []
    numbers = plan.outline.numbers()
    out += _number_findings(numbers, plan.first_chapter, plan.last_chapter, "outline")
    out += _gap(numbers, plan.first_chapter, plan.last_chapter, "outline")
    active = {s.storyline_id for s in plan.schedule.active_storylines}
    for ch in plan.outline.chapters:
        where = f"outline ch{ch.number}"
        if ch.storyline is None:
            if len(active) > 1:
                out.append(_err("missing_storyline", where, ch.number, chapter=ch.number))
        elif ch.storyline not in storylines:
            out.append(_err("unknown_storyline", where, ch.number, id=ch.storyline))
        elif ch.storyline not in active:
            out.append(_err("storyline_not_active", where, ch.number, chapter=ch.number, id=ch.storyline))
        if ch.pov and ctx.resolve_character(ch.pov) is None:
            out.append(_err("unknown_character", f"{where} POV", ch.number, id=ch.pov))
        for token in _THREAD_TOKEN.findall(ch.foreshadowing or ""):
            if token not in threads:
                out.append(_err("unknown_thread", f"{where} Foreshadowing", ch.number, id=token))
    return out


def _thread_findings(plan: VolumePlan, ctx: PlanContext) -> list[Finding]:
    out: list[Finding] = []
    for item in plan.foreshadowing:
        where = f"foreshadowing.{item.id}"
        if item.id in ctx.threads:
            out.append(_err("thread_exists", where, id=item.id))
        if item.scope is None:
            out.append(_err("thread_no_scope", where, id=item.id))
        if item.target_resolve_range is None:
            out.append(_err("thread_no_range", where, id=item.id))
        planted = item.planted_chapter
        if planted is not None and not plan.first_chapter <= planted <= plan.last_chapter:
            out.append(
                _err(
                    "thread_planted_outside",
                    where,
                    planted,
                    id=item.id,
                    chapter=planted,
                    first=plan.first_chapter,
                    last=plan.last_chapter,
                )
            )
        rng = item.target_resolve_range
        if planted is not None and rng is not None and rng[0] < planted:
            out.append(_err("thread_range_before_plant", where, planted, id=item.id, first=rng[0], last=rng[1], chapter=planted))
        if item.planted_storyline is not None and item.planted_storyline not in ctx.storylines:
            out.append(_err("unknown_storyline", where, id=item.planted_storyline))
    return out


def _contract_findings(
    plan: VolumePlan, ctx: PlanContext, storylines: frozenset[str], threads: frozenset[str], require: bool
) -> list[Finding]:
    out: list[Finding] = []
    numbers = [c.chapter for c in plan.contracts]
    out += _number_findings(numbers, plan.first_chapter, plan.last_chapter, "contracts")
    if require:
        for n in sorted(set(plan.outline.numbers()) - set(numbers)):
            out.append(_err("missing_contract", f"contract ch{n}", n, chapter=n))
    for contract in plan.contracts:
        out += _one_contract(plan, ctx, contract, storylines, threads)
    return out


def _one_contract(
    plan: VolumePlan, ctx: PlanContext, contract: ChapterContract, storylines: frozenset[str], threads: frozenset[str]
) -> list[Finding]:
    n = contract.chapter
    where = f"contract ch{n}"
    out: list[Finding] = []
    entry = plan.outline.get(n)
    sid = contract.storyline_id
    if sid is not None:
        if sid not in storylines:
            out.append(_err("unknown_storyline", f"{where} storyline_id", n, id=sid))
        elif entry is not None and entry.storyline is not None and entry.storyline != sid:
            out.append(
                _err("contract_storyline_mismatch", where, n, chapter=n, contract=sid, outline=entry.storyline)
            )
    hint = contract.transition_hint
    if hint is not None and hint.next_storyline and hint.next_storyline not in storylines:
        out.append(_err("unknown_storyline", f"{where} transition_hint", n, id=hint.next_storyline))
    keys = [*contract.preconditions.character_states, *contract.postconditions.state_changes]
    for key in dict.fromkeys(keys):
        if ctx.resolve_character(key) is None:
            out.append(_err("unknown_character", f"{where} character_states", n, id=key))
    for rule in contract.preconditions.required_world_rules:
        if rule not in ctx.world_rules:
            out.append(_err("unknown_rule", f"{where} required_world_rules", n, id=rule))
    targets = [*contract.postconditions.foreshadowing_updates]
    targets += [o.target for o in contract.objectives if o.action and o.target]
    for fid in dict.fromkeys(targets):
        if fid not in threads:
            out.append(_err("unknown_thread", f"{where} foreshadowing", n, id=fid))
    return out


def _every(value: str | None) -> int | None:
    match = _EVERY.search(value or "")
    return int(match.group(1)) if match and int(match.group(1)) > 0 else None


def pacing_warnings(plan: VolumePlan) -> list[Finding]:
    """The seed's §6.6.2 pacing rules over the outline's chapter order (see the module rules)."""
    schedule = plan.schedule
    pattern = schedule.interleaving_pattern
    line_of = {ch.number: ch.storyline for ch in plan.outline.chapters}
    order = sorted(line_of)
    convergence: dict[int, set[str]] = {}
    for event in schedule.convergence_events:
        for n in event.chapters():
            convergence.setdefault(n, set()).update(event.involved_storylines)
    out: list[Finding] = []
    limit = pattern.primary_max_consecutive
    if limit is not None and len(schedule.active_storylines) > 1:
        for entry in schedule.active_storylines:
            if entry.volume_role != "primary":
                continue
            run: list[int] = []
            marks: list[int | None] = [*order, None]
            for mark in marks:
                if mark is not None and line_of[mark] == entry.storyline_id and (not run or run[-1] == mark - 1):
                    run.append(mark)
                    continue
                if len(run) > limit:
                    out.append(
                        _warn("primary_run", f"outline ch{run[0]}", run[0], id=entry.storyline_id,
                              count=len(run), first=run[0], last=run[-1], max=limit)
                    )
                run = [mark] if mark is not None and line_of[mark] == entry.storyline_id else []
    every = _every(pattern.secondary_min_appearance)
    if every is not None and order:
        for entry in schedule.active_storylines:
            if entry.volume_role != "secondary":
                continue
            sid = entry.storyline_id
            seen = [n for n in order if line_of[n] == sid or sid in convergence.get(n, set())]
            if not seen:
                out.append(_warn("secondary_absent", "outline", None, id=sid))
                continue
            # stretches without the line: before the first, between two, after the last appearance
            bounds = [order[0] - 1, *seen, order[-1] + 1]
            for before, after in zip(bounds, bounds[1:], strict=False):
                count = after - before - 1
                if count >= every:
                    out.append(
                        _warn("secondary_gap", f"outline ch{before + 1}", before + 1, id=sid, count=count,
                              first=before + 1, last=after - 1, every=every)
                    )
    return out


def validate_plan(plan: VolumePlan, ctx: PlanContext, *, require_contracts: bool = True) -> PlanReport:
    """Every error and warning of `plan` (see the module rules); precondition chaining is separate
    (`studio.planning.chaining.chain_preconditions`) because it also rewrites the contracts."""
    storylines = ctx.storylines  # lines the plan adds are staged with it: the caller puts them in ctx
    threads = ctx.threads | {item.id for item in plan.foreshadowing}
    report = PlanReport()
    report.extend(_schedule_findings(plan, ctx, storylines))
    report.extend(_outline_findings(plan, ctx, storylines, threads))
    report.extend(_thread_findings(plan, ctx))
    report.extend(_contract_findings(plan, ctx, storylines, threads, require_contracts))
    report.extend(pacing_warnings(plan))
    return report
