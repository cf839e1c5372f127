"""Name variants: a string one character away from a registered name that is much rarer than the name.

A variant of a registered name (two characters or more) is the name with one character changed to
a homophone (toneless pinyin, heteronyms, surname readings) or a look-alike (`studio.checks.chinese`), two
adjacent characters swapped, or, for names of three characters or more, an inner character dropped (dropping
the surname or the last character gives the usual short forms, 婉儿, 慕容, so those are not variants).

A variant hit in the text is reported only when all of these hold (precision matters as much as recall):

1. the variant is not itself a registered name (two real entities differing by one character are never typos
   of each other) and does not overlap a registered name's occurrence;
2. it is not a word of jieba's dictionary (小鱼 is not a typo of 小雨) and no dictionary word straddles its
   edges (林峰 inside 树林峰顶);
3. it is much rarer than the name over the checked chapters: name count >= `MIN_NAME_COUNT` and
   variant count * `RARITY` <= name count. A frequent "variant" is an unregistered name, not a typo.

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

MIN_NAME_COUNT = 3
RARITY = 5

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
                    if registry.is_known(v.text) or chinese.is_word(v.text):
                        continue
                    self.variants.setdefault(v.text, []).append(v)
        self.matcher = Matcher(
            Entry(text, "phrase", "limited", "name-variant", text) for text in self.variants
        )


def _overlaps(m: Match, spans: list[tuple[int, int]]) -> bool:
    return any(a < m.end and m.start < b for a, b in spans)


class NameVariantCheck:
    kind = "name_variant"

    def run(self, ctx: CheckContext) -> Iterable[Finding]:
        registry = ctx.registry
        if not registry.names():
            return []
        index = VariantIndex(registry)
        names = registry.matcher()
        name_counts: Counter[str] = Counter()
        hits: list[tuple[int, list[Match]]] = []  # (chapter index, variant hits)
        variant_counts: Counter[str] = Counter()
        for ci, chapter in enumerate(ctx.chapters):
            name_matches = names.find(chapter.text)
            for m in name_matches:
                name_counts[chapter.text[m.start : m.end]] += 1
            if not index.matcher:
                continue
            found = index.matcher.find(chapter.text)
            if not found:
                continue
            name_spans = [(m.start, m.end) for m in name_matches]
            kept = [
                m
                for m in found
                if not _overlaps(m, name_spans) and not chinese.crosses_word(chapter.text, m.start, m.end)
            ]
            for m in kept:
                variant_counts[m.entry.ref] += 1
            if kept:
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
                if name_count < MIN_NAME_COUNT or count * RARITY > name_count:
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
