"""Continuity against the state history (issue 8 item 4): who may act, who holds what, ranks that only climb.

The facts come from the Summarizer's state ops under the conventions of `studio.models.state` (status, holder,
ordered attributes), folded per chapter by `studio.checks.story`. Each chapter is checked against the state
*before* it, so a character who dies in this chapter may still speak before dying. Kinds:

- `continuity_status`: a character whose status was `dead` (high: it pauses a multi-chapter run), `retired` or
  `absent` (medium) speaks or acts: the name (or an alias) at the head of a clause followed by a speech verb
  (X道, X说, X低声问) or an action verb (X转身, X伸手). Mere mentions are not findings, nor is anything inside
  quotation marks (someone talking about X), nor a clause that recalls the past (想起, 记得, 当年, 生前, 梦见,
  ...). A chapter whose own ops change that character's status (a return, a revival) is not checked for them.
- `continuity_item`: a former holder of an item uses it (same sentence: the former holder at a clause head, a
  use verb, the item's name) while another character holds it, and the current holder is not in the sentence
  (medium). Not checked in a chapter whose ops move the item again.
- `continuity_attribute`: an ordered attribute set lower than before (medium) or more than one rank higher
  (low) by an op without a `detail` naming the event; a numeric one going down by an `inc` or `set` likewise.

One finding per character (or item, or attribute) and chapter, at the first occurrence, `count` = occurrences.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

from studio.checks.matcher import spans_cover
from studio.checks.metrics import dialogue_spans
from studio.checks.registry import ChapterText, CheckContext
from studio.checks.story import ChapterChanges, StateFacts
from studio.i18n import Catalog, tr
from studio.models.findings import Finding, Severity

MESSAGES: Catalog = {
    "dead": ("{name}此前已死亡（状态 dead），本章却在说话或行动", "{name} died earlier (status dead) but speaks or acts here"),
    "retired": ("{name}此前已退场（状态 retired），本章却在说话或行动", "{name} left the story (status retired) but speaks or acts here"),
    "absent": ("{name}此前不在场（状态 absent），本章却在说话或行动，且本章没有交代其回归", "{name} is away (status absent) but speaks or acts here, and no return is told"),
    "item": (
        "「{item}」已在第 {chapter} 章前转到{holder}手中，{former}却在使用它",
        "'{item}' passed to {holder} before chapter {chapter}, yet {former} uses it",
    ),
    "down": (
        "{name}的{attr}从「{old}」退到「{new}」，但没有写明原因事件",
        "{name}'s {attr} went down from '{old}' to '{new}' with no event given",
    ),
    "skip": (
        "{name}的{attr}从「{old}」越级到「{new}」，但没有写明突破事件",
        "{name}'s {attr} skipped from '{old}' to '{new}' with no event given",
    ),
}

STATUS_SEVERITY: dict[str, Severity] = {"dead": "high", "retired": "medium", "absent": "medium"}
# a clause head: start of paragraph, after clause punctuation or a closing quote (“……”林枫说)
_HEAD = "。！？；：，、…—\n”」』\"）)"
_GAP = r"[^，。！？；：、“”「」『』\s的之和与跟同被让听见看把向对给替]{0,5}?"
_GAP_TO = r"[^，。！？；：、“”「」『』\s的之和与跟同被让听见看把]{0,6}?"  # 对他说 / 向众人道 are still X speaking
SPEECH = r"(?:笑道|叹道|喝道|怒道|冷道|问道|答道|说道|开口|说|道|问|答|喊|叫|吼|骂|嘟囔|低语|嘀咕|应声|回答)"
ACTION = (
    r"(?:转身|转过身|起身|站起|站在|坐下|坐在|走进|走出|走到|走向|走了|走过|伸手|抬手|抬头|低头|点头|摇头|"
    r"笑了|笑着|皱眉|拔出|握住|握紧|推开|推门|跳|冲|跑|扑|挥|踏|拍|抓|接过|递给|拿起|拿出|看着|望着|盯着|"
    r"看向|望向|抱|拦|追|杀|出手)"
)
USE = (
    r"(?:拿|握|举|挥|祭出|取出|掏出|拔出|亮出|使出|抽出|用|持|捧|戴|佩|递|扔|放下|收起|打开|点燃|点亮|催动|"
    r"激发|执)"
)
# the past or the imagined: a clause holding one of these before the name is a memory, not an act
MEMORY = re.compile(
    r"想起|想到|记得|记起|忆起|回忆|回想|梦见|梦到|梦里|梦中|当年|当初|曾经|那时|那年|生前|往日|从前|昔日|"
    r"遗言|遗书|遗物|幻觉|幻象|仿佛|好像|似乎|若是|如果|假如|要是|倘若|传说|听说|据说|传闻|画像|牌位|灵位|"
    r"墓|坟"
)
_AFTER_MEMORY = re.compile(r"^(?:曾|生前|当年|以前|从前|说过|讲过)")
_SENTENCE_END = re.compile(r"[。！？!?\n]")


@dataclass(frozen=True)
class _Hit:
    pos: int
    name: str


def _clause_start(text: str, pos: int) -> int:
    i = pos
    while i > 0 and text[i - 1] not in _HEAD:
        i -= 1
    return i


def _sentence(text: str, pos: int) -> tuple[int, int]:
    start = pos
    while start > 0 and text[start - 1] not in "。！？!?\n":
        start -= 1
    m = _SENTENCE_END.search(text, pos)
    return start, (m.end() if m else len(text))


def _is_memory(text: str, pos: int, name: str) -> bool:
    start, _ = _sentence(text, pos)
    if MEMORY.search(text, start, pos):
        return True
    return bool(_AFTER_MEMORY.match(text[pos + len(name) : pos + len(name) + 4]))


@lru_cache(maxsize=8)
def _acting_tail(extra_verbs: str) -> Callable[[str, int], re.Match[str] | None]:
    """What must follow a name for it to speak or act (the big verb alternation: compiled once, not per name)."""
    verbs = f"{ACTION}|{extra_verbs}" if extra_verbs else ACTION
    return re.compile(rf"(?:{_GAP_TO}{SPEECH}|{_GAP}(?:{verbs}))").match


def acting_hits(
    text: str, names: Sequence[str], spans: Sequence[tuple[int, int]], *, extra_verbs: str = ""
) -> Iterator[_Hit]:
    """Where one of `names` speaks or acts in `text` (module rules), outside the dialogue `spans`;
    `extra_verbs` (a regex alternative) counts as acting too."""
    if not names:
        return
    ordered = sorted(set(names), key=len, reverse=True)  # the longest name first, as a regex alternation tries
    find = re.compile("|".join(re.escape(n) for n in ordered)).search
    tail = _acting_tail(extra_verbs)
    # what finditer of (names)(tail) finds, with the tail compiled once per process: at each place where a name
    # starts, the longest name the tail follows; the search goes on after the tail, or one character on
    at = 0
    while (m := find(text, at)) is not None:
        pos = m.start()
        found = next(
            ((n, t) for n in ordered if text.startswith(n, pos) and (t := tail(text, pos + len(n))) is not None),
            None,
        )
        if found is None:
            at = pos + 1
            continue
        name, after = found
        at = after.end()
        head = _clause_start(text, pos)
        # the name must head its clause (adverbs like 忽然 before it are fine: at most 4 characters)
        if pos - head > 4 or spans_cover(spans, pos) or _is_memory(text, pos, name):
            continue
        yield _Hit(pos, name)


def _character_names(ctx: CheckContext, facts: StateFacts, slug: str) -> list[str]:
    entity = next((e for e in ctx.registry.entities if e.key == f"character:{slug}"), None)
    names = list(entity.names) if entity else []
    if slug in facts.names:
        names.append(facts.names[slug])
    return [n for n in dict.fromkeys(n.strip() for n in names) if len(n) >= 2]


def _item_names(ctx: CheckContext, facts: StateFacts, slug: str) -> list[str]:
    entity = next((e for e in ctx.registry.entities if e.key == f"item:{slug}"), None)
    names = list(entity.names) if entity else []
    if slug in facts.names:
        names.append(facts.names[slug])
    return [n for n in dict.fromkeys(n.strip() for n in names) if len(n) >= 2]


def _touched(ops: Iterable[dict[str, object]], prefix: str) -> bool:
    return any(isinstance(op.get("path"), str) and str(op["path"]).startswith(prefix) for op in ops)


class ContinuityCheck:
    kind = "continuity"

    def run(self, ctx: CheckContext) -> Iterable[Finding]:
        if ctx.story is None or not ctx.chapters:
            return []
        changes = ctx.story.changes([c.number for c in ctx.chapters])
        out: list[Finding] = []
        for chapter in ctx.chapters:
            change = changes.get(chapter.number)
            if change is None or not chapter.text:
                continue
            out += self._status(ctx, chapter, change)
            out += self._items(ctx, chapter, change)
            out += self._attributes(ctx, chapter, change)
        return out

    def _status(self, ctx: CheckContext, chapter: ChapterText, change: ChapterChanges) -> list[Finding]:
        out: list[Finding] = []
        spans: list[tuple[int, int]] | None = None
        for slug, status in sorted(change.before.status.items()):
            severity = STATUS_SEVERITY.get(status)
            if severity is None or _touched(change.ops, f"characters.{slug}.status"):
                continue
            names = _character_names(ctx, change.before, slug)
            if not names or not any(n in chapter.text for n in names):
                continue
            spans = dialogue_spans(chapter.paras) if spans is None else spans
            hits = list(acting_hits(chapter.text, names, spans))
            if hits:
                name = change.before.names.get(slug) or names[0]
                out.append(
                    chapter.finding(
                        "continuity_status",
                        hits[0].pos,
                        hits[0].name,
                        severity=severity,
                        count=len(hits),
                        message=tr(MESSAGES, status, ctx.lang, name=name),
                    )
                )
        return out

    def _items(self, ctx: CheckContext, chapter: ChapterText, change: ChapterChanges) -> list[Finding]:
        out: list[Finding] = []
        before = change.before
        spans: list[tuple[int, int]] | None = None
        for item, formers in sorted(before.former.items()):
            holder = before.holder.get(item)
            if holder is None or _touched(change.ops, f"items.{item}.holder"):
                continue
            item_names = _item_names(ctx, before, item)
            found = [n for n in item_names if n in chapter.text]
            if not found:
                continue
            holder_names = _character_names(ctx, before, holder)
            for former in formers:
                if former == holder:
                    continue
                names = _character_names(ctx, before, former)
                if not names:
                    continue
                spans = dialogue_spans(chapter.paras) if spans is None else spans
                hits = []
                for hit in acting_hits(chapter.text, names, [], extra_verbs=USE):
                    start, end = _sentence(chapter.text, hit.pos)
                    sentence = chapter.text[start:end]
                    if spans_cover(spans, hit.pos) or any(h in sentence for h in holder_names):
                        continue
                    if any(n in sentence for n in found) and re.search(USE, sentence):
                        item_pos = min(start + sentence.index(n) for n in found if n in sentence)
                        hits.append((item_pos, chapter.text[item_pos : item_pos + max(len(n) for n in found if n in sentence)]))
                if hits:
                    out.append(
                        chapter.finding(
                            "continuity_item",
                            hits[0][0],
                            hits[0][1],
                            severity="medium",
                            count=len(hits),
                            message=tr(
                                MESSAGES,
                                "item",
                                ctx.lang,
                                item=before.names.get(item) or found[0],
                                chapter=chapter.number,
                                holder=before.names.get(holder) or (holder_names[0] if holder_names else holder),
                                former=before.names.get(former) or names[0],
                            ),
                        )
                    )
                    break
        return out

    def _attributes(self, ctx: CheckContext, chapter: ChapterText, change: ChapterChanges) -> list[Finding]:
        out: list[Finding] = []
        before = change.before
        seen: set[tuple[str, str]] = set()
        for op in change.ops:
            path, kind, value = op.get("path"), op.get("op"), op.get("value")
            if not isinstance(path, str) or op.get("detail"):
                continue
            parts = path.split(".")
            if len(parts) != 3 or parts[0] != "characters" or parts[2] not in before.ladders:
                continue
            slug, attr = parts[1], parts[2]
            if (slug, attr) in seen:
                continue
            old = before.attributes.get((slug, attr))
            ladder = before.ladders[attr]
            direction = _direction(ladder, old, value, kind)
            if direction is None:
                continue
            seen.add((slug, attr))
            new = value if kind == "set" else f"{old}{value:+}" if isinstance(value, int | float) else value
            text = str(value)
            pos = chapter.text.find(text) if kind == "set" and text else -1
            out.append(
                chapter.finding(
                    "continuity_attribute",
                    pos if pos >= 0 else None,
                    text,
                    severity="medium" if direction == "down" else "low",
                    message=tr(
                        MESSAGES,
                        direction,
                        ctx.lang,
                        name=before.names.get(slug) or slug,
                        attr=attr,
                        old=old,
                        new=new,
                    ),
                )
            )
        return out


def _direction(ladder: Sequence[str], old: object, new: object, kind: object) -> str | None:
    """"down", "skip" or None (fine, or not comparable) for one op on an ordered attribute."""
    if kind == "inc":
        return "down" if isinstance(new, int | float) and new < 0 else None
    if kind != "set" or old is None:
        return None
    if ladder:
        if str(old) not in ladder or str(new) not in ladder:
            return None
        step = ladder.index(str(new)) - ladder.index(str(old))
    elif isinstance(old, int | float) and isinstance(new, int | float) and not isinstance(new, bool):
        return "down" if new < old else None
    else:
        return None
    if step < 0:
        return "down"
    return "skip" if step > 1 else None
