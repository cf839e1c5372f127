"""Context assembly for the four agents (seed 002 sections 8.3-8.5, seed 000 6.6.7).

Every public function takes the project, the settings and a chapter number and returns a `ContextBundle`:
the prompt variables (strings; JSON is serialised with `sort_keys=True, ensure_ascii=False`, no timestamps,
so two assemblies of the same project are byte-equal), the rendered sections per cache tier, a structured
`data` dict (what the offline provider writes from; also fit for the pipeline log) and an estimated size.

Volatile files (current state, foreshadowing ledger, storyline memory, summaries) are read from disk on every
call, so one `Project` can serve a whole run while chapters are committed.

Decisions where the seeds are open:
- Flat writer prompt: only the last 3 summaries, this chapter's outline block in full, the volume outline in a
  compact form (synopsis + one line per chapter: it stays byte-stable for the volume, so it caches), and a
  trimmed state: every active character, but list fields cut to their last `STATE_LIST_LIMIT` entries and
  items/locations/factions cut to the ones the chapter mentions when there are more than `ENTITY_LIMIT`.
- Chapter characters: with an L3 contract, the POV, the characters of its pre/postconditions and the ones
  the outline block names; without one, the POV, the named ones, then the most recently seen active
  characters (last three summaries), at most `NO_CONTRACT_CHARACTER_LIMIT` (seed 002 8.5).
- Adjacent storylines (memory injected besides the active line's): the transition hint's target line and, in
  a convergence chapter, the event's involved lines. All other active lines get one line of concurrent state:
  the contract's `storyline_context.concurrent_state`, else the start of that line's last summary.
- Foreshadowing tasks: ids named in the outline's Foreshadowing field (埋/推进/回收 or `(planted)` marks),
  the contract's foreshadowing objectives and postconditions, and at most `OVERDUE_LIMIT` overdue short items.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.agents.protocol import RevisionInput
from pipeline.blacklist_prompt import blacklist_rules
from pipeline.context_pieces import (
    ANCHOR_FIELDS,
    chapter_ending,
    chapter_tail,
    contract_checklist,
    first_sentences,
    numbered_paragraphs,
    style_anchors,
    with_paragraphs,
)
from pipeline.platform_gates import gates_for, gates_prompt, platform_of
from pipeline.prompts_registry import (
    PromptRegistry,
    RenderedSection,
    installed_registry,
    join_sections,
    project_registry,
)
from pipeline.providers.base import ModelRequest, SystemBlock, UserBlock, user_message
from pipeline.refine_edits import cap_chars_for
from pipeline.tokens import estimate_tokens
from studio.author_brief import load_brief
from studio.checks.judge_evidence import judge_evidence
from studio.checks.leaks import exclusive_entities
from studio.checks.matcher import Entry, Matcher, blacklist_matcher
from studio.checks.metrics import prose_metrics
from studio.fileio import read_text
from studio.foreshadow_ledger import overdue_items
from studio.ids import is_slug
from studio.models.blacklist import AiBlacklist
from studio.models.contract import ChapterContract
from studio.models.foreshadowing import ForeshadowingLedger
from studio.models.schedule import StorylineSchedule
from studio.models.settings import Settings
from studio.models.state import CurrentState, is_foreshadow_id
from studio.outline import OutlineChapter, VolumeOutline, parse_outline, render_outline
from studio.project import Project

__all__ = [
    "ChapterInfo",
    "ContextBundle",
    "chapter_info",
    "default_registry",
    "fixer_context",
    "dumps",
    "judge_context",
    "project_brief",
    "refiner_context",
    "render_bundle",
    "request_from_bundle",
    "reviser_context",
    "style_metrics",
    "summarizer_context",
    "writer_context",
]

WRITER_PROMPT = "chapter-writer"
REVISER_PROMPT = "chapter-reviser"
SUMMARIZER_PROMPT = "summarizer"
REFINER_PROMPT = "style-refiner"
JUDGE_PROMPT = "quality-judge"

RECENT_SUMMARIES = 3
NO_CONTRACT_CHARACTER_LIMIT = 15
STATE_LIST_LIMIT = 12
ENTITY_LIMIT = 20
OVERDUE_LIMIT = 5
MEMORY_MAX_CHARS = 800  # memory.md is <= 500 by spec; a hand-edited longer file is cut here
PROFILE_MAX_CHARS = 600
CONCURRENT_MAX_CHARS = 100
DEFAULT_STORYLINE = "main"
CONVERGENCE_NOTE = "（本章是交汇章：这些线的人物可以进入本章场景，但他们在本章之外的经历，POV 只能在本章里当面得知）"
PREVIOUS_LOOKBACK = 60  # chapters searched back for the previous one on this storyline
TIME_KEYS = frozenset({"time", "时间"})  # an outline line `- Time:` / `- 时间:` states the chapter's time


def dumps(data: Any) -> str:
    """Byte-stable JSON for prompts: sorted keys, real Chinese, one line."""
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(", ", ": "))


def default_registry() -> PromptRegistry:
    """The installed prompts at their latest versions, no project's pins (tests, benches, no project).
    A project's prompts come from `project_registry(root)`, which applies its pins."""
    return installed_registry()


@dataclass(frozen=True)
class ContextBundle:
    agent: str
    prompt_id: str
    prompt_version: int
    variables: dict[str, str]
    sections: list[RenderedSection]
    data: dict[str, Any]
    estimated_tokens: int

    def section(self, tier: str) -> str:
        return next((s.text for s in self.sections if s.tier == tier), "")

    @property
    def text(self) -> str:
        return join_sections(self.sections)


@dataclass(frozen=True)
class ChapterInfo:
    """What the outline, the contract and the schedule say about one chapter."""

    number: int
    volume: int
    outline: VolumeOutline | None
    chapter: OutlineChapter | None
    contract: ChapterContract | None
    schedule: StorylineSchedule | None
    storyline_id: str
    pov_id: str | None
    pov_name: str | None
    title: str
    character_ids: list[str]
    convergence_lines: list[str]  # involved storylines when this is a convergence chapter, else []

    @property
    def is_convergence(self) -> bool:
        return bool(self.convergence_lines) or (
            self.schedule is not None and self.schedule.is_convergence_chapter(self.number)
        )


# ------------------------------------------------------------------------------------------ small readers


def _read(path: Path, limit: int | None = None) -> str:
    if not path.is_file():
        return ""
    text = read_text(path).strip()
    if limit is not None and len(text) > limit:
        text = text[:limit].rstrip() + "……（以下从略）"
    return text


def _state(project: Project) -> CurrentState:
    return CurrentState.load_or_default(project.paths.current_state)


def _ledger(project: Project) -> ForeshadowingLedger:
    return ForeshadowingLedger.load_or_default(project.paths.global_foreshadowing)


def _memory(project: Project, storyline_id: str) -> str:
    if not is_slug(storyline_id):
        return ""
    return _read(project.paths.storyline_memory(storyline_id), MEMORY_MAX_CHARS)


def _summary(project: Project, n: int) -> str | None:
    path = project.paths.summary(n)
    return read_text(path).strip() if path.is_file() else None


def recent_summaries(project: Project, chapter: int, k: int = RECENT_SUMMARIES) -> list[tuple[int, str]]:
    """The summaries of the last `k` chapters before `chapter` that have one, oldest first."""
    out: list[tuple[int, str]] = []
    misses = 0
    n = chapter - 1
    while n >= 1 and len(out) < k and misses < 50:
        text = _summary(project, n)
        if text is None:
            misses += 1
        else:
            out.append((n, text))
        n -= 1
    out.reverse()
    return out


def outline_for(project: Project, chapter: int) -> tuple[int, VolumeOutline | None]:
    """The volume whose outline holds `chapter` (current volume first, then its neighbours)."""
    current = project.current_volume
    if project.outline is not None and project.outline.get(chapter) is not None:
        return current, project.outline
    for volume in (current + 1, current - 1):
        if volume < 1:
            continue
        path = project.paths.outline(volume)
        if path.is_file():
            outline = parse_outline(read_text(path), path)
            if outline.get(chapter) is not None:
                return volume, outline
    return current, project.outline


def _schedule_for(project: Project, volume: int) -> StorylineSchedule | None:
    if volume == project.current_volume:
        return project.schedule
    path = project.paths.schedule(volume)
    return StorylineSchedule.load(path) if path.is_file() else None


# ------------------------------------------------------------------------------------------ characters


def _names(project: Project, state: CurrentState) -> dict[str, str]:
    """slug -> display name of every known character (character files first, then the state)."""
    names = {slug: c.display_name for slug, c in project.characters.items()}
    for slug, c in state.characters.items():
        if slug not in names and c.display_name:
            names[slug] = c.display_name
    return names


def _resolve(token: str | None, names: dict[str, str]) -> str | None:
    if not token:
        return None
    token = token.strip()
    if token in names:
        return token
    for slug, name in names.items():
        if name == token:
            return slug
    return None


def _outline_text(ch: OutlineChapter | None) -> str:
    return ch.plan_text() if ch is not None else ""


def _mentioned(text: str, names: dict[str, str]) -> list[str]:
    return [slug for slug, name in names.items() if name and name in text]


def _chapter_characters(
    project: Project,
    chapter: int,
    pov: str | None,
    ch: OutlineChapter | None,
    contract: ChapterContract | None,
    names: dict[str, str],
    foreign: frozenset[str] = frozenset(),
) -> list[str]:
    """The chapter's characters: the POV, the contract's, the outline's; without a contract, the most recently
    seen active characters fill up to the cap, leaving out `foreign` ones (exclusive to another storyline and
    not bridged to this one: offering them would invite the leak LS-005 forbids)."""
    found: list[str] = [pov] if pov else []
    if contract is not None:
        keys = [*contract.preconditions.character_states, *contract.postconditions.state_changes]
        found += [s for s in (_resolve(k, names) for k in keys) if s]
    found += _mentioned(_outline_text(ch), names)
    ordered = list(dict.fromkeys(found))
    if contract is not None:
        return ordered
    # No contract: most recently seen active characters, capped (seed 002 8.5).
    recency: dict[str, int] = {}
    for n, text in recent_summaries(project, chapter):
        for slug in _mentioned(text, names):
            recency[slug] = n
    rest = sorted((s for s in names if s not in ordered and s not in foreign),
                  key=lambda s: (-recency.get(s, 0), list(names).index(s)))
    return (ordered + rest)[:NO_CONTRACT_CHARACTER_LIMIT]


def _foreign(project: Project, storyline_id: str, convergence: list[str]) -> frozenset[str]:
    """Characters exclusive to another storyline, not bridged to `storyline_id` (none in a convergence chapter)."""
    if convergence:
        return frozenset()
    return frozenset(entity for entity, (owner, bridged) in exclusive_entities(project.storylines).items()
                     if owner != storyline_id and storyline_id not in bridged)


def chapter_info(project: Project, chapter: int, state: CurrentState | None = None) -> ChapterInfo:
    """Resolve storyline, POV, characters and convergence of `chapter` from outline, contract and schedule."""
    state = state if state is not None else _state(project)
    volume, outline = outline_for(project, chapter)
    ch = outline.get(chapter) if outline is not None else None
    contract = project.contract(chapter, volume)
    schedule = _schedule_for(project, volume)
    names = _names(project, state)
    storyline_id = (
        (contract.storyline_id if contract is not None else None)
        or (ch.storyline if ch is not None else None)
        or (project.storylines.ids()[0] if project.storylines.storylines else DEFAULT_STORYLINE)
    )
    pov_token = ch.pov if ch is not None else None
    if pov_token is None:
        line = project.storylines.get(storyline_id)
        pov_token = line.pov_characters[0] if line is not None and line.pov_characters else None
    pov_id = _resolve(pov_token, names) or (pov_token if pov_token and is_slug(pov_token) else None)
    pov_name = names.get(pov_id, pov_token) if pov_id else pov_token
    convergence: list[str] = []
    if schedule is not None:
        for event in schedule.convergence_events:
            if chapter in event.chapters():
                convergence += [s for s in event.involved_storylines if s not in convergence]
    return ChapterInfo(
        number=chapter,
        volume=volume,
        outline=outline,
        chapter=ch,
        contract=contract,
        schedule=schedule,
        storyline_id=storyline_id,
        pov_id=pov_id,
        pov_name=pov_name,
        title=ch.title if ch is not None else "",
        character_ids=_chapter_characters(project, chapter, pov_id, ch, contract, names,
                                          _foreign(project, storyline_id, convergence)),
        convergence_lines=convergence,
    )


# ------------------------------------------------------------------------------------------ text pieces


def _chapter_outline(info: ChapterInfo) -> str:
    if info.chapter is None:
        return f"第{info.number}章（大纲中没有本章的条目，按前文自然推进）"
    return render_outline(VolumeOutline(chapters=[info.chapter])).strip()


def _volume_outline(outline: VolumeOutline | None) -> str:
    """Synopsis and one line per chapter: stable for the whole volume, bounded by its chapter count."""
    if outline is None:
        return ""
    lines = [f"# {outline.title}"] if outline.title else []
    if outline.synopsis:
        lines.append(outline.synopsis)
    for ch in outline.chapters:
        bits = [b for b in (ch.storyline, ch.pov, ch.conflict) if b]
        lines.append(f"- {ch.heading}｜" + "｜".join(bits))
    return "\n".join(lines)


def _world_rules(project: Project) -> str:
    """Every L1 rule, the same for every chapter (stable tier: no chapter-specific mark here, see
    `_focus_rules`)."""
    lines = []
    for rule in project.world_rules.rules:
        if rule.constraint_type == "hard":
            lines.append(f"- {rule.id}［硬性］禁止出现与此矛盾的任何情节、对话或能力表现：{rule.rule}")
        else:
            extra = f"例外：{'；'.join(rule.exceptions)}。" if rule.exceptions else ""
            lines.append(f"- {rule.id}［软性］{rule.rule}。{extra}出现例外时正文必须交代理由。")
    return "\n".join(lines)


def _focus_rules(project: Project, info: ChapterInfo) -> str:
    """The rules this chapter's contract requires, for the chapter tier (after the last cache breakpoint)."""
    focus = info.contract.preconditions.required_world_rules if info.contract is not None else []
    by_id = {rule.id: rule for rule in project.world_rules.rules}
    lines = []
    for rule_id in focus:
        rule = by_id.get(rule_id)
        if rule is not None:
            kind = "硬性" if rule.constraint_type == "hard" else "软性"
            lines.append(f"- {rule.id}［{kind}］{rule.rule}")
    return "\n".join(lines)


def _character_contracts(project: Project, info: ChapterInfo, names: dict[str, str]) -> str:
    speech = project.style_profile.character_speech_patterns
    blocks = []
    for slug in info.character_ids:
        name = names.get(slug, slug)
        lines = [f'<character id="{slug}" name="{name}">']
        file = project.characters.get(slug)
        contracts = file.contracts_in_force(info.number) if file is not None else []
        if contracts:
            lines.append("契约（L2）：")
            for c in contracts:
                exc = f"（例外：{'；'.join(c.exceptions)}）" if c.exceptions else ""
                lines.append(f"- {c.id}［{c.type or '契约'}］{c.rule}{exc}")
        habit = speech.get(slug) or speech.get(name)
        if habit:
            lines.append(f"语癖：{habit if isinstance(habit, str) else dumps(habit)}")
        profile = _read(project.paths.character_profile(slug), PROFILE_MAX_CHARS) if is_slug(slug) else ""
        if profile:
            lines.append("档案：")
            lines.append(profile)
        lines.append("</character>")
        blocks.append("\n".join(lines))
    return "\n".join(blocks)


def _trimmed_state(state: CurrentState, mention_text: str) -> dict[str, Any]:
    """Every character (long lists cut to their last entries); other entities capped to the mentioned ones."""
    data = state.to_data()

    def cut(value: Any) -> Any:
        if isinstance(value, list) and len(value) > STATE_LIST_LIMIT:
            return value[-STATE_LIST_LIMIT:]
        return value

    characters = {
        slug: {k: cut(v) for k, v in fields.items()} for slug, fields in data.get("characters", {}).items()
    }
    out: dict[str, Any] = {
        "characters": characters,
        "world_state": {k: cut(v) for k, v in data.get("world_state", {}).items()},
        "active_foreshadowing": cut(data.get("active_foreshadowing", [])),
    }
    for category in ("items", "locations", "factions"):
        entities: dict[str, Any] = data.get(category, {})
        if len(entities) > ENTITY_LIMIT:
            entities = {
                k: v
                for k, v in entities.items()
                if k in mention_text or str(v.get("display_name", "\0")) in mention_text
            }
            entities = dict(list(entities.items())[:ENTITY_LIMIT])
        if entities:
            out[category] = entities
    return out


_FS_ID = re.compile(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*")  # slugs and the plugin's F-001
_FS_VERBS: tuple[tuple[str, str], ...] = (("回收", "resolved"), ("推进", "advanced"), ("埋", "planted"))
_FS_MARK = re.compile(r"^\s*[（(]\s*(planted|advanced|resolved)\s*[)）]")
_CONTRACT_ACTIONS = {"plant": "planted", "advance": "advanced", "resolve": "resolved"}


def _outline_foreshadowing(text: str, known: set[str]) -> list[tuple[str, str]]:
    """(id, action) pairs named in an outline's Foreshadowing field."""
    found: list[tuple[str, str]] = []
    previous_end = 0
    for match in _FS_ID.finditer(text):
        fid = match.group(0)
        if fid not in known and "-" not in fid:
            continue
        action = None
        mark = _FS_MARK.match(text[match.end() :])
        if mark:
            action = mark.group(1)
        else:
            before = text[max(previous_end, match.start() - 6) : match.start()]
            action = next((a for verb, a in _FS_VERBS if verb in before), None)
        found.append((fid, action or ("advanced" if fid in known else "planted")))
        previous_end = match.end()
    return found


def foreshadowing_tasks(info: ChapterInfo, ledger: ForeshadowingLedger) -> list[dict[str, Any]]:
    known = {item.id for item in ledger.foreshadowing}
    pairs: list[tuple[str, str, str]] = []
    if info.chapter is not None and info.chapter.foreshadowing:
        pairs += [(f, a, "outline") for f, a in _outline_foreshadowing(info.chapter.foreshadowing, known)]
    if info.contract is not None:
        for obj in info.contract.objectives:
            if obj.target and obj.action and is_foreshadow_id(obj.target):
                pairs.append((obj.target, _CONTRACT_ACTIONS.get(obj.action, obj.action), "contract"))
        for fid, action in info.contract.postconditions.foreshadowing_updates.items():
            if is_foreshadow_id(fid):
                pairs.append((fid, action, "contract"))
    overdue = sorted(
        overdue_items(ledger, info.number), key=lambda i: (i.target_resolve_range or (0, 0))[1]
    )[:OVERDUE_LIMIT]
    pairs += [(item.id, "overdue", "ledger") for item in overdue]
    tasks: dict[str, dict[str, Any]] = {}
    for fid, action, source in pairs:
        if fid in tasks:
            continue
        item = ledger.get(fid)
        task: dict[str, Any] = {"id": fid, "action": action, "source": source}
        if item is not None:
            task.update(description=item.description, status=item.status)
            if item.scope:
                task["scope"] = item.scope
            if item.target_resolve_range:
                task["target_resolve_range"] = list(item.target_resolve_range)
        tasks[fid] = task
    return list(tasks.values())


_TASK_WORDS = {"planted": "埋设", "advanced": "推进", "resolved": "回收", "overdue": "已超期，尽快回收"}


def _tasks_text(tasks: list[dict[str, Any]]) -> str:
    lines = []
    for t in tasks:
        desc = f"：{t['description']}" if t.get("description") else ""
        lines.append(f"- {_TASK_WORDS.get(t['action'], t['action'])} {t['id']}{desc}")
    return "\n".join(lines)


def _concurrent_line(project: Project, info: ChapterInfo, storyline_id: str) -> str:
    ctx = info.contract.storyline_context if info.contract is not None else None
    if ctx is not None and storyline_id in ctx.concurrent_state:
        return ctx.concurrent_state[storyline_id]
    if info.outline is not None:
        for ch in reversed(info.outline.chapters):
            if ch.number < info.number and ch.storyline == storyline_id:
                text = _summary(project, ch.number)
                if text:
                    text = " ".join(text.split())
                    return text[:CONCURRENT_MAX_CHARS] + ("……" if len(text) > CONCURRENT_MAX_CHARS else "")
    return "（本卷尚无进展）"


def _storyline_ids(project: Project, info: ChapterInfo) -> list[str]:
    if info.schedule is not None and info.schedule.active_storylines:
        return [s.storyline_id for s in info.schedule.active_storylines]
    return [line.id for line in project.storylines.storylines if line.status == "active"]


def _adjacent(info: ChapterInfo) -> list[str]:
    out: list[str] = []
    hint = info.contract.transition_hint if info.contract is not None else None
    if hint is not None and hint.next_storyline and hint.next_storyline != info.storyline_id:
        out.append(hint.next_storyline)
    out += [s for s in info.convergence_lines if s != info.storyline_id and s not in out]
    return out


def _storyline_block(project: Project, info: ChapterInfo, storyline_id: str, role: str) -> str:
    line = project.storylines.get(storyline_id)
    name = line.name if line is not None else storyline_id
    parts = [f'<storyline id="{storyline_id}" name="{name}" role="{role}">']
    ctx = info.contract.storyline_context if info.contract is not None else None
    if role == "active" and ctx is not None:
        facts = []
        if ctx.line_arc_progress is not None:
            facts.append(f"本线进度：{ctx.line_arc_progress}")
        if ctx.last_chapter_on_this_line is not None:
            facts.append(f"上次本线章节：第{ctx.last_chapter_on_this_line}章")
        if facts:
            parts.append("；".join(facts))
        if ctx.last_chapter_summary:
            parts.append(f"上次本线章节摘要：{ctx.last_chapter_summary}")
    memory = _memory(project, storyline_id)
    parts.append(memory or "（本线暂无记忆）")
    parts.append("</storyline>")
    return "\n".join(parts)


def _storyline_context(project: Project, info: ChapterInfo) -> tuple[str, str, str]:
    """(active line, other lines' memory, concurrent state). Only the active line goes inside
    `<active_storyline>`; the adjacent lines (transition target, convergence partners) keep their memory but in
    their own block, which the prompt marks as unknown to this chapter's POV; every other active line gets one
    line of concurrent state."""
    adjacent = _adjacent(info)
    active = _storyline_block(project, info, info.storyline_id, "active")
    other = "\n".join(_storyline_block(project, info, s, "adjacent") for s in adjacent)
    if other and info.is_convergence:
        other = CONVERGENCE_NOTE + "\n" + other
    others = [s for s in _storyline_ids(project, info) if s != info.storyline_id and s not in adjacent]
    concurrent = "\n".join(f"- {s}：{_concurrent_line(project, info, s)}" for s in others)
    return active, other, concurrent


def _on_line(project: Project, info: ChapterInfo, number: int) -> bool | None:
    """Whether chapter `number` is on this chapter's storyline (None: nothing says)."""
    volume, outline = outline_for(project, number)
    entry = outline.get(number) if outline is not None else None
    line = entry.storyline if entry is not None else None
    if line is None:
        contract = project.contract(number, volume)
        line = contract.storyline_id if contract is not None else None
    if line is None:
        return True if len(project.storylines.storylines) <= 1 else None
    return line == info.storyline_id


def previous_on_line(project: Project, info: ChapterInfo) -> int | None:
    """The last written chapter before this one on its storyline: the contract's `last_chapter_on_this_line`
    when it names one, else the nearest earlier chapter the outline puts on this line."""
    ctx = info.contract.storyline_context if info.contract is not None else None
    if ctx is not None and ctx.last_chapter_on_this_line is not None:
        n = ctx.last_chapter_on_this_line
        return n if n < info.number and project.paths.chapter(n).is_file() else None
    for n in range(info.number - 1, max(0, info.number - PREVIOUS_LOOKBACK), -1):
        if project.paths.chapter(n).is_file() and _on_line(project, info, n) is True:
            return n
    return None


def _chapter_file(project: Project, n: int) -> str:
    path = project.paths.chapter(n)
    return read_text(path) if path.is_file() else ""


def _continuity(project: Project, info: ChapterInfo) -> tuple[str, str]:
    """(previous ending on this line, labelled tail of the chapter just before when it is on another line)."""
    previous = previous_on_line(project, info)
    ending = ""
    if previous is not None:
        text = chapter_ending(_chapter_file(project, previous))
        if text:
            ending = f"（第{previous}章结尾，原文）\n{text}"
    before = info.number - 1
    tail = ""
    if before >= 1 and before != previous and project.paths.chapter(before).is_file():
        text = chapter_tail(_chapter_file(project, before))
        if text:
            _, outline = outline_for(project, before)
            entry = outline.get(before) if outline is not None else None
            line_id = entry.storyline if entry is not None and entry.storyline else "另一条线"
            line = project.storylines.get(line_id)
            label = f"{line_id}（{line.name}）" if line is not None else line_id
            tail = f"（第{before}章属于故事线 {label}，只给结尾几句供切线衔接；那是另一条线 POV 的所见所闻，本章 POV 只知道自己亲历的部分）\n{text}"
    return ending, tail


def _pov_and_time(project: Project, info: ChapterInfo, state: CurrentState) -> str:
    """The POV and time of this chapter, stated plainly."""
    lines = []
    if info.pov_name:
        ident = f"（{info.pov_id}）" if info.pov_id and info.pov_id != info.pov_name else ""
        lines.append(f"视角（POV）：{info.pov_name}{ident}。只写此人能看到、听到、知道的事。")
    entry = info.chapter
    stated = None
    if entry is not None:
        stated = next((v for k, v in entry.extra.items() if k.lower() in TIME_KEYS and v), None)
    if stated:
        lines.append(f"时间：{stated}")
    else:
        marker = state.world_state.get("time_marker")
        if marker:
            lines.append(f"时间：上一章结束时为 {marker}；本章时间按大纲与契约推定，开头交代清楚。")
    if entry is not None and entry.location:
        lines.append(f"地点：{entry.location}")
    return "\n".join(lines)


def _transition_hint(project: Project, info: ChapterInfo) -> str:
    hint = info.contract.transition_hint if info.contract is not None else None
    if hint is None or not (hint.bridge or hint.next_storyline):
        return ""
    if hint.next_storyline and hint.next_storyline != info.storyline_id:
        line = project.storylines.get(hint.next_storyline)
        name = f"（{line.name}）" if line is not None else ""
        return f"本章结尾过渡到 {hint.next_storyline}{name}：{hint.bridge}".rstrip("：")
    return f"本章结尾：{hint.bridge}" if hint.bridge else ""


def _style_profile(project: Project) -> str:
    data = project.style_profile.to_data()
    for key in ("writing_directives", *ANCHOR_FIELDS):  # rendered in their own blocks
        data.pop(key, None)
    return dumps(data)


def _style_anchors(project: Project) -> str:
    passages = style_anchors(project.style_profile.to_data())
    return "\n\n".join(f"<passage n=\"{i}\">\n{p}\n</passage>" for i, p in enumerate(passages, 1))


EMPTY_BRIEF = "（作者尚未填写创作纲领）"


def project_brief(project: Project) -> str:
    """The author's brief for the stable tier of every prompt (seed 000 8.3): hint lines and empty sections
    dropped; a template-only brief renders as a one-line "not filled in" note."""
    brief = load_brief(project.paths.brief)
    return EMPTY_BRIEF if brief.is_empty else brief.text


def _contract_text(project: Project, info: ChapterInfo, names: dict[str, str]) -> str:
    rules = {rule.id: rule.rule for rule in project.world_rules.rules}
    return contract_checklist(info.contract, names, rules)


def _lines(items: list[str]) -> str:
    return "\n".join(f"- {item}" for item in items)


def _recent_text(items: list[tuple[int, str]]) -> str:
    return "\n".join(f"第{n}章：{' '.join(text.split())}" for n, text in items)


# ------------------------------------------------------------------------------------------ bundles


def render_bundle(
    agent: str,
    prompt_id: str,
    variables: dict[str, str],
    data: dict[str, Any],
    registry: PromptRegistry | None,
    *,
    root: Path | None = None,
) -> ContextBundle:
    """Render `prompt_id` with the variables it declares (others are dropped), at the version `registry` gives;
    without a registry, the version the project at `root` pins (`project_registry`), else the latest."""
    if registry is None:
        registry = project_registry(root) if root is not None else default_registry()
    template = registry.get(prompt_id)
    values = {k: v for k, v in variables.items() if k in template.variables}
    sections = template.render(values)
    return ContextBundle(
        agent=agent,
        prompt_id=template.id,
        prompt_version=template.version,
        variables=values,
        sections=sections,
        data=data,
        estimated_tokens=estimate_tokens(join_sections(sections)),
    )


def _pov_state(state: CurrentState, pov: str | None) -> dict[str, Any]:
    if pov is None or pov not in state.characters:
        return {}
    data = state.characters[pov].to_data()
    return {k: data[k] for k in ("location", "emotional_state", "inventory") if k in data}


def _base_data(
    project: Project, settings: Settings, info: ChapterInfo, state: CurrentState, ledger: ForeshadowingLedger
) -> dict[str, Any]:
    names = _names(project, state)
    ch = info.chapter
    return {
        "chapter": info.number,
        "volume": info.volume,
        "title": info.title,
        "storyline_id": info.storyline_id,
        "pov": {"id": info.pov_id, "display_name": info.pov_name},
        "location": ch.location if ch is not None else None,
        "conflict": ch.conflict if ch is not None else None,
        "arc": ch.arc if ch is not None else None,
        "characters": [{"id": s, "display_name": names.get(s, s)} for s in info.character_ids],
        "foreshadowing": [{"id": t["id"], "action": t["action"]} for t in foreshadowing_tasks(info, ledger)],
        "min_chars": settings.writing.chapter_min_chars,
        "max_chars": settings.writing.chapter_max_chars,
        "blacklist": project.ai_blacklist.effective_words(),
        "state": _pov_state(state, info.pov_id),
        "convergence": info.is_convergence,
    }


def _blacklist_variables(project: Project, settings: Settings, *names: str) -> dict[str, str]:
    """The project's blacklist block (`pipeline.blacklist_prompt`, the one rendering every prompt holds) under the
    variable name(s) the agent's templates use."""
    text = blacklist_rules(project.ai_blacklist, settings.writing.chapter_min_chars)
    return dict.fromkeys(names, text)


def _writer_variables(
    project: Project, settings: Settings, info: ChapterInfo, state: CurrentState, ledger: ForeshadowingLedger
) -> dict[str, str]:
    names = _names(project, state)
    storyline_context, other_storylines, concurrent = _storyline_context(project, info)
    previous_ending, transition_tail = _continuity(project, info)
    mention = _outline_text(info.chapter) + " ".join(info.character_ids)
    return {
        "project_brief": project_brief(project),
        "chapter_min_chars": str(settings.writing.chapter_min_chars),
        "chapter_max_chars": str(settings.writing.chapter_max_chars),
        "style_profile": _style_profile(project),
        "style_directives": _lines(project.style_profile.directive_lines()),
        "style_anchors": _style_anchors(project),
        # one rendering under both names: `blacklist_rules` (chapter-writer v2), `ai_blacklist` (v1, chapter-fixer)
        **_blacklist_variables(project, settings, "ai_blacklist", "blacklist_rules"),
        "world_rules": _world_rules(project),
        "volume_outline": _volume_outline(info.outline),
        "style_drift": _lines(project.style_drift.injected_directives()),
        "storyline_id": info.storyline_id,
        "storyline_context": storyline_context,
        "other_storylines": other_storylines,
        "concurrent_state": concurrent,
        "transition_hint": _transition_hint(project, info),
        "chapter_num": str(info.number),
        "pov_and_time": _pov_and_time(project, info, state),
        "previous_ending": previous_ending,
        "transition_tail": transition_tail,
        "focus_rules": _focus_rules(project, info),
        "chapter_outline": _chapter_outline(info),
        "chapter_contract": _contract_text(project, info, names),
        "character_contracts": _character_contracts(project, info, names),
        "current_state": dumps(_trimmed_state(state, mention)),
        "recent_summaries": _recent_text(recent_summaries(project, info.number)),
        "foreshadowing_tasks": _tasks_text(foreshadowing_tasks(info, ledger)),
    }


def writer_context(
    project: Project,
    settings: Settings,
    chapter: int,
    *,
    note: str | None = None,
    rewrite: RevisionInput | None = None,
    registry: PromptRegistry | None = None,
) -> ContextBundle:
    """ChapterWriter (first draft, or a full rewrite with the judge's findings in the author-note slot)."""
    state, ledger = _state(project), _ledger(project)
    info = chapter_info(project, chapter, state)
    variables = _writer_variables(project, settings, info, state, ledger)
    author_note = (note or "").strip()
    if rewrite is not None:
        findings = [*rewrite.violations, *rewrite.required_fixes, *rewrite.issues]
        author_note = "\n".join(
            p for p in (author_note, "【全章重写】上一稿被评审判定需要重写，本次从头写，务必避免：", _lines(findings)) if p
        )
    variables["author_note"] = author_note
    data = _base_data(project, settings, info, state, ledger) | {"note": note or "", "rewrite": rewrite is not None}
    return render_bundle("chapter_writer", WRITER_PROMPT, variables, data, registry, root=project.root)


def reviser_context(
    project: Project,
    settings: Settings,
    chapter: int,
    revision: RevisionInput,
    *,
    note: str | None = None,
    registry: PromptRegistry | None = None,
) -> ContextBundle:
    """ChapterWriter's targeted revision of its draft, following the judge's required fixes."""
    state, ledger = _state(project), _ledger(project)
    info = chapter_info(project, chapter, state)
    variables = _writer_variables(project, settings, info, state, ledger)
    variables.update(
        chapter_draft=revision.previous_text.strip(),
        required_fixes=_lines(with_paragraphs(revision.required_fixes, revision.previous_text))
        or "- （无具体指令：按违规与问题修订）",
        judge_issues=_lines(with_paragraphs(revision.issues, revision.previous_text)),
        violations=_lines(revision.violations),
        author_note=(note or "").strip(),
    )
    data = _base_data(project, settings, info, state, ledger) | {"note": note or "", "rewrite": False}
    return render_bundle("revision", REVISER_PROMPT, variables, data, registry, root=project.root)


FIXER_PROMPT = "chapter-fixer"
FIX_CAP_RATIO = 0.4  # a local revision may change up to 40 % of the chapter (the refiner: 15 %)


def fixer_context(
    project: Project,
    settings: Settings,
    chapter: int,
    revision: RevisionInput,
    *,
    registry: PromptRegistry | None = None,
) -> ContextBundle:
    """ChapterWriter's local revision: the judge's findings all point at paragraphs, so it answers with edits."""
    state, ledger = _state(project), _ledger(project)
    info = chapter_info(project, chapter, state)
    variables = _writer_variables(project, settings, info, state, ledger)
    text = revision.previous_text
    variables.update(
        required_fixes=_lines(with_paragraphs(revision.required_fixes, text)),
        judge_issues=_lines(with_paragraphs(revision.issues, text)),
        violations=_lines(with_paragraphs(revision.violations, text)),
        max_edit_chars=str(cap_chars_for(text, FIX_CAP_RATIO)),
        chapter_draft=text.strip(),
    )
    data = _base_data(project, settings, info, state, ledger) | {"fixes": list(revision.required_fixes)}
    return render_bundle("revision", FIXER_PROMPT, variables, data, registry, root=project.root)


def _entity_map(project: Project, state: CurrentState, ledger: ForeshadowingLedger) -> str:
    def display(entities: dict[str, dict[str, Any]]) -> dict[str, str]:
        return {k: str(v.get("display_name", k)) for k, v in entities.items()}

    return dumps(
        {
            "characters": _names(project, state),
            "items": display(state.items),
            "locations": display(state.locations),
            "factions": display(state.factions),
            "foreshadowing": {
                i.id: i.description[:40] for i in ledger.foreshadowing if i.status != "resolved"
            },
            "storylines": {line.id: line.name for line in project.storylines.storylines},
        }
    )


def summarizer_context(
    project: Project,
    settings: Settings,
    chapter: int,
    text: str,
    hints: str,
    *,
    registry: PromptRegistry | None = None,
) -> ContextBundle:
    state, ledger = _state(project), _ledger(project)
    info = chapter_info(project, chapter, state)
    line = project.storylines.get(info.storyline_id)
    whitelist = {
        "storyline": info.storyline_id,
        "characters": list(dict.fromkeys([*(line.pov_characters if line else []), *info.character_ids])),
        "locations": [info.chapter.location] if info.chapter is not None and info.chapter.location else [],
    }
    mention = _outline_text(info.chapter) + " ".join(info.character_ids)
    memory = _memory(project, info.storyline_id)
    variables = {
        "project_brief": project_brief(project),
        "entity_id_map": _entity_map(project, state, ledger),
        "chapter_num": str(chapter),
        "storyline_id": info.storyline_id,
        "storyline_memory": memory,
        "active_storyline_entities": dumps(whitelist),
        "current_state": dumps(_trimmed_state(state, mention)),
        "foreshadowing_tasks": _tasks_text(foreshadowing_tasks(info, ledger)),
        "writer_hints": hints.strip(),
        "chapter_content": text.strip(),
    }
    data = _base_data(project, settings, info, state, ledger) | {
        "storyline_memory": memory,
        "summary_source": _outline_text(info.chapter),
    }
    return render_bundle("summarizer", SUMMARIZER_PROMPT, variables, data, registry, root=project.root)


def refiner_context(
    project: Project,
    settings: Settings,
    chapter: int,
    text: str,
    *,
    cap_ratio: float = 0.15,
    polish: bool = False,
    findings: list[str] | None = None,
    registry: PromptRegistry | None = None,
) -> ContextBundle:
    """StyleRefiner; the polish pass also gets the judge's findings with the paragraphs they point at."""
    variables = {
        "project_brief": project_brief(project),
        "style_profile": _style_profile(project),
        **_blacklist_variables(project, settings, "ai_blacklist"),
        "style_drift": _lines(project.style_drift.injected_directives()),
        "max_edit_chars": str(cap_chars_for(text, cap_ratio)),
        "judge_findings": _lines(with_paragraphs(findings or [], text)),
        "chapter_draft": text.strip(),
    }
    data = {
        "chapter": chapter,
        "blacklist": project.ai_blacklist.effective_words(),
        "cap_ratio": cap_ratio,
        "polish": polish,
    }
    return render_bundle("style_refiner", REFINER_PROMPT, variables, data, registry, root=project.root)


def project_platform(project: Project) -> str | None:
    """The platform the style profile names (the plugin's `platform` field), as a `pipeline.platform_gates` key."""
    return platform_of((project.style_profile.model_extra or {}).get("platform"))


def style_metrics(text: str, blacklist: AiBlacklist | Sequence[str], *, names: Sequence[str] = ()) -> dict[str, Any]:
    """Cheap measured style figures for the judge (seed 000 Layer 4): `studio.checks.metrics` defines them.
    `blacklist`: the project's list (tiers, shapes and category flags enforced) or plain phrases; `names` are
    left out of the repeated phrases (repeating a name is no tic)."""
    if isinstance(blacklist, AiBlacklist):
        matcher = blacklist_matcher(blacklist)
    else:
        matcher = Matcher(Entry.parse(w) for w in blacklist if w)
    return prose_metrics(text, matcher, names=names).as_dict()


def _known_names(project: Project, state: CurrentState) -> list[str]:
    """Every name the story knows: characters (and their aliases), then the state's items, places and factions."""
    out = [n for c in project.characters.values() for n in (c.display_name, *c.aliases) if n]
    out += [c.display_name for c in state.characters.values() if c.display_name]
    for entities in (state.items, state.locations, state.factions):
        out += [str(v.get("display_name")) for v in entities.values() if v.get("display_name")]
    return list(dict.fromkeys(out))


def judge_context(
    project: Project,
    settings: Settings,
    chapter: int,
    text: str,
    *,
    cross_references: list[str] | None = None,
    revision: int = 0,
    registry: PromptRegistry | None = None,
) -> ContextBundle:
    state, ledger = _state(project), _ledger(project)
    info = chapter_info(project, chapter, state)
    names = _names(project, state)
    previous = recent_summaries(project, chapter, 1)
    blacklist = project.ai_blacklist
    measured = style_metrics(text, blacklist, names=_known_names(project, state))
    platform = project_platform(project)
    variables = {
        "project_brief": project_brief(project),
        "world_rules": _world_rules(project),
        "storyline_spec": dumps(project.storyline_spec.to_data()),
        "style_profile": _style_profile(project),
        **_blacklist_variables(project, settings, "ai_blacklist"),
        "storyline_schedule": dumps(info.schedule.to_data()) if info.schedule is not None else "",
        "chapter_num": str(chapter),
        "storyline_id": info.storyline_id,
        "is_convergence_chapter": "是" if info.is_convergence else "否",
        "chapter_outline": _chapter_outline(info),
        "focus_rules": _focus_rules(project, info),
        "chapter_contract": _contract_text(project, info, names),
        "character_contracts": _character_contracts(project, info, names),
        "prev_summary": _recent_text(previous),
        "cross_references": _lines(cross_references or []),
        "platform_gates": gates_prompt(platform, chapter),
        "style_metrics": dumps(measured),
        "check_findings": judge_evidence(project, chapter, text),
        "chapter_content": numbered_paragraphs(text),
    }
    contract_ids = [
        c.id
        for slug in info.character_ids
        if (f := project.characters.get(slug)) is not None
        for c in f.contracts_in_force(chapter)
    ]
    data = _base_data(project, settings, info, state, ledger) | {
        "revision": revision,
        "rule_ids": [r.id for r in project.world_rules.rules],
        "focus_rule_ids": list(info.contract.preconditions.required_world_rules) if info.contract else [],
        "character_contract_ids": contract_ids,
        "objective_ids": [o.id for o in info.contract.objectives] if info.contract is not None else [],
        "ls_rule_ids": [r.id for r in project.storyline_spec.rules],
        "quotes": first_sentences(text),
        "platform_gate_ids": [gate_id for gate_id, _ in gates_for(platform, chapter)],
        # what the offline judge may propose for the blacklist: phrases the chapter repeats (names excluded)
        "repeated_phrases": dict(measured.get("repeated_phrases") or {}),
    }
    return render_bundle("quality_judge", JUDGE_PROMPT, variables, data, registry, root=project.root)


def request_from_bundle(
    bundle: ContextBundle,
    *,
    agent: str,
    model: str,
    max_tokens: int,
    json_schema: dict[str, Any] | None = None,
    context: dict[str, Any] | None = None,
) -> ModelRequest:
    """The request of a rendered prompt: system = the stable tier (cache breakpoint after it); one user turn
    = the volume tier (breakpoint after it) then the chapter tier. Empty tiers are left out."""
    stable = bundle.section("stable")
    volume = bundle.section("volume")
    chapter = bundle.section("chapter")
    blocks = [UserBlock(volume, cache=True)] if volume else []
    if chapter:
        blocks.append(UserBlock(chapter))
    if not blocks:  # a prompt that is all stable text still needs a user turn
        blocks.append(UserBlock(stable))
        stable = ""
    return ModelRequest(
        agent=agent,
        model=model,
        system=[SystemBlock(stable, cache=True)] if stable else [],
        messages=[user_message(blocks)],
        max_tokens=max_tokens,
        json_schema=json_schema,
        prompt_id=bundle.prompt_id,
        prompt_version=str(bundle.prompt_version),
        context={"agent": bundle.agent, **bundle.data, **(context or {})},
    )
