"""Name variants: a string one character away from a registered name that is much rarer than the name.

A variant of a registered name (two characters or more) is the name with one character changed to
a homophone (toneless pinyin, heteronyms, surname readings) or a look-alike (`studio.checks.chinese`), two
adjacent characters swapped, or, for names of three characters or more, an inner character dropped (dropping
the surname or the last character gives the usual short forms, 婉儿, 慕容, so those are not variants).

A variant hit in the text is reported only when all of these hold (precision matters as much as recall):

1. the variant is not itself a registered name (two real entities differing by one character are never typos
   of each other); names and variants go through one matcher, so a registered name longer than the variant
   wins the overlap (苏婉儿 is not 苏婉 + 儿) and a variant longer than a name inside it wins (夙婉儿 over 婉儿);
2. no dictionary word straddles its edges (林峰 inside 树林峰顶); a variant that is itself a word of jieba's
   dictionary (小鱼, 枫林) counts only where it stands as a person's name: right before a speech or action word
   (`NAME_FOLLOWERS`: 道, 说, 笑, 沉默, ...), as a vocative (“枫林，...), or between a left and a right
   character that the name itself was seen between in the checked chapters — "大片枫林，" is not a typo;
3. it is much rarer than the name, counted over the checked chapters and the reference ones (the rest of the
   book): name count >= `MIN_NAME_COUNT`, variant count * `RARITY` <= name count, and variant count <=
   `typo_cap(name count)` (`MAX_TYPO_COUNT`, or one in `TYPO_SHARE` uses of the name in a long book). A
   frequent "variant" (an unregistered minor character called 林凤) is a new name, not a typo.

Swaps that give an address form (陈老 -> 老陈, 小X, 阿X) are not variants.

One finding per variant and chapter: first place, count in the chapter, the name as suggestion.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from studio.checks import chinese
from studio.checks.matcher import Entry, Match, Matcher
from studio.checks.names import MIN_NAME_LEN, NameEntity, NameRegistry
from studio.checks.registry import CheckContext
from studio.i18n import Catalog, tr
from studio.models.findings import Finding

VARIANT = "name-variant"
MIN_NAME_COUNT = 3
RARITY = 5
MAX_TYPO_COUNT = 5
TYPO_SHARE = 50
ADDRESS_PREFIXES = ("老", "小", "阿")
NAME_FOLLOWERS = (
    "道",
    "说",
    "笑",
    "问",
    "答",
    "低声",
    "沉声",
    "冷声",
    "轻声",
    "点了点头",
    "点头",
    "摇头",
    "握",
    "记得",
    "沉默",
    "迟疑",
    "叹",
    "皱眉",
    "站",
    "转身",
    "抬头",
    "心中",
    "眼中",
    "一愣",
    "怔",
)

MESSAGES: Catalog = {
    "homophone": ("同音", "homophone"),
    "lookalike": ("形近", "look-alike"),
    "swap": ("颠倒", "swapped"),
    "drop": ("漏字", "dropped character"),
    "variant": (
        "「{text}」疑似「{name}」的笔误（{how}；全书范围内「{name}」{name_count} 次，「{text}」{count} 次）",
        "'{text}' looks like a typo of '{name}' ({how}; '{name}' {name_count} times, '{text}' {count} times)",
    ),
}


def typo_cap(name_count: int) -> int:
    """How often a variant may occur and still be a typo of a name used `name_count` times."""
    return max(MAX_TYPO_COUNT, name_count // TYPO_SHARE)


@dataclass(frozen=True)
class Variant:
    text: str
    name: str
    how: str  # homophone, lookalike, swap, drop


def variants_of(name: str, entity: NameEntity) -> list[Variant]:
    """Every variant of `name` (see the module rules); may include registered names (filtered later)."""
    out: dict[str, Variant] = {}
    if len(name) < MIN_NAME_LEN:
        return []
    for i, ch in enumerate(name):
        surname = i == 0 and entity.kind == "character"
        for how, chars in (
            ("lookalike", chinese.lookalikes(ch)),
            ("homophone", chinese.homophones(ch, surname=surname)),
        ):
            for other in chars:
                text = name[:i] + other + name[i + 1 :]
                out.setdefault(text, Variant(text, name, how))
    for i in range(len(name) - 1):
        if name[i] != name[i + 1]:
            text = name[:i] + name[i + 1] + name[i] + name[i + 2 :]
            if not text.startswith(ADDRESS_PREFIXES):
                out.setdefault(text, Variant(text, name, "swap"))
    if len(name) >= 3:
        for i in range(1, len(name) - 1):
            text = name[:i] + name[i + 1 :]
            out.setdefault(text, Variant(text, name, "drop"))
    return list(out.values())


class VariantIndex:
    """All variants of all registered names, as one matcher."""

    def __init__(self, registry: NameRegistry) -> None:
        self.registry = registry
        self.variants: dict[str, list[Variant]] = {}
        for entity in registry.entities:
            for name in entity.names:
                if len(name) < MIN_NAME_LEN or registry.owner(name) is not entity:
                    continue
                for v in variants_of(name, entity):
                    if registry.is_known(v.text):
                        continue
                    self.variants.setdefault(v.text, []).append(v)
        self._words: dict[str, bool] = {}
        names = [
            Entry(name, "phrase", "limited", "name", owner.key)
            for name in registry.names()
            if (owner := registry.owner(name)) is not None
        ]
        variants = (Entry(text, "phrase", "limited", VARIANT, text) for text in self.variants)
        self.matcher = Matcher([*names, *variants])

    def is_word(self, variant: str) -> bool:
        """Asked only for variants the text holds, so a clean book never loads jieba's dictionary."""
        found = self._words.get(variant)
        if found is None:
            found = self._words[variant] = chinese.is_word(variant)
        return found

    def name_position(self, text: str, start: int, end: int) -> bool:
        """Whether text[start:end] stands where a person's name stands (see rule 2)."""
        if text.startswith(NAME_FOLLOWERS, end):
            return True
        return start > 0 and text[start - 1] in "“「" and text[end : end + 1] in "，,！？"


def _around(text: str, start: int, end: int) -> tuple[str, str]:
    return text[start - 1 : start] if start else "", text[end : end + 1]


class NameVariantCheck:
    kind = "name_variant"

    def run(self, ctx: CheckContext) -> Iterable[Finding]:
        registry = ctx.registry
        if not registry.names():
            return []
        index = VariantIndex(registry)
        name_counts: Counter[str] = Counter()
        contexts: dict[str, set[tuple[str, str]]] = {}  # name -> (left, right) characters seen around it
        candidates: list[tuple[int, list[Match]]] = []
        checked = len(ctx.chapters)
        for ci, chapter in enumerate([*ctx.chapters, *ctx.reference]):
            text = chapter.text
            found: list[Match] = []
            for m in index.matcher.find(text):
                if m.entry.category != VARIANT:
                    name = text[m.start : m.end]
                    name_counts[name] += 1
                    contexts.setdefault(name, set()).add(_around(text, m.start, m.end))
                elif not chinese.crosses_word(text, m.start, m.end):
                    found.append(m)
            if found:
                candidates.append((ci, found))
        hits: list[tuple[int, list[Match]]] = []  # (chapter index, variant hits)
        variant_counts: Counter[str] = Counter()
        every = [*ctx.chapters, *ctx.reference]
        for ci, found in candidates:
            text = every[ci].text
            kept = [
                m
                for m in found
                if not index.is_word(m.entry.ref)
                or index.name_position(text, m.start, m.end)
                or any(
                    _around(text, m.start, m.end) in contexts.get(v.name, ())
                    for v in index.variants[m.entry.ref]
                )
            ]
            for m in kept:
                variant_counts[m.entry.ref] += 1
            if kept and ci < checked:
                hits.append((ci, kept))
        findings: list[Finding] = []
        for ci, kept in hits:
            chapter = ctx.chapters[ci]
            per_variant: dict[str, list[Match]] = {}
            for m in kept:
                per_variant.setdefault(m.entry.ref, []).append(m)
            for text, ms in per_variant.items():
                best = max(index.variants[text], key=lambda v: name_counts[v.name])
                name_count = name_counts[best.name]
                count = variant_counts[text]
                if name_count < MIN_NAME_COUNT or count * RARITY > name_count or count > typo_cap(name_count):
                    continue
                how = tr(MESSAGES, best.how, ctx.lang)
                findings.append(
                    chapter.finding(
                        self.kind,
                        ms[0].start,
                        text,
                        severity="medium",
                        suggestion=best.name,
                        count=len(ms),
                        message=tr(
                            MESSAGES,
                            "variant",
                            ctx.lang,
                            text=text,
                            name=best.name,
                            how=how,
                            name_count=name_count,
                            count=count,
                        ),
                    )
                )
        return findings
