"""The bundled sample novel (templates/sample/) is a complete, consistent project: every file loads with its
model, the outline parses, the numbers add up, and the state is exactly the replay of its changelog."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from studio.fileio import read_json, read_text
from studio.ids import is_slug, slugify
from studio.models.changelog import ChangelogEntry
from studio.models.character import CharacterFile
from studio.models.checkpoint import Checkpoint, OrchestratorState, PipelineStage
from studio.models.contract import ChapterContract
from studio.models.evaluation import DIMENSION_WEIGHTS, Evaluation, weighted_overall
from studio.models.foreshadowing import ForeshadowingLedger
from studio.models.pipeline_log import PipelineLog
from studio.models.schedule import StorylineSchedule
from studio.models.state import CurrentState
from studio.models.storyline_spec import StorylineSpec
from studio.models.storylines import Storylines
from studio.models.style_profile import StyleProfile
from studio.models.world_rules import WorldRules
from studio.outline import parse_outline, render_outline
from studio.paths import ProjectPaths
from studio.wordcount import word_count

SAMPLE = Path(__file__).resolve().parents[1] / "templates" / "sample"
CHARACTERS = ("shen-zhao", "xu-qing-he", "gu-yuan-zhou")
WRITTEN = (1, 2)


@pytest.fixture
def paths(tmp_path: Path) -> ProjectPaths:
    root = tmp_path / "novel"
    shutil.copytree(SAMPLE, root)
    return ProjectPaths(root)


def test_no_settings_file_and_no_scripts() -> None:
    # init writes novel-studio.toml; scripts live in bench/, not in the template.
    assert not (SAMPLE / "novel-studio.toml").exists()
    assert not list(SAMPLE.rglob("*.py"))


def test_checkpoint(paths: ProjectPaths) -> None:
    cp = Checkpoint.load(paths.checkpoint)
    assert cp.last_completed_chapter == 2
    assert cp.current_volume == 1
    assert cp.orchestrator_state == OrchestratorState.WRITING
    assert cp.pipeline_stage == PipelineStage.COMMITTED
    assert cp.inflight_chapter is None
    assert cp.revision_count == 0
    assert cp.pending_actions == []


def test_brief_and_style(paths: ProjectPaths) -> None:
    assert word_count(read_text(paths.brief)) <= 1000
    profile = StyleProfile.load(paths.style_profile)
    assert profile.source_type == "original"
    assert profile.writing_directives
    assert set(profile.character_speech_patterns) == set(CHARACTERS)


def test_world_rules(paths: ProjectPaths) -> None:
    rules = WorldRules.load(paths.world_rules)
    assert [r.id for r in rules.rules] == ["W-001", "W-002", "W-003"]
    assert len(rules.hard_rules()) >= 2
    assert rules.problems() == []
    assert (paths.root / "world" / "geography.md").is_file()


def test_characters(paths: ProjectPaths) -> None:
    files = sorted(p.stem for p in paths.characters_active.glob("*.json"))
    assert files == sorted(CHARACTERS)
    for slug in CHARACTERS:
        character = CharacterFile.load(paths.character(slug))
        assert character.problems(slug) == []
        assert slugify(character.display_name) == slug  # ids are the pinyin of the names
        assert 2 <= len(character.contracts) <= 3
        assert character.contracts_in_force(1)
        assert read_text(paths.character_profile(slug)).startswith(f"# {character.display_name}")
    relationships = read_json(paths.root / "characters" / "relationships.json")
    for rel in relationships["relationships"]:
        assert rel["from"] in CHARACTERS and rel["to"] in CHARACTERS


def test_storylines_spec_and_memory(paths: ProjectPaths) -> None:
    storylines = Storylines.load(paths.storylines)
    assert storylines.ids() == ["main-arc", "fog-tide"]
    assert storylines.problems() == []
    assert len(storylines.relationships) == 1
    bridges = storylines.relationships[0].bridges
    assert bridges.shared_characters and bridges.shared_foreshadowing
    for line in storylines.storylines:
        assert set(line.pov_characters) <= set(CHARACTERS)
        memory = read_text(paths.storyline_memory(line.id))
        assert len(memory.strip()) <= 500
    spec = StorylineSpec.load(paths.storyline_spec)
    assert [r.id for r in spec.rules] == ["LS-001", "LS-002", "LS-003", "LS-004", "LS-005"]
    assert {r.id for r in spec.hard_rules()} == {"LS-001", "LS-005"}


def test_outline(paths: ProjectPaths) -> None:
    text = read_text(paths.outline(1))
    outline = parse_outline(text, paths.outline(1))
    assert len(outline.chapters) == 10
    assert outline.chapter_range == (1, 10)
    assert outline.title and outline.synopsis
    assert render_outline(outline) == text  # written in the canonical form
    storylines = set(Storylines.load(paths.storylines).ids())
    for chapter in outline.chapters:
        for field in ("storyline", "pov", "location", "conflict", "arc", "foreshadowing", "state_changes"):
            assert getattr(chapter, field), f"chapter {chapter.number} lacks {field}"
        assert chapter.storyline in storylines
        assert chapter.pov in CHARACTERS


def test_schedule(paths: ProjectPaths) -> None:
    schedule = StorylineSchedule.load(paths.schedule(1))
    storylines = Storylines.load(paths.storylines)
    assert schedule.problems(storylines) == []
    outline = parse_outline(read_text(paths.outline(1)))
    for entry in schedule.active_storylines:
        planned = [c for c in outline.chapters if c.storyline == entry.storyline_id]
        assert len(planned) == entry.target_chapters
    assert schedule.convergence_chapters() == {9, 10}


def test_chapter_contracts(paths: ProjectPaths) -> None:
    outline = parse_outline(read_text(paths.outline(1)))
    rules = {r.id for r in WorldRules.load(paths.world_rules).rules}
    contract_ids = {c.id for slug in CHARACTERS for c in CharacterFile.load(paths.character(slug)).contracts}
    files = sorted((paths.volume_dir(1) / "chapter-contracts").glob("*.json"))
    assert [f.name for f in files] == [f"chapter-{n:03d}.json" for n in range(1, 11)]
    for n in range(1, 11):
        contract = ChapterContract.load(paths.contract(1, n))
        chapter = outline.get(n)
        assert chapter is not None
        assert contract.chapter == n
        assert contract.storyline_id == chapter.storyline
        assert contract.storyline_context is not None and contract.transition_hint is not None
        assert contract.transition_hint.next_storyline in {"main-arc", "fog-tide"}
        assert set(contract.preconditions.required_world_rules) <= rules
        assert contract.required_objectives()
        for criterion in contract.acceptance_criteria:
            for cited in re.findall(r"C-[A-Z]+-\d{3}", criterion):
                assert cited in contract_ids
        last = contract.storyline_context.last_chapter_on_this_line
        if last is not None:
            previous = outline.get(last)
            assert previous is not None and previous.storyline == chapter.storyline
            assert contract.storyline_context.chapters_since_last == n - last - 1


def test_chapters_and_summaries(paths: ProjectPaths) -> None:
    outline = parse_outline(read_text(paths.outline(1)))
    assert sorted(p.name for p in (paths.root / "chapters").glob("*.md")) == ["chapter-001.md", "chapter-002.md"]
    for n in WRITTEN:
        text = read_text(paths.chapter(n))
        chapter = outline.get(n)
        assert chapter is not None
        assert text.splitlines()[0] == f"# 第{n}章 {chapter.title}"
        assert 2500 <= word_count(text) <= 3500, word_count(text)
        summary = read_text(paths.summary(n)).strip()
        assert 0 < len(summary) <= 300


def test_evaluations(paths: ProjectPaths) -> None:
    for n in WRITTEN:
        evaluation = Evaluation.load(paths.evaluation(n))
        assert evaluation.chapter == n
        assert evaluation.force_passed is False
        scores = evaluation.scores.as_dict()
        assert {name: s.weight for name, s in scores.items()} == DIMENSION_WEIGHTS
        expected = round(sum(s.score * DIMENSION_WEIGHTS[name] for name, s in scores.items()), 2)
        assert evaluation.overall == expected == weighted_overall(evaluation.scores)
        assert evaluation.violations() == []
        assert not evaluation.contract_verification.has_violations
        raw = read_json(paths.evaluation(n))["contract_verification"]
        checks = [c for layer in ("l1_checks", "l2_checks", "l3_checks", "ls_checks") for c in raw[layer]]
        assert checks and all("confidence" in c for c in checks)
        assert evaluation.recommendation == ("pass" if expected >= 4.0 else "polish")


def test_logs(paths: ProjectPaths) -> None:
    for n in WRITTEN:
        log = PipelineLog.load(paths.log(n))
        evaluation = Evaluation.load(paths.evaluation(n))
        assert log.chapter == n
        assert [s.name for s in log.stages][:4] == ["draft", "summarize", "refine", "judge"]
        assert log.gate_decision == evaluation.recommendation
        assert log.revisions == 0
        assert log.total_duration_ms == log.duration_ms()
        assert log.total_cost_usd == pytest.approx(log.cost())
        assert log.tokens_reported()


def test_state_is_the_replay_of_the_changelog(paths: ProjectPaths) -> None:
    from studio.state_engine import load_changelog, replay

    entries = load_changelog(paths.changelog)
    assert [e.kind for e in entries] == ["init", "patch", "patch"]
    assert [e.chapter for e in entries] == [0, 1, 2]
    assert all(not e.warnings for e in entries)
    state = CurrentState.load(paths.current_state)
    assert replay(entries).to_data() == state.to_data()
    assert state.state_version == 2 and state.last_updated_chapter == 2
    assert set(state.characters) == set(CHARACTERS)
    for slug, character in state.characters.items():
        assert character.display_name == CharacterFile.load(paths.character(slug)).display_name


def test_foreshadowing(paths: ProjectPaths) -> None:
    from studio.foreshadow_ledger import apply_foreshadow_ops
    from studio.state_engine import load_changelog

    ledger = ForeshadowingLedger.load(paths.global_foreshadowing)
    plan = ForeshadowingLedger.load(paths.volume_foreshadowing(1))
    state = CurrentState.load(paths.current_state)
    assert 2 <= len(ledger.foreshadowing) <= 3
    assert sorted(state.active_foreshadowing) == sorted(i.id for i in ledger.foreshadowing if i.status != "resolved")

    # The ledger is what the changelog's foreshadow ops give, plus the plan's scope and range.
    rebuilt = ForeshadowingLedger()
    entries: list[ChangelogEntry] = load_changelog(paths.changelog)
    for entry in entries:
        rebuilt, warnings = apply_foreshadow_ops(rebuilt, entry.ops, entry.chapter, entry.storyline_id)
        assert warnings == []
    for item in ledger.foreshadowing:
        again = rebuilt.get(item.id)
        assert again is not None
        assert (item.status, item.planted_chapter, item.planted_storyline, item.last_updated_chapter) == (
            again.status,
            again.planted_chapter,
            again.planted_storyline,
            again.last_updated_chapter,
        )
        assert item.history == again.history
        planned = plan.get(item.id)
        assert planned is not None
        assert (item.scope, item.target_resolve_range) == (planned.scope, planned.target_resolve_range)
        assert is_slug(item.id)
        assert item.scope is not None and item.target_resolve_range is not None
        assert item.planted_chapter is not None
        first, last = item.target_resolve_range
        assert first > item.planted_chapter
        if item.scope == "short":  # seed 001: short threads resolve 3-10 chapters later, inside the volume
            assert 3 <= first - item.planted_chapter and last - item.planted_chapter <= 10
            assert last <= 10


def test_sample_project_opens_clean(tmp_path: Path) -> None:
    init_mod = pytest.importorskip("studio.init_project")
    project_mod = pytest.importorskip("studio.project")
    root = init_mod.init_project(tmp_path / "novel", sample=True)
    problems = project_mod.validate_project(root, include_text=True)
    assert problems == [], "\n".join(str(p) for p in problems)


def test_evaluation_evidence_quotes_the_chapter(paths: ProjectPaths) -> None:
    for n in WRITTEN:
        text = read_text(paths.chapter(n))
        evaluation = Evaluation.load(paths.evaluation(n))
        quotes = [s.evidence for s in evaluation.scores.as_dict().values()]
        quotes += [c.evidence for c in evaluation.contract_verification.all_checks()]
        for quote in filter(None, quotes):
            assert quote in text, f"chapter {n}: evidence not in the text: {quote}"
