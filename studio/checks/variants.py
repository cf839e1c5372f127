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

Book-wide counts must not make the check after a commit grow with the book, so each chapter's name statistics
(name counts, the characters seen around each name, the variant hits with what rule 2 decided about them alone)
and their book-wide sums are cached by `studio.checks.stats_cache.NameStatsCache`: in memory for the process and
on disk under novel-studio's user cache (never in the author's folder), keyed by a hash of the chapter text and
of the registered names. A check after a commit reads the book's small index and sums, not every chapter's
statistics; only new or changed chapters are matched and segmented again; pypinyin and jieba are imported only
when needed (the variants of new names; a variant hit in a new chapter).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from studio.checks import chinese
from studio.checks.matcher import Entry, Matcher
from studio.checks.names import MIN_NAME_LEN, NameEntity, NameRegistry
from studio.checks.registry import CheckContext
from studio.i18n import Catalog, tr
from studio.models.findings import Finding

if TYPE_CHECKING:
    from studio.checks.stats_cache import NameStatsCache

VARIANT = "name-variant"
STATS_VERSION = "3"
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


def registry_hash(registry: NameRegistry) -> str:
    """What the variants and the cached chapter statistics depend on: every name, its owner, and so every variant."""
    return hashlib.sha256(
        "\n".join(sorted(f"{n}\t{e.key}\t{e.kind}" for e in registry.entities for n in e.names)).encode()
    ).hexdigest()


class VariantIndex:
    """All variants of all registered names, as one matcher. `variants` may be given (read from the cache, for
    the same `registry_hash`): then pypinyin is not needed."""

    def __init__(self, registry: NameRegistry, variants: dict[str, list[Variant]] | None = None) -> None:
        self.registry = registry
        self.variants: dict[str, list[Variant]] = {}
        if variants is not None:
            self.variants = variants
        else:
            for entity in registry.entities:
                for name in entity.names:
                    if len(name) < MIN_NAME_LEN or registry.owner(name) is not entity:
                        continue
                    for v in variants_of(name, entity):
                        if registry.is_known(v.text):
                            continue
                        self.variants.setdefault(v.text, []).append(v)
        self._words: dict[str, bool] = {}
        self.names_hash = registry_hash(registry)
        names = [
            Entry(name, "phrase", "limited", "name", owner.key)
            for name in registry.names()
            if (owner := registry.owner(name)) is not None
        ]
        entries = (Entry(text, "phrase", "limited", VARIANT, text) for text in self.variants)
        self.matcher = Matcher([*names, *entries])

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


NO_NEIGHBOUR = "\x00"  # the text's start or end, in a context


def _around(text: str, start: int, end: int) -> str:
    """The characters left and right of text[start:end] as one 2-character string (sets of strings are cheap to
    read back from the cache and to merge)."""
    return (text[start - 1] if start else NO_NEIGHBOUR) + (text[end] if end < len(text) else NO_NEIGHBOUR)


@dataclass(frozen=True)
class VariantHit:
    """A variant in the text that no dictionary word straddles; `plain`: kept by rule 2 on its own (not a word,
    or where a name stands), otherwise kept only when its neighbours are ones a name was seen between."""

    ref: str
    start: int
    end: int
    plain: bool
    around: str  # see `_around`


@dataclass
class ChapterNameStats:
    """One chapter's part of the book-wide counts (see the module rules)."""

    names: Counter[str] = field(default_factory=Counter)
    contexts: dict[str, set[str]] = field(default_factory=dict)  # name -> `_around` strings
    hits: list[VariantHit] = field(default_factory=list)

    def to_data(self) -> dict[str, object]:
        return {
            "names": dict(self.names),
            "contexts": {n: sorted(cs) for n, cs in self.contexts.items()},
            "hits": [[h.ref, h.start, h.end, h.plain, h.around] for h in self.hits],
        }

    @classmethod
    def from_data(cls, data: Any) -> ChapterNameStats:
        names = data["names"]
        if not all(type(v) is int for v in names.values()):  # noqa: E721 - a JSON int, not a bool
            raise ValueError("name counts must be integers")
        return cls(
            Counter(names),
            {n: set(cs) for n, cs in data["contexts"].items()},
            [VariantHit(str(r), int(s), int(e), bool(p), str(a)) for r, s, e, p, a in data["hits"]],
        )


def chapter_name_stats(index: VariantIndex, text: str) -> ChapterNameStats:
    stats = ChapterNameStats()
    for m in index.matcher.find(text):
        if m.entry.category != VARIANT:
            name = text[m.start : m.end]
            stats.names[name] += 1
            stats.contexts.setdefault(name, set()).add(_around(text, m.start, m.end))
        elif not chinese.crosses_word(text, m.start, m.end):
            ref = m.entry.ref
            plain = not index.is_word(ref) or index.name_position(text, m.start, m.end)
            stats.hits.append(VariantHit(ref, m.start, m.end, plain, _around(text, m.start, m.end)))
    return stats


class NameVariantCheck:
    kind = "name_variant"

    def __init__(self, cache: Path | None = None, *, use_cache: bool = True) -> None:
        from studio.checks.stats_cache import shared_cache, stats_cache_dir

        self.cache: NameStatsCache | None = shared_cache(cache or stats_cache_dir()) if use_cache else None

    def run(self, ctx: CheckContext) -> Iterable[Finding]:
        registry = ctx.registry
        if not registry.names():
            return []
        index = self.cache.index(registry) if self.cache is not None else VariantIndex(registry)
        if self.cache is not None:
            stats, totals = self.cache.collect(index, ctx.chapters, ctx.reference)
            self.cache.flush()
        else:
            from studio.checks.stats_cache import sum_stats

            every = [chapter_name_stats(index, c.text) for c in [*ctx.chapters, *ctx.reference]]
            stats = every[: len(ctx.chapters)]
            totals = sum_stats([(str(i), s) for i, s in enumerate(every)])
        name_counts = totals.names
        contexts = totals.context_sets()  # name -> the characters seen around it (`_around`)
        variant_counts = totals.variant_counts(index, contexts)
        hits: list[tuple[int, list[VariantHit]]] = []  # (chapter index, variant hits kept)
        for ci, s in enumerate(stats):
            kept = [
                h
                for h in s.hits
                if h.plain or any(h.around in contexts.get(v.name, ()) for v in index.variants[h.ref])
            ]
            if kept:
                hits.append((ci, kept))
        findings: list[Finding] = []
        for ci, kept in hits:
            chapter = ctx.chapters[ci]
            per_variant: dict[str, list[VariantHit]] = {}
            for h in kept:
                per_variant.setdefault(h.ref, []).append(h)
            for text, hs in per_variant.items():
                best = max(index.variants[text], key=lambda v: name_counts[v.name])
                name_count = name_counts[best.name]
                count = variant_counts[text]
                if name_count < MIN_NAME_COUNT or count * RARITY > name_count or count > typo_cap(name_count):
                    continue
                how = tr(MESSAGES, best.how, ctx.lang)
                findings.append(
                    chapter.finding(
                        self.kind,
                        hs[0].start,
                        text,
                        severity="medium",
                        suggestion=best.name,
                        count=len(hs),
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
