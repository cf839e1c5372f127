"""Precondition chaining of a volume plan's L3 contracts (seed 000 §6.5.4: "前一章的 postconditions 即本章的
preconditions"; issue 7: filled and checked by code, on slug ids, across storylines).

Rules:
- The expected state before chapter n is the current state (`state/current-state.json`) with the
  `postconditions.state_changes` of every planned chapter before n applied in chapter order, whatever their
  storyline: a fact one line establishes holds for the others too.
- Character keys are resolved to slug ids (a display name is accepted and rewritten to its slug); a key that
  resolves to nobody is left as written (`validate_plan` reports it as an unknown id).
- Only scalar fields (text, numbers, booleans) are compared and filled. A state-change value that is not an
  object (`"lin-feng": "受伤"`) carries no field and is kept as written.
- Check: a precondition the model wrote that differs from the expected value (after whitespace is collapsed)
  is an error naming the chapter whose postcondition (or the current state) set it; the expected value is
  filled in. Fields in `SOFT_FIELDS` (a mood drifts off-page) only warn, and the model's value is kept.
- Fill: each contract's `preconditions.character_states` holds, for every character its pre- or
  postconditions or its outline POV name, the expected value of every scalar field the state knows or the
  model wrote; values the model wrote for fields nothing set before are kept.
"""

from __future__ import annotations

from typing import Any

from studio.i18n import Lang, tr
from studio.models.contract import ChapterContract
from studio.models.volume_plan import VolumePlan
from studio.planning.checks import PlanContext, validate_plan
from studio.planning.findings import MESSAGES, Finding, PlanReport

__all__ = ["SOFT_FIELDS", "chain_preconditions", "check_plan", "state_before"]

_SKIP_FIELDS = frozenset({"display_name"})
SOFT_FIELDS = frozenset({"emotional_state"})


def _scalar(value: object) -> bool:
    return isinstance(value, str | int | float | bool) and not (isinstance(value, str) and not value.strip())


def _norm(value: object) -> str:
    return " ".join(str(value).split())


def _fields(value: object) -> dict[str, Any]:
    return {k: v for k, v in value.items() if isinstance(k, str)} if isinstance(value, dict) else {}


def chain_preconditions(plan: VolumePlan, ctx: PlanContext) -> tuple[list[ChapterContract], list[Finding]]:
    """The plan's contracts with chained preconditions (chapter order), and the contradictions found."""
    known = _initial(ctx)

    def slug_of(key: str) -> str:
        return ctx.resolve_character(key) or key

    out: list[ChapterContract] = []
    findings: list[Finding] = []
    for contract in sorted(plan.contracts, key=lambda c: c.chapter):
        n = contract.chapter
        wrote = {slug_of(k): _fields(v) for k, v in contract.preconditions.character_states.items()}
        kept_raw = {slug_of(k): v for k, v in contract.preconditions.character_states.items() if not isinstance(v, dict)}
        changes = {slug_of(k): v for k, v in contract.postconditions.state_changes.items()}
        entry = plan.outline.get(n)
        pov = ctx.resolve_character(entry.pov) if entry is not None and entry.pov else None
        involved = list(dict.fromkeys([*([pov] if pov else []), *wrote, *changes]))
        filled: dict[str, Any] = {}
        for slug in involved:
            state = dict(wrote.get(slug, {}))
            for name, value in wrote.get(slug, {}).items():
                expected = known.get(slug, {}).get(name)
                if expected is None or not _scalar(value):
                    continue
                if _norm(value) != _norm(expected[0]):
                    source_chapter = expected[1]
                    findings.append(
                        Finding(
                            "precondition_mismatch",
                            "warning" if name in SOFT_FIELDS else "error",
                            f"contract ch{n} preconditions.{slug}.{name}",
                            {
                                "chapter": n,
                                "character": ctx.characters.get(slug, slug),
                                "field": name,
                                "wrote": _norm(value),
                                "expected": _norm(expected[0]),
                                "source": _source(source_chapter, "zh"),
                                "source_en": _source(source_chapter, "en"),
                            },
                            n,
                        )
                    )
            for name, (value, _) in known.get(slug, {}).items():
                if not (name in SOFT_FIELDS and name in state):
                    state[name] = value
            if state:
                filled[slug] = dict(sorted(state.items()))
            elif slug in kept_raw:
                filled[slug] = kept_raw[slug]
        preconditions = contract.preconditions.model_copy(update={"character_states": filled}, deep=True)
        out.append(
            contract.model_copy(
                update={
                    "preconditions": preconditions,
                    "postconditions": contract.postconditions.model_copy(
                        update={"state_changes": changes}, deep=True
                    ),
                },
                deep=True,
            )
        )
        _advance(known, changes, n)
    return out, findings


Known = dict[str, dict[str, tuple[object, int | None]]]  # slug -> field -> (value, set by chapter or None)


def _initial(ctx: PlanContext) -> Known:
    known: Known = {}
    for slug, character in ctx.state.characters.items():
        for name, value in character.to_data().items():
            if name not in _SKIP_FIELDS and _scalar(value):
                known.setdefault(slug, {})[name] = (value, None)
    return known


def _advance(known: Known, changes: dict[str, Any], chapter: int) -> None:
    for slug, value in changes.items():
        for name, field_value in _fields(value).items():
            if name not in _SKIP_FIELDS and _scalar(field_value):
                known.setdefault(slug, {})[name] = (field_value, chapter)


def state_before(contracts: list[ChapterContract], ctx: PlanContext, chapter: int) -> dict[str, dict[str, object]]:
    """The expected scalar state of every character before `chapter`: the current state with the
    postconditions of the given contracts before `chapter` applied in chapter order (what a batch of
    contracts starting at `chapter` must agree with)."""
    known = _initial(ctx)
    for contract in sorted(contracts, key=lambda c: c.chapter):
        if contract.chapter >= chapter:
            break
        changes = {ctx.resolve_character(k) or k: v for k, v in contract.postconditions.state_changes.items()}
        _advance(known, changes, contract.chapter)
    return {slug: {name: value for name, (value, _) in sorted(fields.items())} for slug, fields in sorted(known.items())}


def _source(chapter: int | None, lang: Lang) -> str:
    if chapter is None:
        return tr(MESSAGES, "source_state", lang)
    return tr(MESSAGES, "source_chapter", lang, chapter=chapter)


def check_plan(plan: VolumePlan, ctx: PlanContext, *, require_contracts: bool = True) -> tuple[VolumePlan, PlanReport]:
    """All the checks by code of a plan, in one call: `validate_plan`'s errors and warnings plus the chaining's;
    returns the plan with its contracts' preconditions chained (use it only when the report has no error)."""
    report = validate_plan(plan, ctx, require_contracts=require_contracts)
    contracts, findings = chain_preconditions(plan, ctx)
    report.extend(findings)
    return plan.model_copy(update={"contracts": contracts}), report
