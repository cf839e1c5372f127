"""The `PlanContext` of a project: what its files define, read once (storylines, characters, world rules, the
foreshadowing ledger and the current state). Lines and characters a plan brings with it (staged with the plan)
are passed in, so that the plan's references to them resolve. With `replanned_from` (the plan's first chapter),
the ledger's threads planted at or after that chapter are left out: they belong to an earlier plan of chapters
not written yet, which the new plan replaces (its threads may take their ids again)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from studio.models.foreshadowing import ForeshadowingLedger
from studio.models.state import CurrentState
from studio.planning.checks import PlanContext
from studio.project import Project

__all__ = ["plan_context"]


def plan_context(
    project: Project,
    *,
    new_storylines: Iterable[str] = (),
    new_characters: Mapping[str, str] | None = None,
    replanned_from: int | None = None,
) -> PlanContext:
    characters = {slug: c.display_name for slug, c in project.characters.items()}
    characters.update(new_characters or {})
    ledger = ForeshadowingLedger.load_or_default(project.paths.global_foreshadowing)
    if replanned_from is not None:
        kept = [i for i in ledger.foreshadowing if i.planted_chapter is None or i.planted_chapter < replanned_from]
        ledger = ledger.model_copy(update={"foreshadowing": kept})
    return PlanContext.build(
        storylines=[*project.storylines.ids(), *new_storylines],
        characters=characters,
        world_rules=[r.id for r in project.world_rules.rules],
        ledger=ledger,
        state=CurrentState.load_or_default(project.paths.current_state),
    )
