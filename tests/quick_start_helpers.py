"""Shared helpers of the quick-start tests: a project with a brief, a run of the one quick-start flow with the
offline provider (planning) and scripted trial agents, and the checks that every file it wrote is valid."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pipeline.decisions import Decider, Question, take_recommended
from pipeline.events import Event
from pipeline.planning.quick_start import QuickStartOutcome, run_quick_start
from pipeline.providers.base import Provider
from pipeline.providers.factory import build_provider
from studio.author_brief import brief_from_answers
from studio.checks.names import NameRegistry
from studio.config import load_settings
from studio.fileio import atomic_write_text
from studio.init_project import init_project
from studio.models.character import CharacterFile
from studio.models.checkpoint import Checkpoint, OrchestratorState
from studio.models.names import NamesFile
from studio.models.quick_start import QuickStartRequest
from studio.models.relationships import Relationships
from studio.models.storyline_spec import StorylineSpec
from studio.models.storylines import Storylines
from studio.models.style_profile import StyleProfile
from studio.models.volume_plan import load_volume_plan
from studio.models.world_rules import WorldRules
from studio.paths import ProjectPaths
from studio.planning.quick_start_progress import progress_path
from studio.project import Project
from tests.fake_agents import FakeAgents

BRIEF = {"genre": "都市奇幻", "protagonist": "沈照，旧书店学徒，嘴硬心软", "conflict": "守规矩还是救人"}
BRIEF_ARGS = [a for k, v in BRIEF.items() for a in ("--brief-field", f"{k}={v}")]


def briefed_project(tmp_path: Path, name: str = "novel") -> Path:
    root = init_project(tmp_path / name)
    atomic_write_text(root / "brief.md", brief_from_answers(name, BRIEF))
    return root


def answers(*items: str) -> Decider:
    """A decider answering TRIAL_CONFIRM with `items` in turn (then confirm), everything else as recommended."""
    queue = list(items)
    asked: list[Question] = []

    async def decide(question: Question) -> str:
        if question.kind.value == "trial_confirm":
            asked.append(question)
            return queue.pop(0) if queue else "confirm"
        return await take_recommended(question)

    decide.asked = asked  # type: ignore[attr-defined]
    return decide


def quick_start(
    root: Path,
    request: QuickStartRequest | None = None,
    *,
    decide: Decider = take_recommended,
    provider: Provider | None = None,
    events: list[Event] | None = None,
    max_cost_usd: float | None = None,
) -> QuickStartOutcome:
    settings = load_settings(root)
    provider = provider or build_provider(settings, root, offline=True)
    sink: list[Event] = events if events is not None else []
    return asyncio.run(run_quick_start(
        root, settings, provider, request or QuickStartRequest(), decide, sink.append,
        agents=FakeAgents(ProjectPaths(root)), max_cost_usd=max_cost_usd,
    ))


def assert_quick_start_done(root: Path) -> None:
    """Everything the quick start leaves, each file valid by its model (seed 001 §9)."""
    paths = ProjectPaths(root)
    project = Project.open(root)  # validates every file of the project
    cp = Checkpoint.load(paths.checkpoint)
    assert (cp.last_completed_chapter, cp.orchestrator_state) == (3, OrchestratorState.VOL_PLANNING)
    assert not progress_path(paths).exists() and not paths.staging.joinpath("quick-start").exists()
    rules = WorldRules.load(paths.world_rules)
    assert 1 <= len(rules.rules) <= 3 and rules.problems() == []
    assert (root / "world" / "changelog.md").is_file() and list((root / "world").glob("*.md"))
    assert NamesFile.load(paths.names).entities
    cast = {p.stem: CharacterFile.load(p) for p in paths.characters_active.glob("*.json")}
    assert 2 <= len(cast) <= 3
    for slug, character in cast.items():
        assert character.contracts and character.problems(slug) == []
        assert paths.character_profile(slug).is_file()
    assert any(c.aliases for c in cast.values())
    registry = NameRegistry.load(cast, paths.names)  # where the checks look names up
    for slug, character in cast.items():
        for name in (character.display_name, *character.aliases):
            owner = registry.owner(name)
            assert owner is not None and owner.key == f"character:{slug}"
    assert any(e.kind != "character" for e in registry.entities)  # places, factions from world/names.json
    assert sum(1 for c in cast.values() if getattr(c, "role", "") == "protagonist") == 1
    relationships = Relationships.load(paths.characters_active.parent / "relationships.json")
    assert relationships.relationships and relationships.problems(cast) == []
    lines = Storylines.load(paths.storylines)
    assert [(line.id, line.type) for line in lines.storylines] == [("main-arc", "main_arc")]
    assert lines.storylines[0].pov_characters and set(lines.storylines[0].pov_characters) <= set(cast)
    assert paths.storyline_memory("main-arc").is_file()
    assert StorylineSpec.load(paths.storyline_spec).rules
    StyleProfile.load(paths.style_profile)
    plan = load_volume_plan(paths, 1)
    assert (plan.first_chapter, plan.last_chapter) == (1, 3)
    for n in (1, 2, 3):
        assert paths.chapter(n).is_file() and paths.summary(n).is_file() and project.contract(n, 1) is not None
