"""The cast pass of an import's full depth: the model reads the opening chapters once and the project gets its
characters (aliases, L2 contracts, relationships), L1 world rules, storylines and registered names, before the
per-chapter pass, so that the Summarizer's state ops name characters by the ids of their files.

Rules:
- The chapters read: from the extraction's first chapter on, whole chapters (each cut at
  `SURVEY_CHAPTER_CHARS`) until `SURVEY_CHAPTERS` chapters or `SURVEY_MAX_CHARS` characters; the model also
  gets the names already registered (character files, `world/names.json`: their ids are kept) and the
  candidate names jieba finds in those chapters (`studio.checks.newnames`), most frequent first.
- The files are the quick start's (`studio.planning.quick_start_files`: `cast_files`, `world_files`,
  `main_arc_files`), so their formats are one definition: a character whose id or display name the project
  already has is skipped (the author's file wins), a clashing rule id is renumbered, registered names are kept;
  storylines other than `main-arc` are added after it; the two changelogs say "导入".
- `survey_files` only computes {relative path: text}; the caller stages them and writes them (crash safety
  lives in `pipeline.importing.extract`).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from datetime import date
from pathlib import Path

from pipeline.agents.requests import AgentRequests
from pipeline.agents.runner import default_registry
from pipeline.context import project_brief, render_bundle
from pipeline.importing.replies import ImportSurveyReply
from pipeline.prompts_registry import PromptRegistry
from pipeline.providers.base import ModelRequest
from studio.checks.names import NameRegistry
from studio.checks.newnames import chapter_candidates
from studio.checks.registry import ChapterText
from studio.fileio import dumps_json, read_text
from studio.models.settings import Settings
from studio.models.storylines import Storylines
from studio.paths import ProjectPaths
from studio.planning.quick_start_files import cast_files, main_arc_files, world_files
from studio.planning.quick_start_replies import CastReply, LightWorldReply
from studio.project import Project

__all__ = [
    "SURVEY_AGENT",
    "SURVEY_CHAPTERS",
    "SURVEY_MAX_CHARS",
    "SURVEY_PROMPT",
    "SURVEY_STAGE",
    "survey_chapters",
    "survey_files",
    "survey_request",
]

SURVEY_AGENT = "import_survey"  # the request's agent (offline dispatch); the model is CharacterWeaver's
SURVEY_MODEL_AGENT = "character_weaver"
SURVEY_PROMPT = "import-survey"
SURVEY_STAGE = "import-cast"
SURVEY_CHAPTERS = 5
SURVEY_MAX_CHARS = 24_000
SURVEY_CHAPTER_CHARS = 8_000
CANDIDATES_SHOWN = 30


def survey_chapters(paths: ProjectPaths, first: int, last: int) -> list[tuple[int, str]]:
    """(number, text) of the chapters the cast pass reads (module rules)."""
    out: list[tuple[int, str]] = []
    total = 0
    for n in range(first, last + 1):
        path = paths.chapter(n)
        if not path.is_file():
            continue
        text = read_text(path).strip()[:SURVEY_CHAPTER_CHARS]
        if out and total + len(text) > SURVEY_MAX_CHARS:
            break
        out.append((n, text))
        total += len(text)
        if len(out) >= SURVEY_CHAPTERS:
            break
    return out


def _candidates(chapters: list[tuple[int, str]], registry: NameRegistry) -> list[tuple[str, str, int]]:
    counts: Counter[tuple[str, str]] = Counter()
    segmenter = None
    for n, text in chapters:
        found, segmenter = chapter_candidates(ChapterText(n, text), registry, segmenter, None)
        counts.update((word, kind) for word, kind, _ in found)
    return [(word, kind, count) for (word, kind), count in counts.most_common(CANDIDATES_SHOWN)]


def survey_request(
    project: Project,
    settings: Settings,
    chapters: list[tuple[int, str]],
    *,
    registry: PromptRegistry | None = None,
    candidates: bool = True,
) -> ModelRequest:
    """The cast pass's request (`candidates=False`: without the jieba pass, for the estimate): stable tier = role, rules and format (+ the brief), chapter tier = the chapters."""
    requests = AgentRequests(project, settings, registry or default_registry())
    names = NameRegistry.load(project.characters, project.paths.names)
    known = [
        f"- {c.display_name}（{slug}）" + (f"，又称{'、'.join(c.aliases)}" if c.aliases else "")
        for slug, c in sorted(project.characters.items())
    ]
    known += [f"- {name}" for name in names.names() if not any(name in line for line in known)]
    found = _candidates(chapters, names) if candidates else []
    first, last = chapters[0][0], chapters[-1][0]
    variables = {
        "project_brief": project_brief(project),
        "known_names": "\n".join(known) or "（无）",
        "candidate_names": "、".join(f"{w}×{c}" for w, _, c in found) or "（无）",
        "chapter_range": f"{first}-{last}" if first != last else str(first),
        "opening_chapters": "\n\n".join(f'<chapter n="{n}">\n{text}\n</chapter>' for n, text in chapters),
    }
    data = {
        "import_task": "survey",
        "chapters": [n for n, _ in chapters],
        "candidates": [{"name": w, "kind": k, "count": c} for w, k, c in found],
        "character_ids": sorted(project.characters),
        "known_names": names.names(),
    }
    bundle = render_bundle(SURVEY_AGENT, SURVEY_PROMPT, variables, data, requests.registry)
    request = requests.build(bundle, SURVEY_MODEL_AGENT, schema_model=ImportSurveyReply, chapter=None)
    return replace(request, agent=SURVEY_AGENT, stage=SURVEY_STAGE)


def _changelog(path: Path, title: str, body: str) -> str:
    before = read_text(path).rstrip() + "\n\n" if path.is_file() else f"# {title}\n\n"
    return before + f"## {date.today().isoformat()} 导入\n\n{body.strip() or '（无说明）'}\n"


def survey_files(paths: ProjectPaths, project: Project, reply: ImportSurveyReply) -> dict[str, str]:
    """{relative path: text} of everything the cast pass writes (module rules); reads, writes nothing."""
    taken_ids = set(project.characters)
    taken_names = {c.display_name for c in project.characters.values()}
    cast = [c for c in reply.characters if c.id not in taken_ids and c.display_name not in taken_names]
    known = {c.id for c in cast} | taken_ids
    relationships = [r for r in reply.relationships if r.from_ in known and r.to in known and r.from_ != r.to]
    files: dict[str, str] = {}
    if cast:
        # The quick start's writers take its reply types; their size limits are the quick start's, not ours.
        files.update(cast_files(paths, CastReply.model_construct(characters=cast, relationships=relationships,
                                                                 changelog="")))
    world = LightWorldReply.model_construct(files=[], rules=list(reply.rules), storylines=list(reply.storylines),
                                            names=list(reply.names), changelog="")
    world_text, _ = world_files(paths, world)
    if reply.rules:
        files.update(world_text)
    elif "world/names.json" in world_text:
        files["world/names.json"] = world_text["world/names.json"]
    files.pop("world/changelog.md", None)
    files.pop("characters/changelog.md", None)
    protagonist = next((c.id for c in cast if c.role == "protagonist"), cast[0].id if cast else None)
    main = next(s for s in reply.storylines if s.type == "main_arc")
    files.update(main_arc_files(paths, main.model_dump(by_alias=True), protagonist))
    storylines_rel = paths.storylines.relative_to(paths.root).as_posix()
    lines = Storylines.parse_data(
        json.loads(files[storylines_rel]) if storylines_rel in files
        else Storylines.load_or_default(paths.storylines).to_data()
    )
    have = {s.id for s in lines.storylines}
    extra = [s for s in reply.storylines if s.type != "main_arc" and s.id not in have]
    if extra:
        data = lines.to_data()
        data["storylines"] = [*data.get("storylines", []), *(s.model_dump(by_alias=True) for s in extra)]
        files[storylines_rel] = dumps_json(Storylines.parse_data(data).to_data())
    if cast:
        names = "、".join(f"{c.display_name}（{c.id}）" for c in cast)
        files["characters/changelog.md"] = _changelog(
            paths.characters_active.parent / "changelog.md", "角色变更记录", f"从导入的书稿整理角色：{names}"
        )
    if reply.rules:
        rules = "\n".join(f"- {r.rule}" for r in reply.rules)
        files["world/changelog.md"] = _changelog(paths.root / "world" / "changelog.md", "世界观变更记录",
                                                 f"从导入的书稿整理世界规则：\n{rules}")
    return files
