"""Context of the planning agents (WorldBuilder, CharacterWeaver, PlotArchitect, StyleAnalyzer; seed 000 §5.1-5.3,
§7 L1, §8.3), rendered from what the project holds now.

These agents are not wired into a run yet (issue 7 builds quick start and volume planning on top of this); the
same functions serve `novel-studio prompt world|character|plot|style` today and the planning stages later.

Rules:
- The brief is in the stable (cached) tier of every planning prompt, like the writing agents'
  (`pipeline.context.project_brief`).
- Every source is read from disk on each call; a missing file is an empty variable, never an error.
- Text sources are capped (`DOC_MAX_CHARS` per file, `SAMPLE_MAX_CHARS` per style sample) with a visible mark.
- WorldBuilder runs in 初始化 mode on a project without world notes or rules, else 增量更新.
- PlotArchitect plans the next unplanned volume: the current one when it has no outline, else the one after
  it, starting after the current outline's last chapter (or after the last committed chapter); volumes
  already planned ahead (an outline with chapters) are skipped.
- StyleAnalyzer takes the author's committed chapters (at most `STYLE_SAMPLES`) as `original` samples.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.context import ContextBundle, dumps, project_brief, render_bundle, style_metrics
from pipeline.prompts_registry import PromptRegistry
from studio.author_brief import load_brief
from studio.errors import StudioError
from studio.fileio import read_text
from studio.models.foreshadowing import ForeshadowingLedger
from studio.models.volume_plan import VolumePlan
from studio.outline import parse_outline, render_outline
from studio.project import Project

__all__ = [
    "DEFAULT_VOLUME_LENGTH",
    "PlanTarget",
    "character_weaver_context",
    "contracts_data",
    "next_plan_target",
    "plot_architect_context",
    "plot_contracts_context",
    "style_analyzer_context",
    "world_builder_context",
]

WORLD_PROMPT = "world-builder"
CHARACTER_PROMPT = "character-weaver"
PLOT_PROMPT = "plot-architect"
CONTRACTS_PROMPT = "plot-contracts"
STYLE_PROMPT = "style-analyzer"

DEFAULT_VOLUME_LENGTH = 30
DOC_MAX_CHARS = 4000
PROFILE_MAX_CHARS = 800
SAMPLE_MAX_CHARS = 8000
STYLE_SAMPLES = 3
CUT_MARK = "……（以下从略）"


def _read(path: Path, limit: int) -> str:
    if not path.is_file():
        return ""
    text = read_text(path).strip()
    return text[:limit].rstrip() + CUT_MARK if len(text) > limit else text


def _docs(folder: Path, limit: int = DOC_MAX_CHARS) -> str:
    """Every `*.md` of `folder`, sorted by name, each under its file name."""
    if not folder.is_dir():
        return ""
    parts = []
    for path in sorted(folder.glob("*.md")):
        text = _read(path, limit)
        if text:
            parts.append(f'<doc name="{path.name}">\n{text}\n</doc>')
    return "\n".join(parts)


def _world_rules_text(project: Project) -> str:
    lines = []
    for rule in project.world_rules.rules:
        kind = "硬性" if rule.constraint_type == "hard" else "软性"
        lines.append(f"- {rule.id}［{kind}］{rule.rule}")
    return "\n".join(lines)


def _characters_text(project: Project) -> str:
    blocks = []
    for slug, file in project.characters.items():
        lines = [f'<character id="{slug}" name="{file.display_name}">']
        for c in file.contracts:
            lines.append(f"- {c.id}［{c.type or '契约'}］{c.rule}")
        profile = _read(project.paths.character_profile(slug), PROFILE_MAX_CHARS)
        if profile:
            lines.append(profile)
        lines.append("</character>")
        blocks.append("\n".join(lines))
    return "\n".join(blocks)


def _brief_sections(project: Project) -> dict[str, str]:
    """heading -> body of the brief's filled sections (for the offline provider's plausible replies)."""
    return {heading or "": body for heading, body in load_brief(project.paths.brief).sections}


def _relationships(project: Project) -> str:
    path = project.paths.characters_active.parent / "relationships.json"
    return _read(path, DOC_MAX_CHARS)


def _bundle(
    project: Project,
    agent: str,
    prompt_id: str,
    variables: dict[str, str],
    data: dict[str, Any],
    registry: PromptRegistry | None,
) -> ContextBundle:
    return render_bundle(agent, prompt_id, {"project_brief": project_brief(project), **variables}, data, registry,
                         root=project.root)


def world_builder_context(
    project: Project, *, request: str = "", registry: PromptRegistry | None = None
) -> ContextBundle:
    world_docs = _docs(project.paths.world_rules.parent)
    rules = project.world_rules.rules
    mode = "增量更新" if world_docs or rules else "初始化"
    variables = {
        "mode": mode,
        "research_docs": _docs(project.paths.root / "research"),
        "existing_world_docs": world_docs,
        "existing_rules": dumps(project.world_rules.to_data()) if rules else "",
        "update_request": request.strip(),
    }
    data = {
        "mode": mode,
        "rule_ids": [r.id for r in rules],
        "storyline_ids": project.storylines.ids(),
        "brief": _brief_sections(project),
    }
    return _bundle(project, "world_builder", WORLD_PROMPT, variables, data, registry)


def character_weaver_context(
    project: Project, *, request: str = "", registry: PromptRegistry | None = None
) -> ContextBundle:
    mode = "新增" if not project.characters else "新增或更新"
    default_request = (
        "按创作纲领设计主角与一到两名重要角色" if not project.characters else "（作者尚未提出具体要求）"
    )
    variables = {
        "mode": mode,
        "world_docs": _docs(project.paths.world_rules.parent),
        "world_rules": _world_rules_text(project),
        "existing_characters": _characters_text(project),
        "relationships": _relationships(project),
        "request": request.strip() or default_request,
    }
    data = {
        "mode": mode,
        "character_ids": sorted(project.characters),
        "rule_ids": [r.id for r in project.world_rules.rules],
        "brief": _brief_sections(project),
    }
    return _bundle(project, "character_weaver", CHARACTER_PROMPT, variables, data, registry)


@dataclass(frozen=True)
class PlanTarget:
    """The volume a plan is for and its chapter range."""

    volume: int
    first: int
    last: int

    def __post_init__(self) -> None:
        if self.volume < 1 or self.first < 1 or self.last < self.first:
            raise ValueError(f"bad plan target: volume {self.volume}, chapters {self.first}-{self.last}")


def next_plan_target(project: Project, length: int = DEFAULT_VOLUME_LENGTH) -> PlanTarget:
    """The next unplanned volume (see the module rules)."""
    volume = project.current_volume
    start = project.last_completed_chapter + 1
    outline = project.outline
    planned = outline.chapter_range if outline is not None else None
    if planned is not None:
        volume += 1
        start = max(start, planned[1] + 1)
    # volumes planned ahead (their outline is there already) are skipped
    while (ahead := _outline_range(project.paths.outline(volume))) is not None:
        volume += 1
        start = max(start, ahead[1] + 1)
    return PlanTarget(volume, start, start + max(1, length) - 1)


def _outline_range(path: Path) -> tuple[int, int] | None:
    if not path.is_file():
        return None
    try:
        return parse_outline(read_text(path), path).chapter_range
    except StudioError:
        return None


def plot_architect_context(
    project: Project,
    *,
    target: PlanTarget | None = None,
    note: str = "",
    fixed_outline: str = "",
    registry: PromptRegistry | None = None,
) -> ContextBundle:
    """The outline call of a volume plan (outline, schedule, threads, new characters); `fixed_outline` is the
    outline text of the volume's chapters already written, when the rest of a volume is re-planned."""
    target = target or next_plan_target(project)
    ledger = ForeshadowingLedger.load_or_default(project.paths.global_foreshadowing)
    open_items = [i.to_data() for i in ledger.foreshadowing if i.status != "resolved"]
    review = project.paths.volume_dir(target.volume - 1) / "review.md" if target.volume > 1 else None
    variables = {
        "volume_num": str(target.volume),
        "chapter_start": str(target.first),
        "chapter_end": str(target.last),
        "world_docs": _docs(project.paths.world_rules.parent),
        "world_rules": _world_rules_text(project),
        "active_characters": _characters_text(project),
        "storylines": dumps(project.storylines.to_data()),
        "global_foreshadowing": dumps(open_items) if open_items else "",
        "prev_volume_review": _read(review, DOC_MAX_CHARS) if review is not None else "",
        "fixed_outline": fixed_outline.strip(),
        "author_note": note.strip(),
    }
    data = {
        "volume": target.volume,
        "chapter_start": target.first,
        "chapter_end": target.last,
        "storyline_ids": [line.id for line in project.storylines.storylines if line.status != "resolved"],
        "storyline_povs": {
            line.id: next((p for p in line.pov_characters if p in project.characters), None)
            for line in project.storylines.storylines
        },
        "character_ids": sorted(project.characters),
        "character_names": {slug: c.display_name for slug, c in sorted(project.characters.items())},
        "rule_ids": [r.id for r in project.world_rules.rules],
        "thread_ids": [item.id for item in ledger.foreshadowing],  # every id taken, resolved ones included
    }
    return _bundle(project, "plot_architect", PLOT_PROMPT, variables, data, registry)


def contracts_data(plan: VolumePlan, chapters: list[int], rule_ids: list[str]) -> dict[str, Any]:
    """The structured context of one contract batch (the offline provider derives its reply from it)."""
    numbers = plan.outline.numbers()
    following = {n: plan.outline.chapters[i + 1].storyline for i, n in enumerate(numbers[:-1])}
    entries = [e for e in (plan.outline.get(n) for n in chapters) if e is not None]
    return {
        "task": "contracts",
        "volume": plan.volume,
        "chapter_start": chapters[0],
        "chapter_end": chapters[-1],
        "chapters": [
            {
                "number": e.number,
                "storyline": e.storyline,
                "pov": e.pov,
                "location": e.location,
                "conflict": e.conflict,
                "foreshadowing": e.foreshadowing,
                "next_storyline": following.get(e.number),
            }
            for e in entries
        ],
        "rule_ids": list(rule_ids),
    }


def plot_contracts_context(
    project: Project,
    plan: VolumePlan,
    chapters: list[int],
    state_before: dict[str, dict[str, object]],
    *,
    registry: PromptRegistry | None = None,
) -> ContextBundle:
    """One batch of contracts of `plan` (its outline, schedule and threads fixed): `chapters` in order, with
    the chained state before the first of them. `data["task"] == "contracts"` tells the offline provider."""
    variables = {
        "world_rules": _world_rules_text(project),
        "active_characters": _characters_text(project),
        "volume_outline": render_outline(plan.outline),
        "storyline_schedule": dumps(plan.schedule.to_data()),
        "volume_foreshadowing": dumps([t.to_data() for t in plan.foreshadowing]) if plan.foreshadowing else "",
        "state_before": dumps(state_before) if state_before else "",
        "chapter_start": str(chapters[0]),
        "chapter_end": str(chapters[-1]),
    }
    data = contracts_data(plan, chapters, [r.id for r in project.world_rules.rules])
    return _bundle(project, "plot_architect", CONTRACTS_PROMPT, variables, data, registry)


def style_analyzer_context(project: Project, *, registry: PromptRegistry | None = None) -> ContextBundle:
    samples: list[str] = []
    texts: list[str] = []
    chapters = project.committed_chapters()[:STYLE_SAMPLES]
    for n in chapters:
        text = _read(project.paths.chapter(n), SAMPLE_MAX_CHARS)
        if text:
            texts.append(text)
            samples.append(f'<sample chapter="{n}">\n{text}\n</sample>')
    variables = {
        "source_type": "original",
        "reference_author": "",
        "style_samples": "\n".join(samples) or "（尚无样本章节）",
    }
    measured = style_metrics("\n\n".join(texts), project.ai_blacklist) if texts else {}
    data = {"source_type": "original", "sample_chapters": chapters, "metrics": measured}
    return _bundle(project, "style_analyzer", STYLE_PROMPT, variables, data, registry)
