"""Storyline leaks (LS-005, seed 000 6.6.7; issue 8 item 5): another storyline's own people in this chapter.

- The chapter's storyline comes from `StoryFacts.storyline` (Summarizer meta, pipeline log, outline).
- An entity is exclusive to storyline L when `storylines.json` gives it to L alone: L's `pov_characters`
  (character ids), `affiliated_factions` (names) and an optional `exclusive_entities` list (character ids or
  names) that no other storyline lists. The bridges of the relationships between L and this chapter's storyline
  (`shared_characters`, `shared_events`) are never leaks, nor is anything in a chapter inside a planned
  convergence event (every volume's `storyline-schedule.json`) of the storylines involved.
- `storyline_leak` (high: a hard violation for the gate; it pauses a multi-chapter run): an exclusive character
  of another storyline speaks or acts in this chapter's narration (the attribution rules of
  `studio.checks.continuity`: not in quotes, not a memory), unless the chapter's own outline entry names it: an
  appearance the author planned is a `storyline_leak_hint` (low), for the author to bridge the storylines.
- `storyline_leak_hint` (weaker signals, evidence for the judge): an exclusive entity only mentioned (low), or
  the Summarizer's own `leak_risk: high` for this chapter (medium).
Waivers (`checks-allow.json`) apply as for every check: "deliberate" allows an entity everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable

from studio.checks.continuity import acting_hits
from studio.checks.metrics import dialogue_spans
from studio.checks.registry import ChapterText, CheckContext
from studio.checks.story import StoryFacts
from studio.i18n import Catalog, tr
from studio.models.findings import Finding
from studio.models.storylines import Storylines

MESSAGES: Catalog = {
    "acts": (
        "「{name}」属于故事线「{line}」，不在本章故事线「{own}」的桥接中，本章也不是交汇章，却在本章出场",
        "'{name}' belongs to storyline '{line}', is no bridge to this chapter's storyline '{own}', and this is "
        "no convergence chapter, yet it appears here",
    ),
    "planned": (
        "本章大纲安排了故事线「{line}」的专属人物「{name}」在故事线「{own}」出场；请在故事线关系里加上桥接，或改大纲",
        "the outline has '{name}', exclusive to storyline '{line}', appear in storyline '{own}': add a bridge between "
        "the storylines or change the outline",
    ),
    "mention": (
        "提及了故事线「{line}」的专属实体「{name}」（仅提及，请确认信息来源合理）",
        "mentions '{name}', exclusive to storyline '{line}' (a mention only: check how this line knows it)",
    ),
    "risk": (
        "摘要员判断本章跨线泄漏风险高：{refs}",
        "the Summarizer rated this chapter's cross-line leak risk high: {refs}",
    ),
}


def exclusive_entities(storylines: Storylines) -> dict[str, tuple[str, set[str]]]:
    """Entity (character id or name) -> (its only storyline, ids of storylines bridged to it by a relationship)."""
    owners: dict[str, set[str]] = {}
    for line in storylines.storylines:
        extra = getattr(line, "exclusive_entities", None)
        own = [*line.pov_characters, *line.affiliated_factions, *(extra if isinstance(extra, list) else [])]
        for entity in own:
            if isinstance(entity, str) and entity.strip():
                owners.setdefault(entity.strip(), set()).add(line.id)
    out: dict[str, tuple[str, set[str]]] = {}
    for entity, lines in owners.items():
        if len(lines) != 1:
            continue
        (line_id,) = lines
        bridged: set[str] = set()
        for rel in storylines.relationships:
            if line_id not in (rel.from_, rel.to):
                continue
            shared = {*rel.bridges.shared_characters, *rel.bridges.shared_events}
            if entity in shared:
                bridged.add(rel.to if rel.from_ == line_id else rel.from_)
        out[entity] = (line_id, bridged)
    return out


def _names(ctx: CheckContext, entity: str) -> list[str]:
    """The written names of an entity: a character id's registered names, else the name and its aliases."""
    for e in ctx.registry.entities:
        if e.key == f"character:{entity}" or e.name == entity or entity in e.aliases:
            return [n for n in e.names if len(n) >= 2]
    return [entity] if len(entity) >= 2 and not entity.isascii() else []


def _line_name(story: StoryFacts, line_id: str) -> str:
    line = story.storylines.get(line_id)
    return line.name if line is not None and line.name else line_id


class StorylineLeakCheck:
    kind = "storyline_leak"

    def run(self, ctx: CheckContext) -> Iterable[Finding]:
        story = ctx.story
        if story is None:
            return []
        exclusive = exclusive_entities(story.storylines)
        out: list[Finding] = []
        for chapter in ctx.chapters:
            if chapter.text:
                out += self._chapter(ctx, story, chapter, exclusive)
        return out

    def _chapter(
        self,
        ctx: CheckContext,
        story: StoryFacts,
        chapter: ChapterText,
        exclusive: dict[str, tuple[str, set[str]]],
    ) -> list[Finding]:
        out: list[Finding] = []
        meta = story.meta(chapter.number)
        if meta.get("leak_risk") == "high":
            refs = meta.get("cross_references")
            text = "；".join(str(r) for r in refs[:3]) if isinstance(refs, list) and refs else "—"
            out.append(
                chapter.finding(
                    "storyline_leak_hint", None, "", severity="medium",
                    message=tr(MESSAGES, "risk", ctx.lang, refs=text),
                )
            )
        own = story.storyline(chapter.number)
        if own is None or not exclusive:
            return out
        converging = story.convergence(chapter.number) or set()
        planned = story.planned_text(chapter.number)
        spans: list[tuple[int, int]] | None = None
        for entity, (line, bridged) in sorted(exclusive.items()):
            if line == own or own in bridged or line in converging:
                continue
            names = _names(ctx, entity)
            present = [n for n in names if n in chapter.text]
            if not present:
                continue
            spans = dialogue_spans(chapter.paras) if spans is None else spans
            line_name, own_name = _line_name(story, line), _line_name(story, own)
            hits = list(acting_hits(chapter.text, names, spans))
            if hits and any(n in planned for n in names):
                out.append(
                    chapter.finding(
                        "storyline_leak_hint", hits[0].pos, hits[0].name, severity="low", count=len(hits),
                        message=tr(MESSAGES, "planned", ctx.lang, name=hits[0].name, line=line_name, own=own_name),
                    )
                )
                continue
            if hits:
                out.append(
                    chapter.finding(
                        "storyline_leak", hits[0].pos, hits[0].name, severity="high", count=len(hits),
                        message=tr(MESSAGES, "acts", ctx.lang, name=hits[0].name, line=line_name, own=own_name),
                    )
                )
                continue
            first = min(present, key=chapter.text.index)
            count = sum(chapter.text.count(n) for n in present)
            out.append(
                chapter.finding(
                    "storyline_leak_hint", chapter.text.index(first), first, severity="low", count=count,
                    message=tr(MESSAGES, "mention", ctx.lang, name=first, line=line_name),
                )
            )
        return out
